// `relay mcp` end to end: bin/relay spawned as an MCP server against `relay serve` (devnet + relayer),
// driven by the MCP SDK's own client over stdio (the default bot) and over streamable HTTP (the
// `reviewed` bot, whose payments are held for the owner). Payments are read back from the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import { encodeFunctionData, parseAbi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { projectRoot } from "../../src/paths.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import { DEMO_BODY } from "../../src/x402/server.ts";
import { DEMO_PRICE_ATOMIC, X402_MERCHANT_INDEX } from "../../src/x402/devnet.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { startLiveRelay, type LiveRelay } from "./support/live.ts";

const TOOLS = ["destination_check", "execute", "fetch_paid", "pay", "rebalance_tokens", "request_status", "swap", "vault_balances", "vault_value"];

let live: LiveRelay;
let stdio: Client;
let stdioStderr = "";
let httpServer: SpawnedRelay;
let http: Client;

const newPayee = () => privateKeyToAccount(generatePrivateKey()).address;
const merchant = devKeyPair(X402_MERCHANT_INDEX).address;

type Structured = Record<string, unknown>;
async function call(client: Client, name: string, args: Record<string, unknown> = {}, options?: Parameters<Client["callTool"]>[2]) {
  const result = await client.callTool({ name, arguments: args }, undefined, options);
  const text = (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");
  return { isError: result.isError === true, structured: result.structuredContent as Structured, text };
}

beforeAll(async () => {
  live = await startLiveRelay("relay-cli-mcp-");
  const transport = new StdioClientTransport({
    command: path.join(projectRoot, "bin", "relay"),
    args: ["mcp", "--state-dir", live.stateDir],
    stderr: "pipe",
  });
  transport.stderr!.on("data", (d: Buffer) => (stdioStderr += d.toString()));
  stdio = new Client({ name: "relay-test", version: "1.0.0" });
  await stdio.connect(transport);

  httpServer = spawnRelay(["mcp", "--bot", "reviewed", "--http", "0", "--state-dir", live.stateDir]);
  await httpServer.waitFor(/relay: mcp ready on http:\/\/127\.0\.0\.1:\d+\/mcp/);
  const url = /relay: mcp ready on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(httpServer.output.stderr)![1]!;
  http = new Client({ name: "relay-test", version: "1.0.0" });
  await http.connect(new StreamableHTTPClientTransport(new URL(url)));
}, 240_000);

afterAll(async () => {
  await stdio?.close();
  await http?.close();
  if (httpServer !== undefined && httpServer.child.exitCode === null) {
    httpServer.child.kill("SIGTERM");
    expect(await httpServer.exited).toEqual({ code: 0, signal: null });
  }
  await live?.stop();
});

describe("relay mcp over stdio (the default bot)", () => {
  it("lists the tools, each with a JSON-schema input; pay's says a call without idempotencyKey is a new payment", async () => {
    const { tools } = await stdio.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const pay = tools.find((t) => t.name === "pay")!;
    expect(pay.inputSchema).toMatchObject({ type: "object", required: ["to", "amount", "token"] });
    expect(Object.keys(pay.inputSchema.properties ?? {}).sort()).toEqual(["amount", "idempotencyKey", "memo", "to", "token"]);
    expect(pay.description).toMatch(/Without `idempotencyKey` each call is a new payment/);
  });

  it("pays 2.5 USDC: approved, with its transaction, and the recipient holds it on-chain", async () => {
    const to = newPayee();
    const paid = await call(stdio, "pay", { to, amount: "2.5", token: "USDC", memo: "invoice 7" });
    expect(paid.isError).toBe(false);
    expect(paid.structured).toEqual({ status: "approved", requestId: expect.stringMatching(/^req_/), txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(paid.text).toMatch(/^Payment 2\.5 USDC to 0x[0-9a-fA-F]{40} \(req_\S+\) was approved and executed in transaction 0x[0-9a-f]{64}\.$/);
    expect(await live.balanceOf("USDC", to)).toBe(2_500_000n);

    const status = await call(stdio, "request_status", { requestId: paid.structured.requestId });
    expect(status.structured).toEqual(paid.structured);
  });

  it("a call retried with the same idempotencyKey pays once; the same text is the same request", async () => {
    const to = newPayee();
    const args = { to, amount: "1", token: "USDC", idempotencyKey: `order ${to}` };
    const first = await call(stdio, "pay", args);
    const again = await call(stdio, "pay", args);
    expect(first.structured).toMatchObject({ status: "approved" });
    expect(again.structured).toEqual(first.structured);
    expect(await live.balanceOf("USDC", to)).toBe(1_000_000n);

    // A new server (the agent app restarted it) derives the same key from the same text and re-sends
    // the body it kept in the state directory: the same answer, nothing paid again.
    const restarted = new Client({ name: "relay-test", version: "1.0.0" });
    await restarted.connect(new StdioClientTransport({ command: path.join(projectRoot, "bin", "relay"), args: ["mcp", "--state-dir", live.stateDir], stderr: "ignore" }));
    try {
      expect((await call(restarted, "pay", args)).structured).toEqual(first.structured);
      // The same text with other arguments is another request under the same key: refused.
      const changed = await call(restarted, "pay", { ...args, amount: "2" });
      expect(changed).toMatchObject({ isError: true, structured: { code: "IDEMPOTENCY_CONFLICT", retryable: false } });
    } finally {
      await restarted.close();
    }
    expect(await live.balanceOf("USDC", to)).toBe(1_000_000n);

    // Without a key, the same arguments are a new payment each time.
    const twice = newPayee();
    await call(stdio, "pay", { to: twice, amount: "1", token: "USDC" });
    await call(stdio, "pay", { to: twice, amount: "1", token: "USDC" });
    expect(await live.balanceOf("USDC", twice)).toBe(2_000_000n);
  });

  it("a payment over the per-tx cap is a tool error with SPEC.md's code, not retryable; nothing is paid", async () => {
    const to = newPayee();
    const refused = await call(stdio, "pay", { to, amount: "60000", token: "USDC" });
    expect(refused.isError).toBe(true);
    expect(refused.structured).toMatchObject({ code: "EXCEEDS_PER_TX_LIMIT", retryable: false });
    expect(refused.text).toMatch(/^Refused: EXCEEDS_PER_TX_LIMIT/);
    expect(await live.balanceOf("USDC", to)).toBe(0n);
  });

  it("an unknown token is a tool error naming it, before anything is signed", async () => {
    const refused = await call(stdio, "pay", { to: newPayee(), amount: "1", token: "NOPE" });
    expect(refused.isError).toBe(true);
    expect(refused.structured).toMatchObject({ code: "INVALID_REQUEST", retryable: false });
    expect(String(refused.structured.details)).toContain("NOPE");
  });

  it("fetch_paid buys the devnet's x402 demo at a max equal to its price, in funding mode and in vault mode: the body, the payment, the merchant paid on-chain", async () => {
    const before = await live.balanceOf("USDC", merchant);
    const bought = await call(stdio, "fetch_paid", { url: live.manifest.x402!.demoUrl, max: "0.01", mode: "funding" });
    expect(bought.isError).toBe(false);
    expect(bought.structured).toEqual({
      status: 200,
      contentType: "application/json",
      body: DEMO_BODY,
      payment: { requestId: expect.stringMatching(/^req_/), status: "approved", mode: "funding", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), settlementTx: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    expect(bought.text).toMatch(/answered 200; paid from the vault \(funding mode, request req_\S+, settled in 0x[0-9a-f]{64}\)\./);
    expect(await live.balanceOf("USDC", merchant)).toBe(before + BigInt(DEMO_PRICE_ATOMIC));

    // The default mode: the vault is the payer.
    const fromVault = await call(stdio, "fetch_paid", { url: live.manifest.x402!.demoUrl, max: "0.01" });
    expect(fromVault.structured).toMatchObject({ status: 200, body: DEMO_BODY, payment: { status: "approved", mode: "vault" } });
    expect(await live.balanceOf("USDC", merchant)).toBe(before + 2n * BigInt(DEMO_PRICE_ATOMIC));
  });

  it("fetch_paid refuses a price above max as a tool error before anything is signed; nothing is paid", async () => {
    const before = await live.balanceOf("USDC", merchant);
    const refused = await call(stdio, "fetch_paid", { url: live.manifest.x402!.demoUrl, max: "0.009" });
    expect(refused).toMatchObject({ isError: true, structured: { code: "X402_PRICE_ABOVE_MAX", retryable: false } });
    expect(await live.balanceOf("USDC", merchant)).toBe(before);
  });

  it("reads the vault: value, balances, rebalance whitelist, a destination check", async () => {
    const value = await call(stdio, "vault_value");
    expect(value.isError).toBe(false);
    expect(value.structured).toMatchObject({ vault: live.manifest.contracts.vault, chainId: live.manifest.chainId });
    expect(value.structured.totalValueUsd).toBeGreaterThan(0);
    expect(value.text).toMatch(/^The vault 0x[0-9a-fA-F]{40} is worth \$[\d.]+: /);

    const vault = live.manifest.contracts.vault as Address;
    const balances = await call(stdio, "vault_balances", { tokens: ["USDC"] });
    const onChain = await live.balanceOf("USDC", vault);
    expect(balances.structured).toEqual({ vault, balances: [{ token: "USDC", address: live.manifest.tokens.USDC!.address, balance: (Number(onChain) / 1e6).toString() }] });

    const rebalance = await call(stdio, "rebalance_tokens");
    expect(rebalance.isError).toBe(false);
    expect(Array.isArray(rebalance.structured.tokens)).toBe(true);

    const destination = await call(stdio, "destination_check", { to: newPayee() });
    expect(destination.structured).toMatchObject({ allowed: true });
  });

  it("swaps USDC for WETH in the vault: approved, the vault's balances move on-chain", async () => {
    const vault = live.manifest.contracts.vault as Address;
    const usdcBefore = await live.balanceOf("USDC", vault);
    const wethBefore = await live.balanceOf("WETH", vault);
    const swapped = await call(stdio, "swap", { fromToken: "USDC", maxFromAmount: "3000", toToken: "WETH", minToAmount: "0.9" });
    expect(swapped.structured).toEqual({ status: "approved", requestId: expect.stringMatching(/^req_/), txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await live.balanceOf("USDC", vault)).toBe(usdcBefore - 3_000_000_000n);
    expect((await live.balanceOf("WETH", vault)) - wethBefore).toBeGreaterThanOrEqual(900_000_000_000_000_000n);
  });

  it("executes a protocol call the owner approved: USDC supplied to the lending pool, read on-chain", async () => {
    expect((await live.relay(["owner", "protocol", "approve", "lending"])).code).toBe(0);
    const lending = live.manifest.contracts.lending as Address;
    const usdc = live.manifest.tokens.USDC!.address as Address;
    const calldata = encodeFunctionData({ abi: parseAbi(["function supply(address token, uint256 amount)"]), functionName: "supply", args: [usdc, 100_000_000n] });
    const poolBefore = await live.balanceOf("USDC", lending);
    const executed = await call(stdio, "execute", { protocol: lending, calldata, spend: [{ token: "USDC", amount: "100" }], protocolName: "lending pool" });
    expect(executed.structured).toEqual({ status: "approved", requestId: expect.stringMatching(/^req_/), txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await live.balanceOf("USDC", lending)).toBe(poolBefore + 100_000_000n);
  });

  it("offers the vault's policy for this bot as a resource", async () => {
    const { resources } = await stdio.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["relay://vault/policy"]);
    const read = await stdio.readResource({ uri: "relay://vault/policy" });
    const policy = JSON.parse((read.contents[0] as { text: string }).text) as Structured;
    expect(policy).toMatchObject({ vault: live.manifest.contracts.vault, bot: live.manifest.accounts.bots.default.address, botActive: true, limits: { requireHumanReview: false } });
  });

  it("writes nothing but the protocol on stdout, and never the bot key on stderr", () => {
    // Anything else on stdout would have broken the client's parsing above; stderr holds the ready line.
    expect(stdioStderr).toMatch(/^relay: mcp ready on stdio for bot 0x[0-9a-fA-F]{40}, vault 0x[0-9a-fA-F]{40} on chain \d+\n/);
    expect(stdioStderr.toLowerCase()).not.toContain(live.manifest.accounts.bots.default.privateKey.slice(2).toLowerCase());
  });
});

describe("relay mcp --http (the reviewed bot)", () => {
  it("lists the same tools", async () => {
    const { tools } = await http.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
  });

  it("a held payment: pending_review, its status stays pending_review while waiting; nothing paid yet", async () => {
    const to = newPayee();
    const held = await call(http, "pay", { to, amount: "1", token: "USDC", memo: "needs a look" });
    expect(held.isError).toBe(false);
    expect(held.structured).toEqual({ status: "pending_review", requestId: expect.stringMatching(/^req_/) });
    expect(held.text).toMatch(/is held for the owner's review; follow it with request_status\.$/);

    const status = await call(http, "request_status", { requestId: held.structured.requestId, wait: 1 });
    expect(status.structured).toEqual({ status: "pending_review", requestId: held.structured.requestId });
    expect(await live.balanceOf("USDC", to)).toBe(0n);
  });

  it("request_status with wait follows a held payment (each check reported as progress) until the owner approves it; then it is paid on-chain", async () => {
    const to = newPayee();
    const held = await call(http, "pay", { to, amount: "3", token: "USDC" });
    expect(held.structured).toMatchObject({ status: "pending_review" });
    const requestId = held.structured.requestId as string;
    const progress: string[] = [];
    const waiting = call(http, "request_status", { requestId, wait: 60 }, { onprogress: (p) => void progress.push(p.message ?? ""), resetTimeoutOnProgress: true });
    const approved = await live.relay(["review", "approve", requestId]);
    expect(approved.code).toBe(0);
    const resolved = await waiting;
    // Each check was reported to the call, which carried a progress token.
    expect(progress[0]).toBe(`${requestId} is pending_review`);
    expect(resolved.structured).toEqual({ status: "approved", requestId, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await live.balanceOf("USDC", to)).toBe(3_000_000n);
  });

  it("fetch_paid for the reviewed bot: a tool error X402_PAYMENT_HELD naming the held request; nothing is paid", async () => {
    const before = await live.balanceOf("USDC", merchant);
    const held = await call(http, "fetch_paid", { url: live.manifest.x402!.demoUrl, max: "0.01", mode: "funding" });
    expect(held).toMatchObject({ isError: true, structured: { code: "X402_PAYMENT_HELD", retryable: false } });
    expect(String(held.structured.details)).toMatch(/the payment req_\w+ is held for the owner's review/);
    // Waiting a second for an owner who does not decide: the same answer, after the wait.
    const waited = await call(http, "fetch_paid", { url: live.manifest.x402!.demoUrl, max: "0.01", wait: 1 });
    expect(waited).toMatchObject({ isError: true, structured: { code: "X402_PAYMENT_HELD", retryable: false } });
    expect(await live.balanceOf("USDC", merchant)).toBe(before);
  });

  it("refuses a request from a web page's origin (403), so a page the user visits cannot pay", async () => {
    const url = /relay: mcp ready on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(httpServer.output.stderr)![1]!;
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } } };
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", origin: "http://evil.example" },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(403);
  });

  it("reads the vault value and refuses over the cap with the code", async () => {
    expect((await call(http, "vault_value")).structured).toMatchObject({ vault: live.manifest.contracts.vault });
    const refused = await call(http, "pay", { to: newPayee(), amount: "60000", token: "USDC" });
    expect(refused).toMatchObject({ isError: true, structured: { code: "EXCEEDS_PER_TX_LIMIT", retryable: false } });
  });

  it("an unknown request id is a tool error NOT_FOUND", async () => {
    const missing = await call(http, "request_status", { requestId: "req_nothing" });
    expect(missing).toMatchObject({ isError: true, structured: { code: "NOT_FOUND", retryable: false } });
  });
});

describe("relay mcp with bad settings", () => {
  it("prints one relay: line on stderr and exits non-zero, nothing on stdout", async () => {
    const bad = spawnRelay(["mcp", "--bot-key", "0x1234", "--state-dir", live.stateDir]);
    const { code } = await bad.exited;
    expect(code).toBe(2);
    expect(bad.output.stdout).toBe("");
    expect(bad.output.stderr).toBe("relay: --bot-key must be a 32-byte hex private key\n");
  });
});
