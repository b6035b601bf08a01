// Several instances sharing one relayer key: the instance holding the key's lease keeps it while
// it lives (renewed, key-lease.ts), so the lease does not pass back and forth between instances
// with work, and only that instance signs with the key. Another instance with a job for the key
// hands it over: the job goes into the database's signing queue (PostgresSigningQueue), the holder
// takes it into its own submitter's queue (signed, recorded and broadcast in nonce order with its
// own jobs, batched with them when it can), and the instance that queued it watches the request in
// the store until its transaction is recorded, then the receipt, as it would its own.
//
// Crashes: a job the holder took but never recorded (the holder died) is queued again by its
// instance; the request can be recorded for the chain only once (a compare-and-set from its
// waiting state, under the key's lease token), so a job queued twice is signed once. When the
// holder dies, its lease expires and an instance with jobs waiting takes it over (reconciling the
// key's in-flight requests first), then signs the queued jobs.
import { setTimeout as sleep } from "node:timers/promises";
import type { Hex, TransactionReceipt } from "viem";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import { LeaseLostError, type KeyLeaseGate } from "./key-lease.ts";
import { withRevertReason } from "./revert-reason.ts";
import type { Store } from "../store.ts";
import { hashesOf, receiptOfAny } from "./stuck-watch.ts";
import { outcomesFromReceipt, type Submitter } from "./submitter.ts";
import type { Job, JobOutcome } from "./job.ts";

/** The jobs handed to the holder of each relayer key (PostgresSigningQueue). */
export interface SigningQueue {
  put(chainId: number, signer: string, job: Job): Promise<void>;
  /** Takes up to `limit` of the key's jobs, oldest first, removing them; only those whose request still waits to be signed. */
  take(chainId: number, signer: string, limit: number): Promise<Job[]>;
  has(requestId: string): Promise<boolean>;
  remove(requestId: string): Promise<void>;
}

/** One relayer key of this instance: its chain, its submitter, its lease. */
export interface HandoffKey {
  chain: ChainRuntime;
  submitter: Submitter;
  lease: KeyLeaseGate;
}

/** How often the holder looks for handed-over jobs. */
const TAKE_EVERY_MS = 20;
/** A handed-over job not recorded this long after it left the queue is queued again (its taker died). */
const REQUEUE_AFTER_MS = 5_000;
/** How often an instance with handed-over jobs waiting tries to take a lease that is free or expired. */
const TRY_LEASE_EVERY_MS = 500;

export class Handoff {
  readonly #queue: SigningQueue;
  readonly #store: Store;
  readonly #keys: readonly HandoffKey[];
  readonly #timeoutMs: number;
  /** Handed-over jobs in this instance's submitters, by request id (a job queued twice is taken once). */
  readonly #taken = new Set<string>();
  /** Jobs this instance handed over and still waits for, per key. */
  readonly #waiting = new Map<HandoffKey, number>();
  readonly #timer: ReturnType<typeof setInterval>;
  #lastLeaseTry = 0;
  #taking = false;

  /** `timeoutMs`: longest wait for a handed-over job's transaction to be recorded. */
  constructor(queue: SigningQueue, store: Store, keys: readonly HandoffKey[], timeoutMs: number) {
    this.#queue = queue;
    this.#store = store;
    this.#keys = keys;
    this.#timeoutMs = timeoutMs;
    this.#timer = setInterval(() => void this.#takeJobs(), TAKE_EVERY_MS);
    this.#timer.unref();
  }

  /** Submits `job` with `key`: here if this instance holds (or can take) the key's lease, else through its holder. */
  async submit(key: HandoffKey, job: Job): Promise<JobOutcome> {
    if ((await key.lease.tryHold()) !== undefined) {
      try {
        return await key.submitter.submit(job);
      } catch (error) {
        // The lease moved before the job was recorded: its new holder signs it.
        if (!(error instanceof LeaseLostError)) throw error;
      }
    }
    this.#waiting.set(key, (this.#waiting.get(key) ?? 0) + 1);
    try {
      return await this.#handOver(key, job);
    } finally {
      this.#waiting.set(key, (this.#waiting.get(key) ?? 1) - 1);
    }
  }

