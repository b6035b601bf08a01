// Acceptance: kill -9 of one of three relayers — the one holding the relayer key's lease, at a
// moment it has requests in flight (bench/load/failover.ts) — in the middle of a stream of payments
// from many bots, through nginx, on one PostgreSQL ledger. Another instance takes the key over
// after the lease expires and settles what the victim left; each of those requests settles and its
// intent executes exactly once. Read from
// the chain afterwards (bench/load/invariants.ts): every approved payment executed exactly once
// (one PaymentExecuted per intent, in the transaction its answer named), no execution without its
// request, every same-key retry got the first answer byte for byte, every request — including those
// in flight on the dead instance — settled as approved, and the relayer key's nonces are contiguous
// with the chain's. The takeover time (kill until the key signs again) is printed for docs/several-relayers.md.
import { describe, expect, it } from "vitest";
import { runLoad } from "../../bench/load/run.ts";
import { formatReport } from "../../bench/load/report.ts";

describe("three relayers on PostgreSQL behind nginx, one killed with SIGKILL mid-stream", () => {
  it("every payment executes exactly once, retries get the same answer, the key is taken over and nonces stay contiguous", async () => {
    const report = await runLoad({
      durationSeconds: 16,
      rate: 10,
      bots: 24,
      vaults: 3,
      retryFraction: 0.25,
      maxInFlight: 500,
      instances: 3,
      // A short lease (and heartbeat), so that the takeover fits the test's time; the default is 10 s.
      leaseTtlMs: 3_000,
      killOneAfterSeconds: 6,
      log: (line) => process.stderr.write(`failover: ${line}\n`),
    });
    process.stderr.write(formatReport(report));
    const failover = report.failover!;
    expect(failover).toBeDefined();
    process.stderr.write(`takeover after kill -9: lease ${failover.takeoverMs.toFixed(0)} ms, signing again ${failover.signedAgainMs.toFixed(0)} ms\n`);
    // The victim held the key's lease and had requests in flight; another instance took the key over.
    expect(failover.heldKey).toBe(true);
    expect(failover.inFlightAtKill).toBeGreaterThan(0);
    expect(failover.takenOverBy).toBeDefined();
    expect(failover.takenOverBy).not.toBe(failover.killedPid);
    expect(Number.isFinite(failover.takeoverMs)).toBe(true);
    expect(Number.isFinite(failover.signedAgainMs)).toBe(true);
    // Each of the victim's in-flight requests settled, and its intent executed exactly once on the chain.
    expect(failover.problems).toEqual([]);
    expect(failover.inFlightSettled).toBe(failover.inFlightAtKill);
    expect(failover.inFlightExecutedOnce).toBe(failover.inFlightAtKill);
    const inv = report.invariants;
    expect(inv.examples).toEqual([]);
    expect({ lost: inv.lost, duplicated: inv.duplicated, orphans: inv.orphans, mismatched: inv.mismatched }).toEqual({ lost: 0, duplicated: 0, orphans: 0, mismatched: 0 });
    expect({ gaps: inv.nonces.gaps, repeats: inv.nonces.repeats }).toEqual({ gaps: 0, repeats: 0 });
    expect(inv.nonces.chainNonce).toBe(inv.nonces.start + inv.nonces.transactions);
    expect(report.retries.mismatches).toBe(0);
    // Every retry got the first answer, except those the killed instance was serving (the proxy's
    // 502: no relayer answered them, and settling re-sent them).
    expect(report.retries.identical + report.retries.afterRetryable + report.retries.neverReached).toBe(report.retries.sent);
    expect(report.retries.identical).toBeGreaterThan(0);
    expect(report.settle.unresolved).toBe(0);
    expect(report.settle.statusMismatches).toBe(0);
    expect(report.notApproved).toBe(0);
    expect(inv.approved).toBe(report.sent);
    expect(inv.events).toBe(report.sent);
    expect(report.ok).toBe(true);
  }, 300_000);
});
