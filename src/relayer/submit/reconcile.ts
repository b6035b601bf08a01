// Settling requests with the chain: at start-up (after a crash) and periodically for transactions
// whose broadcast was not confirmed. Nothing here ever signs a new transaction for an intent whose
// recorded transaction may still land: the newest recorded version is re-broadcast unchanged, and a
// request is given up only once its nonce is provably used by another transaction.
import { setTimeout as sleep } from "node:timers/promises";
import type { Hex, TransactionReceipt } from "viem";
import type { RequestRecord } from "../../ledger/index.ts";
import type { Store } from "../store.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import { outcomesFromReceipt } from "./submitter.ts";
import { storeAnswer } from "./responses.ts";
import { isTransportFailure } from "../rpc-errors.ts";
import { followRecorded, receiptOfAny, versionsOf } from "./stuck-watch.ts";
import { withRevertReason } from "./revert-reason.ts";

export interface ReconcileReport {
  approved: number;
  rejected: number;
  rebroadcast: number;
  pending: number;
  interrupted: number;
}

/**
 * Requests that were being checked or scanned when their process stopped never reached the chain
 * (a request is signed only from `received`/`scanning` by a compare-and-set, so one moved on here
 * can never be signed later): they become `rejected` (internally; no answer was ever given) and
 * their keys are freed, so a retry with the same key runs afresh. Run at start-up (the previous
 * run's requests) and, with several instances on one database, periodically for the requests of
 * instances whose heartbeat expired (store.listInterrupted): never a live process's.
 */
export async function settleInterrupted(store: Store): Promise<number> {
  // Keys claimed by a stopped process that never recorded their request: free, so a retry runs.
  let n = await store.releaseInterruptedClaims();
  for (const record of await store.listInterrupted()) {
    await store.transaction(async (tx) => {
      if (await tx.transition(record.id, ["received", "scanning"], "rejected", { reason: "not executed: interrupted by a relayer restart" })) {
        await tx.releaseIdempotency(record.kind, record.idempotencyKey);
        n++;
      }
    });
  }
  return n;
}

/**
 * One pass over the in-flight requests of `chains` last touched at least `minAgeMs` ago (those
 * younger are still being watched by their submitter), or of one relayer key only.
 */
export async function reconcileInFlight(store: Store, chains: ReadonlyMap<number, ChainRuntime>, minAgeMs = 0, only?: { chainId: number; signer: string }): Promise<ReconcileReport> {
  const report: ReconcileReport = { approved: 0, rejected: 0, rebroadcast: 0, pending: 0, interrupted: 0 };
  const byTx = new Map<string, RequestRecord[]>();
  for (const record of await store.listInFlight()) {
    if (!record.txHash || !chains.has(record.chainId) || record.updatedAt > store.now() - minAgeMs) continue;
    // `only`: one relayer key's requests (a lease taken over from an instance that stopped).
    if (only && (record.chainId !== only.chainId || record.signer?.toLowerCase() !== only.signer.toLowerCase())) continue;
    const key = `${record.chainId}:${record.txHash}`;
    byTx.set(key, [...(byTx.get(key) ?? []), record]);
  }
  for (const records of byTx.values()) {
    const first = records[0]!;
    const chain = chains.get(first.chainId)!;
    try {
      const result = await settleTransaction(store, chain, records);
      report[result] += records.length;
    } catch (error) {
      if (!isTransportFailure(error)) throw error;
      report.pending += records.length;
    }
  }
  return report;
}