  close(): void {
    clearInterval(this.#timer);
  }

  async #handOver(key: HandoffKey, job: Job): Promise<JobOutcome> {
    const { chain, submitter } = key;
    await this.#queue.put(chain.chainId, submitter.address, job);
    let queuedAt = Date.now();
    const until = Date.now() + this.#timeoutMs;
    for (let pauseMs = 10; ; pauseMs = Math.min(2 * pauseMs, 200)) {
      const record = await this.#store.getRequest(job.requestId);
      if (!record) throw new Error(`request ${job.requestId} vanished from the store`);
      if (record.status === "rejected") return { ok: false, ...(record.txHash ? { txHash: record.txHash as Hex } : {}), reason: record.reason ?? "rejected" };
      if (record.txHash && (record.status === "submitting" || record.status === "submitted" || record.status === "approved")) {
        return this.#outcome(chain, job, record.txHash as Hex, until);
      }
      if (Date.now() > until) {
        await this.#queue.remove(job.requestId);
        throw new Error(`no instance signed request ${job.requestId}: the holder of relayer key ${submitter.address} did not take it`);
      }
      if (Date.now() - queuedAt > REQUEUE_AFTER_MS && !(await this.#queue.has(job.requestId))) {
        // Taken but never recorded: its taker died. Queue it again (it can be recorded only once).
        await this.#queue.put(chain.chainId, submitter.address, job);
        queuedAt = Date.now();
      }
      await sleep(pauseMs);
    }
  }

  /** The job's outcome once its transaction (or a fee-bump replacement of it) is mined. */
  async #outcome(chain: ChainRuntime, job: Job, txHash: Hex, until: number): Promise<JobOutcome> {
    for (;;) {
      // As waitForAnyReceipt does: the head read before looking, then the next block wakes the wait.
      const seen = chain.blocks.latest;
      const record = await this.#store.getRequest(job.requestId);
      if (record?.status === "rejected" && !record.txHash) return { ok: false, reason: record.reason ?? "rejected" };
      // Re-signed by the holder (a nonce used meanwhile): follow the recorded transaction.
      const current = (record?.txHash as Hex | undefined) ?? txHash;
      const receipt: TransactionReceipt | undefined = await hashesOf(this.#store, current)
        .then((hashes) => receiptOfAny(chain, hashes))
        .catch(() => undefined);
      if (receipt) return (await withRevertReason(chain, receipt, outcomesFromReceipt(receipt, [job])))[0]!;
      const left = until - Date.now();
      if (left <= 0) return { ok: "unknown", txHash: current };
      // At least twice a second, to see the holder re-sign or reject it without a new block.
      await chain.blocks.after(seen, Math.min(left, 500));
    }
  }

  /** The holder's side: take the jobs handed over for the keys this instance holds into their submitters. */
  async #takeJobs(): Promise<void> {
    if (this.#taking) return;
    this.#taking = true;
    try {
      for (const key of this.#keys) {
        if (!key.lease.held) {
          // Jobs of ours wait for a holder that may be gone: take the lease once it is free or expired.
          if ((this.#waiting.get(key) ?? 0) > 0 && Date.now() - this.#lastLeaseTry > TRY_LEASE_EVERY_MS) {
            this.#lastLeaseTry = Date.now();
            await key.lease.tryHold();
          }
          if (!key.lease.held) continue;
        }
        const jobs = await this.#queue.take(key.chain.chainId, key.submitter.address, 256);
        for (const job of jobs) {
          if (this.#taken.has(job.requestId)) continue;
          this.#taken.add(job.requestId);
          // The instance that handed it over settles it from the store; here it is only sent.
          void key.submitter
            .submit(job)
            // The lease moved on before it was recorded: back into the queue, for the new holder.
            .catch((error) => (error instanceof LeaseLostError ? this.#queue.put(key.chain.chainId, key.submitter.address, job) : undefined))
            .catch(() => {})
            .finally(() => this.#taken.delete(job.requestId));
        }
      }
    } catch {
      // The database or the chain did not answer: the next tick tries again.
    } finally {
      this.#taking = false;
    }
  }
}
