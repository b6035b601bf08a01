// The load run's figures and verdict: latency percentiles, rates, the count of every status and
// error code, the retries' comparison, settling, and the invariant check; as an object (--json)
// and as the printed text.
import type { DriveResult } from "./drive.ts";
import { labelOf, type Answer } from "./http.ts";
import type { InvariantReport } from "./invariants.ts";
import type { LoadOptions } from "./run.ts";
import { retryVerdict, type SettleResult } from "./settle.ts";
import type { Failover } from "./failover.ts";

export interface LoadReport {
  options: Omit<LoadOptions, "log">;
  sent: number;
  /** Intents due while the in-flight cap was reached. */
  notSent: number;
  sendingSeconds: number;
  /** New intents sent per second of sending. */
  achievedRate: number;
  /** First answers per second, from the first send until the last answer. */
  answeredRate: number;
  /** First sends, from the moment each was due to its answer. */
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  /** First sends' answers by `<http status> <status or code>`. */
  counts: Record<string, number>;
  retries: { planned: number; sent: number; notSent: number; identical: number; mismatches: number; afterRetryable: number; neverReached: number; counts: Record<string, number> };
  settle: { resent: number; unresolved: number; statusChecked: number; statusMismatches: number; examples: string[] };
  /** Every request's final answer after settling. */
  final: Record<string, number>;
  invariants: InvariantReport;
  /**
   * Requests whose final answer is not `approved`. Every intent the load sends is valid (a fresh
   * deadline, limits far above what the run spends, funded vaults), so each of these is a failure.
   */
  notApproved: number;
  /** Invariants hold, every retry got its answer, every request settled and was approved, every status agreed. */
  ok: boolean;
  /** With killOneAfterSeconds: the lease holder killed, its requests in flight, the takeover, and what became of them. */
  failover?: Failover;
}

export function buildReport(options: LoadOptions, driven: DriveResult, settled: SettleResult, invariants: InvariantReport): LoadReport {
  const { log: _log, ...shown } = options;
  const originals = driven.sends.map((s) => s.original).filter((a): a is Answer => a !== undefined);
  const retried = driven.sends.filter((s) => s.retry);
  const verdicts = driven.sends.map(retryVerdict);
  const latencies = originals.filter((a) => a.httpStatus !== 0).map((a) => a.latencyMs).sort((a, b) => a - b);
  const retries = {
    planned: driven.sends.filter((s) => s.retryPlanned).length,
    sent: retried.length,
    notSent: driven.sends.filter((s) => s.retryNotSent).length,
    identical: verdicts.filter((v) => v === "identical").length,
    mismatches: verdicts.filter((v) => v === "mismatch").length,
    afterRetryable: verdicts.filter((v) => v === "after-retryable").length,
    /** Retries no relayer answered (the proxy's 502 from a killed instance, or no connection). */
    neverReached: verdicts.filter((v) => v === "never-reached").length,
    counts: countLabels(retried.map((s) => s.retry!)),
  };
  const settle = {
    resent: settled.resent,
    unresolved: settled.unresolved,
    statusChecked: settled.statusChecked,
    statusMismatches: settled.statusMismatches,
    examples: settled.examples,
  };
  const final = countLabels(settled.settled.map((s) => s.final).filter((a): a is Answer => a !== undefined));
  if (settled.unresolved > 0) final["unresolved"] = settled.unresolved;
  const notApproved = Object.entries(final).reduce((n, [label, count]) => (label === "200 approved" ? n : n + count), 0);
  return {
    options: shown,
    sent: driven.sends.length,
    notSent: driven.notSent,
    sendingSeconds: driven.sendingSeconds,
    achievedRate: driven.sends.length / Math.max(driven.sendingSeconds, 1e-9),
    answeredRate: originals.length / Math.max(driven.totalSeconds, 1e-9),
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), max: latencies.at(-1) ?? 0 },
    counts: countLabels(originals),
    retries,
    settle,
    final,
    invariants,
    notApproved,
    ok: invariants.ok && retries.mismatches === 0 && settle.unresolved === 0 && settle.statusMismatches === 0 && notApproved === 0,
  };
}

