// docs/guides/agents.md as a reader uses it: each `mcpServers` configuration of the page, run as
// written (its command, arguments and variables, with only the page's placeholder paths and values
// put in for a live devnet's), started by the MCP SDK's own stdio client as a desktop agent app would,
// answers the tools: it lists them, reads the vault and pays, the payment read back from the chain.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { projectRoot } from "../../src/paths.ts";
import { startLiveRelay, type LiveRelay } from "../cli/support/live.ts";
import { codeBlocks, page } from "./support/markdown.ts";

interface ServerConfig {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

const configs = codeBlocks(page("docs/guides/agents.md"))
  .filter((block) => block.lang === "json")
  .map((block) => JSON.parse(block.body) as { mcpServers: Record<string, ServerConfig> });

let live: LiveRelay;
let cwd: string;

beforeAll(async () => {
  live = await startLiveRelay("relay-docs-agents-");
  // Where the app starts the server: a directory of its own, with no `.relay` of a checkout in it.
  cwd = mkdtempSync(path.join(tmpdir(), "relay-docs-agents-app-"));
}, 180_000);
afterAll(async () => {
  await live?.stop();
  if (cwd !== undefined) rmSync(cwd, { recursive: true, force: true });
});

/** The page's placeholders, each with this devnet's value. */
function placeholders(): Array<[string, string]> {
  const { manifest } = live;
  if (manifest.relayerUrl === undefined) throw new Error("the devnet of relay serve names its relayer in its manifest");
  return [
    ["/home/you/relay/.relay", live.stateDir],
    ["/home/you/relay", projectRoot],
    ["https://relayer.example", manifest.relayerUrl],
    ["https://rpc.example", manifest.rpcUrl],
    ["84532", String(manifest.chainId)],
    ["0xYourVault", manifest.contracts.vault],
    ["0xYourBotKey", manifest.accounts.bots.default.privateKey],
  ];
}

function filledIn(text: string): string {
  let out = text;
  for (const [placeholder, value] of placeholders()) out = out.split(placeholder).join(value);
  return out;
}

async function connect(config: ServerConfig): Promise<Client> {
  const transport = new StdioClientTransport({
    command: filledIn(config.command),
    args: config.args.map(filledIn),
    ...(config.env === undefined ? {} : { env: Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, filledIn(v)])) }),
    cwd,
    stderr: "ignore",
  });
  const client = new Client({ name: "desktop-app", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("docs/guides/agents.md", () => {
  it("gives two mcpServers configurations, each of one server `relay` running bin/relay mcp", () => {
    expect(configs).toHaveLength(2);
    for (const config of configs) {
      expect(Object.keys(config.mcpServers)).toEqual(["relay"]);
      expect(config.mcpServers.relay!.command).toBe("/home/you/relay/bin/relay");
      expect(config.mcpServers.relay!.args[0]).toBe("mcp");
    }
  });

  for (const [index, name] of ["the devnet's state directory", "another relayer, by variables"].entries()) {
    it(`the configuration for ${name} runs as written: tools listed, the vault read, a payment made`, async () => {
      const client = await connect(configs[index]!.mcpServers.relay!);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain("pay");
        const value = await client.callTool({ name: "vault_value", arguments: {} });
        expect(value.isError).not.toBe(true);
        expect(value.structuredContent).toMatchObject({ vault: live.manifest.contracts.vault });

        const to = privateKeyToAccount(generatePrivateKey()).address;
        const usdc = live.manifest.tokens.USDC!.address as Address;
        const paid = await client.callTool({ name: "pay", arguments: { to, amount: "0.5", token: usdc } });
        expect(paid.structuredContent).toMatchObject({ status: "approved" });
        expect(await live.balanceOf("USDC", to)).toBe(500_000n);
      } finally {
        await client.close();
      }
    });
  }
});
