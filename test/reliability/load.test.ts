// The load command's core, shortened: a devnet and `relay serve --rpc-url` as its own process,
// distinct signed payments at a fixed open-loop rate with same-key retries, then the invariant check
// on the chain. Also: the checker itself reports lost, orphaned and mismatched executions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { createSender } from "../../src/chain/sender.ts";
import { createFleet, type Fleet } from "../../bench/load/fleet.ts";
import { startEnvironment, type Environment } from "../../bench/load/environment.ts";
import { RequestFactory, type PreparedRequest } from "../../bench/load/intents.ts";
import { checkInvariants, type CheckedRequest } from "../../bench/load/invariants.ts";
import { runLoad } from "../../bench/load/run.ts";
import { retryVerdict } from "../../bench/load/settle.ts";
import type { Answer } from "../../bench/load/http.ts";

describe("npm run load, for 10 s at 50 intents/s", () => {
  it("executes every approved request exactly once, with contiguous nonces, and answers retries identically", async () => {
    const report = await runLoad({ durationSeconds: 10, rate: 50, bots: 10, vaults: 2, retryFraction: 0.1, maxInFlight: 2000 });

    expect(report.sent + report.notSent).toBe(500);
    expect(report.final).toEqual({ "200 approved": report.sent });
    expect(report.notApproved).toBe(0);
    expect(report.invariants).toMatchObject({ ok: true, lost: 0, duplicated: 0, orphans: 0, mismatched: 0, approved: report.sent, events: report.sent });
    const { nonces } = report.invariants;
    expect(nonces.transactions).toBeGreaterThan(0);
    expect(nonces).toMatchObject({ start: 0, gaps: 0, repeats: 0, chainNonce: nonces.transactions });
    expect(report.retries.sent).toBeGreaterThan(0);
    expect(report.retries.mismatches).toBe(0);
    expect(report.retries.identical + report.retries.afterRetryable).toBe(report.retries.sent);
    expect(report.settle).toMatchObject({ unresolved: 0, statusMismatches: 0, statusChecked: report.sent });
    expect(report.ok).toBe(true);
  }, 180_000);
});

describe("the invariant check", () => {
  let env: Environment;
  let fleet: Fleet;
  let executed: PreparedRequest;
  let executedTx: Hex;
  let neverSent: PreparedRequest;

  beforeAll(async () => {
    env = await startEnvironment();
    const m = env.devnet.manifest;
    const clients = clientsFor(env.devnet.chain.provider, m.chainId);
    fleet = await createFleet(clients, m, 1, 1);
    const factory = new RequestFactory(fleet);
    executed = factory.next();
    neverSent = factory.next();
    // One payment executed straight from the relayer key, outside any relayer.
    const signature = (JSON.parse(executed.body) as { signature: Hex }).signature;
    const receipt = await createSender(clients, m.accounts.relayer.privateKey as Hex).call(fleet.vaults[0]!.address, "ServiceVault", "executePayment", [executed.intent, signature]);
    executedTx = receipt.transactionHash;
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  const check = (requests: CheckedRequest[]) =>
    checkInvariants({
      provider: env.devnet.chain.provider,
      chainId: env.devnet.manifest.chainId,
      vaults: fleet.vaults.map((v) => v.address),
      relayer: env.devnet.manifest.accounts.relayer.address as Address,
      fromBlock: 0n,
      requests,
    });
  const approved = (r: PreparedRequest, tx: Hex): CheckedRequest => ({ intentHash: r.intentHash, intent: r.intent, approvedTx: tx });

  it("passes when the approved request has its one execution", async () => {
    const report = await check([approved(executed, executedTx), { intentHash: neverSent.intentHash, intent: neverSent.intent }]);
    expect(report).toMatchObject({ ok: true, approved: 1, events: 1, lost: 0, orphans: 0, mismatched: 0 });
    expect(report.nonces).toEqual({ start: 0, transactions: 1, chainNonce: 1, gaps: 0, repeats: 0 });
  });

  it("reports an execution without an approved request as an orphan", async () => {
    const report = await check([{ intentHash: executed.intentHash, intent: executed.intent }]);
    expect(report).toMatchObject({ ok: false, orphans: 1 });
  });

  it("reports an approved request without an execution as lost", async () => {
    const report = await check([approved(executed, executedTx), approved(neverSent, executedTx)]);
    expect(report).toMatchObject({ ok: false, lost: 1, orphans: 0 });
  });

  it("reports an execution in another transaction than the answer named as mismatched", async () => {
    const report = await check([approved(executed, `0x${"ab".repeat(32)}`)]);
    expect(report).toMatchObject({ ok: false, mismatched: 1 });
  });
});

describe("a retry's answer", () => {
  const answer = (httpStatus: number, text: string, code?: string): Answer => ({ httpStatus, text, code, latencyMs: 1 });
  const sent = (original: Answer, retry: Answer) => ({ request: {} as PreparedRequest, original, retry, retryPlanned: true, retryNotSent: false });

  it("must repeat a 200 byte for byte", () => {
    expect(retryVerdict(sent(answer(200, '{"status":"approved"}'), answer(200, '{"status":"approved"}')))).toBe("identical");
    expect(retryVerdict(sent(answer(200, '{"status":"approved"}'), answer(200, '{"status":"rejected"}')))).toBe("mismatch");
    expect(retryVerdict(sent(answer(200, '{"status":"approved"}'), answer(429, "{}", "RATE_LIMITED")))).toBe("mismatch");
  });

  it("must repeat a 4xx code, and may differ after a retryable answer", () => {
    expect(retryVerdict(sent(answer(422, "a", "INSUFFICIENT_BALANCE"), answer(422, "b", "INSUFFICIENT_BALANCE")))).toBe("identical");
    expect(retryVerdict(sent(answer(500, "{}", "RPC_ERROR"), answer(200, '{"status":"approved"}')))).toBe("after-retryable");
  });

  it("is not compared when no relayer gave it (the proxy's 502, no connection); a relayer's own 5xx is", () => {
    expect(retryVerdict(sent(answer(200, '{"status":"approved"}'), answer(502, "<html>Bad Gateway</html>", "HTTP_502")))).toBe("never-reached");
    expect(retryVerdict(sent(answer(200, '{"status":"approved"}'), answer(0, "", "TRANSPORT_ECONNRESET")))).toBe("never-reached");
    expect(retryVerdict(sent(answer(200, '{"status":"approved"}'), answer(503, "{}", "SERVICE_UNAVAILABLE")))).toBe("mismatch");
    expect(retryVerdict(sent(answer(200, '{"status":"approved"}'), answer(500, "{}", "INTERNAL_ERROR")))).toBe("mismatch");
  });
});