async function settleTransaction(store: Store, chain: ChainRuntime, records: RequestRecord[]): Promise<"approved" | "rejected" | "rebroadcast" | "pending"> {
  // The recorded transaction and any fee-bump replacements of it: whichever mined is the execution.
  const standing = await followRecorded(store, chain, records[0]!);
  switch (standing.state) {
    case "mined":
      return settleMined(store, chain, records, standing.receipt);
    case "nonce-used":
      for (const record of records) await finish(store, record, { to: "rejected", reason: "not executed: the transaction was dropped and its nonce used by another transaction" });
      return "rejected";
    case "gap":
      await store.resetNonce(chain.chainId, records[0]!.signer!, standing.pending);
      for (const record of records) await finish(store, record, { to: "rejected", reason: "not executed: the chain no longer knows the transaction (was it reset?)" });
      return "rejected";
    case "rebroadcast":
      for (const record of records) await store.move(record.id, ["submitting"], "submitted");
      return "rebroadcast";
  }
}

/** Settles the requests carried by a mined transaction from its receipt (a reverted one with its reason). */
async function settleMined(store: Store, chain: ChainRuntime, records: readonly RequestRecord[], receipt: TransactionReceipt): Promise<"approved" | "rejected"> {
  const jobs = records.map((r) => ({ requestId: r.id, intentHash: r.intentHash as Hex, vault: r.vault as Hex, data: "0x" as Hex, gas: 0n }));
  const outcomes = await withRevertReason(chain, receipt, outcomesFromReceipt(receipt, jobs));
  for (const [i, record] of records.entries()) {
    const outcome = outcomes[i]!;
    await finish(store, record, outcome.ok === true ? { to: "approved", txHash: receipt.transactionHash } : { to: "rejected", reason: "reason" in outcome ? outcome.reason : "failed on-chain" });
  }
  return outcomes.every((o) => o.ok === true) ? "approved" : "rejected";
}

/**
 * Start-up, after the first pass: the transactions still in flight (re-broadcast, or not yet mined)
 * have no submitter watching them. Watch each one's receipt in the background and settle its
 * requests as soon as it is mined, so that a client retrying with the same key is answered then,
 * not on a later periodic pass. Stops at `timeoutMs` (the periodic pass takes over) or on `signal`.
 */
export async function watchInFlight(store: Store, chains: ReadonlyMap<number, ChainRuntime>, options: { timeoutMs: number; signal: AbortSignal; log: (line: string) => void }): Promise<void> {
  const byTx = new Map<string, RequestRecord[]>();
  for (const record of await store.listInFlight()) {
    if (!record.txHash || !chains.has(record.chainId)) continue;
    const key = `${record.chainId}:${record.txHash}`;
    byTx.set(key, [...(byTx.get(key) ?? []), record]);
  }
  for (const records of byTx.values()) {
    const chain = chains.get(records[0]!.chainId)!;
    settleWhenMined(store, chain, records, options).catch((error) => options.log(`watching ${records[0]!.txHash} failed: ${(error as Error).message}`));
  }
}

async function settleWhenMined(store: Store, chain: ChainRuntime, records: RequestRecord[], options: { timeoutMs: number; signal: AbortSignal }): Promise<void> {
  const until = Date.now() + options.timeoutMs;
  for (let wait = 20; Date.now() < until; wait = Math.min(wait * 2, 500)) {
    const versions = await versionsOf(store, records[0]!);
    const receipt = await receiptOfAny(chain, versions.map((v) => v.txHash)).catch(() => undefined);
    if (options.signal.aborted) return;
    if (receipt) {
      await settleMined(store, chain, records, receipt);
      return;
    }
    const slept = await sleep(wait, undefined, { signal: options.signal }).then(() => true, () => false);
    if (!slept) return;
  }
}

/** Moves a request to its final state and completes its idempotency key with the answer. */
async function finish(store: Store, record: RequestRecord, end: { to: "approved"; txHash: Hex } | { to: "rejected"; reason: string }): Promise<void> {
  await store.transaction(async (tx) => {
    const updated = end.to === "approved"
      ? await tx.transition(record.id, ["submitting", "submitted"], "approved", { txHash: end.txHash })
      : await tx.transition(record.id, ["submitting", "submitted"], "rejected", { reason: end.reason });
    if (updated) await storeAnswer(tx, updated);
  });
}
