// How `relay pay` retries, against a real `relay serve` (devnet + relayer): a retry is announced on
// stderr with its reason, the attempt, the wait and how long the call may still take; a devnet
// scenario that forces the same error every time (ai-timeout, rate-limited) is sent once rather than
// retried into the same answer; Ctrl-C while it waits ends it with 130; and a relayer that answers
// while the chain does not is exit 1, the chain's failure. The chain is read to see what moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { RelayApiError } from "../../packages/client/src/errors.ts";
import { retryLine } from "../../src/cli/commands/requests.ts";
import { forcedEveryTime } from "../../src/cli/commands/bot.ts";
import { spawnRelay } from "../helpers/cli.ts";
import { startLiveRelay, type LiveRelay } from "./support/live.ts";

let live: LiveRelay;

beforeAll(async () => {
  live = await startLiveRelay("relay-retries-");
}, 180_000);
afterAll(async () => {
  await live?.stop();
});

const vault = () => live.manifest.contracts.vault as Address;
const pay = (payee: Address, ...more: string[]) => live.relay(["pay", "--to", payee, "--amount", "1", "--token", "USDC", ...more]);

describe("a devnet scenario that forces the same error every time is sent once", () => {
  it("ai-timeout: 500 AI_VERIFICATION_TIMEOUT at once, exit 3, no retry, nothing moved", async () => {
    const payee = privateKeyToAddress(generatePrivateKey());
    const vaultBefore = await live.balanceOf("USDC", vault());
    const result = await pay(payee, "--scenario", "ai-timeout");
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    // One line: the refusal, no "retrying in 30-60 s" before it.
    expect(result.stderr).toMatch(/^relay: relayer refused: AI_VERIFICATION_TIMEOUT: .*forced by metadata\.scenario=ai-timeout.*\n$/);
    expect(await live.balanceOf("USDC", payee)).toBe(0n);
    expect(await live.balanceOf("USDC", vault())).toBe(vaultBefore);
  });

  it("rate-limited:5 (as --metadata): 429 RATE_LIMITED at once, exit 3, no 5 s wait, nothing moved", async () => {
    const payee = privateKeyToAddress(generatePrivateKey());
    const result = await pay(payee, "--metadata", "scenario=rate-limited:5");
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^relay: relayer refused: RATE_LIMITED: [^\n]*\n$/);
    expect(await live.balanceOf("USDC", payee)).toBe(0n);
  });
});

describe("a retry is announced", () => {
  it("rpc-error-once: one line with the reason, attempt 1 of 3 and the time left, then approved and paid", async () => {
    const payee = privateKeyToAddress(generatePrivateKey());
    const result = await pay(payee, "--scenario", "rpc-error-once", "--json");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^relay: RPC_ERROR: [^\n]*; attempt 1 of 3 failed, retrying in \d+\.\ds \(giving up within (\d+s|\dm\d\ds); Ctrl-C stops\)\n$/);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "approved" });
    expect(await live.balanceOf("USDC", payee)).toBe(1_000_000n);
  });

  it("the line for a long wait (an AI timeout on a real chain) reads in minutes and seconds", () => {
    const error = new RelayApiError({ status: 500, code: "AI_VERIFICATION_TIMEOUT", message: "Verification agents did not answer in time" });
    expect(retryLine({ attempt: 1, maxAttempts: 3, delayMs: 42_300, remainingMs: 149_000, error })).toBe(
      "AI_VERIFICATION_TIMEOUT: Verification agents did not answer in time; attempt 1 of 3 failed, retrying in 42s (giving up within 2m29s; Ctrl-C stops)",
    );
  });

  it("only the scenarios whose answer never changes skip retries", () => {
    expect(["ai-timeout", "rate-limited", "rate-limited:5"].map(forcedEveryTime)).toEqual([true, true, true]);
    expect(["rpc-error-once", "ai-approve", "review-approve:2", "rate-limited:x", undefined].map(forcedEveryTime)).toEqual([false, false, false, false, false]);
  });
});

describe("Ctrl-C while relay pay waits", () => {
  it("a held payment followed with --wait: SIGINT ends it with 130 and one line, the request stays held", async () => {
    const payee = privateKeyToAddress(generatePrivateKey());
    const waiting = spawnRelay(["pay", "--bot", "reviewed", "--to", payee, "--amount", "1", "--token", "USDC", "--wait", "--state-dir", live.stateDir]);
    await waiting.waitFor(/pending review; checking every/);
    waiting.child.kill("SIGINT");
    expect(await waiting.exited).toEqual({ code: 130, signal: null });
    expect(waiting.output.stderr.trim().split("\n").at(-1)).toBe("relay: interrupted (SIGINT)");
    const requestId = /^relay: payment (req_\w+) pending review/m.exec(waiting.output.stderr)?.[1];
    expect(requestId).toBeDefined();
    const status = await live.relay(["status", requestId!, "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({ status: "pending_review" });
    expect(await live.balanceOf("USDC", payee)).toBe(0n);
  }, 60_000);
});

describe("the relayer answers, the chain does not", () => {
  it("exit 1: the chain's failure, named with the flag that set it; nothing sent", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const closed = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await new Promise((resolve) => server.close(resolve));
    const payee = privateKeyToAddress(generatePrivateKey());
    const result = await pay(payee, "--rpc-url", closed);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`relay: cannot reach a JSON-RPC node at ${closed} (--rpc-url, RELAY_RPC_URL)\n`);
    expect(await live.balanceOf("USDC", payee)).toBe(0n);
  });
});