/** Nearest-rank percentile of sorted values (0 when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function countLabels(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[labelOf(a)] = (counts[labelOf(a)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

export function formatReport(r: LoadReport): string {
  const o = r.options;
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const counts = (c: Record<string, number>) => Object.entries(c).map(([label, n]) => `    ${label}: ${n}`).join("\n") || "    (none)";
  const inv = r.invariants;
  const n = inv.nonces;
  const lines = [
    `load: ${o.rate} intents/s for ${o.durationSeconds} s, ${o.bots} bots over ${o.vaults} vaults, ${(o.retryFraction * 100).toFixed(0)}% same-key retries, relayer ${(o.instances ?? 1) > 1 || o.databaseUrl ? `as ${o.instances ?? 1} relay serve --database-url behind nginx` : o.inProcess ? "in process" : "as relay serve --rpc-url"}`,
    `sent: ${r.sent} intents in ${r.sendingSeconds.toFixed(1)} s = ${r.achievedRate.toFixed(1)}/s (target ${o.rate}/s); not sent (in-flight cap ${o.maxInFlight}): ${r.notSent}`,
    `answered: ${r.answeredRate.toFixed(1)}/s over the whole run`,
    `latency (due → answer): p50 ${ms(r.latencyMs.p50)}  p95 ${ms(r.latencyMs.p95)}  p99 ${ms(r.latencyMs.p99)}  max ${ms(r.latencyMs.max)}`,
    `first answers:\n${counts(r.counts)}`,
    `retries (same key and body): ${r.retries.sent} sent, ${r.retries.identical} identical, ${r.retries.mismatches} mismatched, ${r.retries.afterRetryable} after a retryable answer, ${r.retries.neverReached} never reached a relayer (proxy 502 or no connection), ${r.retries.notSent} not sent`,
    `retry answers:\n${counts(r.retries.counts)}`,
    `settling: ${r.settle.resent} same-key re-sends, ${r.settle.unresolved} unresolved; GET status read back ${r.settle.statusChecked}, ${r.settle.statusMismatches} disagreeing`,
    `final answers:\n${counts(r.final)}`,
    `chain: blocks ${inv.blocks.from}..${inv.blocks.to}, ${inv.events} PaymentExecuted events, ${inv.approved} approved requests; relayer nonces ${n.start}..${n.start + n.transactions - 1} (${n.transactions} transactions), chain nonce ${n.chainNonce}`,
    `invariants: ${r.ok ? "OK" : "FAILED"} lost=${inv.lost} duplicated=${inv.duplicated} orphans=${inv.orphans} mismatched=${inv.mismatched} nonce-gaps=${n.gaps} nonce-repeats=${n.repeats} retry-mismatches=${r.retries.mismatches} unresolved=${r.settle.unresolved} status-mismatches=${r.settle.statusMismatches} not-approved=${r.notApproved}`,
    ...(r.failover ? failoverLines(r.failover) : []),
    ...[...inv.examples, ...r.settle.examples].map((line) => `  ${line}`),
  ];
  return `${lines.join("\n")}\n`;
}

function failoverLines(f: Failover): string[] {
  const statuses = Object.entries(f.inFlightByStatus).map(([status, n]) => `${n} ${status}`).join(", ") || "none";
  return [
    `failover: kill -9 of pid ${f.killedPid}, ${f.heldKey ? "holding" : "NOT holding"} the relayer key's lease, with ${f.inFlightAtKill} of its requests in flight (${statuses})`,
    `failover: the key's lease taken over by ${f.takenOverBy === undefined ? "nobody" : `pid ${f.takenOverBy}`} ${f.takeoverMs.toFixed(0)} ms after the kill; the key signed again after ${f.signedAgainMs.toFixed(0)} ms`,
    `failover: of the ${f.inFlightAtKill} in flight, ${f.inFlightSettled} settled, ${f.inFlightExecutedOnce} executed exactly once on the chain`,
    ...f.problems.slice(0, 10).map((p) => `  failover: ${p}`),
  ];
}
