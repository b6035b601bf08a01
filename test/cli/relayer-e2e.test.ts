// The bot commands end to end against `relay serve` (devnet + relayer in-process): pay on the fast
// path and on the review path, status with and without --wait, refusals, vault reads, and a
// `relay sign` body POSTed by hand.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const stateDir = tempDir("relay-cli-e2e-");
const RECIPIENT = "0x00000000000000000000000000000000000000cc" as Address;
let serve: InProcessRun;
let manifest: Manifest;

async function relay(args: string[]) {
  const run = runMain([...args, "--state-dir", stateDir]);
  const code = await run.done;
  return { code, stdout: run.output.stdout, stderr: run.output.stderr };
}

beforeAll(async () => {
  serve = runMain(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
  await serve.waitFor(/relay: ready/);
  manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
});
afterAll(async () => {
  serve?.stop();
  await serve?.done;
});

const usdcBalance = (holder: Address) =>
  clientsFor(manifest.rpcUrl, manifest.chainId).publicClient.readContract({
    address: manifest.tokens.USDC!.address as Address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [holder],
  });

describe("relay pay", () => {
  it("fast path: approved with a txHash, exit 0, and the recipient is paid", async () => {
    const before = await usdcBalance(RECIPIENT);
    const { code, stdout } = await relay(["pay", "--to", RECIPIENT, "--amount", "5", "--token", "USDC", "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { status: string; txHash: string; requestId: string };
    expect(result).toMatchObject({ status: "approved" });
    expect(result.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await usdcBalance(RECIPIENT)).toBe(before + 5_000_000n);
    const status = await relay(["status", result.requestId, "--json"]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ requestId: result.requestId, status: "approved", txHash: result.txHash });
  });

  it("reviewed bot: pending_review, exit 4; status without an id shows it; --wait times out with exit 4", async () => {
    const held = await relay(["pay", "--bot", "reviewed", "--to", RECIPIENT, "--amount", "1", "--token", "USDC", "--memo", "needs a look"]);
    expect(held.code).toBe(4);
    expect(held.stdout).toMatch(/^status +pending_review\n/m);
    expect(held.stderr).toMatch(/held for review; follow it with `relay status \S+ --wait`/);
    const requestId = /requestId +(\S+)/.exec(held.stdout)![1]!;

    const latest = await relay(["status", "--json"]);
    expect(latest.code).toBe(4);
    expect(JSON.parse(latest.stdout)).toMatchObject({ requestId, status: "pending_review" });

    const waited = await relay(["status", requestId, "--wait", "--timeout", "1"]);
    expect(waited.code).toBe(4);
    expect(waited.stdout).toBe("");
    expect(waited.stderr.trim().split("\n").at(-1)).toBe(`relay: payment ${requestId} is still pending review; check later with \`relay status ${requestId}\``);
  });

  it("a refused request exits 3 with the relayer's code on one line", async () => {
    const { code, stdout, stderr } = await relay(["pay", "--to", RECIPIENT, "--amount", "60000", "--token", "USDC"]);
    expect(code).toBe(3);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^relay: relayer refused: EXCEEDS_PER_TX_LIMIT: .*\n$/);
  });
});

describe("relay sign, then POST the body by hand", () => {
  it("is accepted by the relayer", async () => {
    const signed = await relay(["sign", "payment", "--to", RECIPIENT, "--amount", "0.5", "--token", "USDC"]);
    expect(signed.code).toBe(0);
    const res = await fetch(`${manifest.relayerUrl}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: signed.stdout });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "approved" });
  });
});

describe("relay vault", () => {
  it("reads value, balance, info, bot, destination, protocol and the rebalance whitelist", async () => {
    const value = await relay(["vault", "value", "--json"]);
    expect(value.code).toBe(0);
    expect(JSON.parse(value.stdout)).toMatchObject({ vault: manifest.contracts.vault, chainId: manifest.chainId });
    const balance = await relay(["vault", "balance", "WBTC"]);
    expect(balance).toMatchObject({ code: 0, stdout: "10 WBTC\n" });
    const info = await relay(["vault", "info", "--json"]);
    expect(JSON.parse(info.stdout)).toMatchObject({ owner: manifest.accounts.owner.address, paused: false });
    expect((await relay(["vault", "bot", "reviewed"])).stdout).toMatch(/isActive +true/);
    expect((await relay(["vault", "destination", RECIPIENT])).stdout).toMatch(/allowed +true/);
    expect((await relay(["vault", "protocol", "marketplace"])).stdout).toMatch(/approved +false/);
    const rebalance = await relay(["vault", "rebalance-tokens", "--json"]);
    expect(JSON.parse(rebalance.stdout)).toMatchObject({ source: "default", rebalanceTokenCount: 0 });
    expect((await relay(["vault", "rebalance-token", "WETH"])).stdout).toMatch(/allowed +true/);
  });

  it("prints every read as one line of JSON with --json", async () => {
    const read = async (args: string[]) => {
      const { code, stdout } = await relay(["vault", ...args, "--json"]);
      expect(code).toBe(0);
      expect(stdout.endsWith("\n") && !stdout.trimEnd().includes("\n")).toBe(true);
      return JSON.parse(stdout) as unknown;
    };
    const bots = manifest.accounts.bots;
    expect(await read(["balance", "WBTC"])).toEqual({ balance: "1000000000", token: manifest.tokens.WBTC!.address, decimals: 8 });
    expect(await read(["bot"])).toEqual({ bot: bots.default.address, isActive: true });
    expect(await read(["bot", "--bot", "reviewed"])).toEqual({ bot: bots.reviewed.address, isActive: true });
    expect(await read(["destination", RECIPIENT, "--for-bot", "reviewed"])).toMatchObject({ allowed: true });
    expect(await read(["protocol", "lending"])).toEqual({ approved: false });
    expect(await read(["rebalance-token", "DAI"])).toEqual({ allowed: false, source: "default" });
    const value = (await read(["value"])) as { totalValueUsd: number; tokens: Array<{ symbol: string }> };
    expect(value.totalValueUsd).toBeGreaterThan(0);
    expect(value.tokens.map((t) => t.symbol)).toEqual(expect.arrayContaining(["USDC", "USDT", "DAI", "WETH", "WBTC"]));
  });
});
