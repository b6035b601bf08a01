// Sends the relayer's transactions: one queue per relayer key, so nonces are handed out strictly in
// order. Each transaction is signed, durably recorded in the ledger (nonce reserved, raw bytes
// kept), and only then broadcast; receipts are watched afterwards, so the next transaction never
// waits for the previous one to be mined. Fast-path payments of one vault that queue up while a
// transaction is being sent are coalesced into one `executePaymentBatch`.
//
// Nonce rules: a nonce is reserved only when the signed transaction is recorded (a failed
// signature or a refused estimate burns none); a node that says the nonce is already used gets the
// same requests re-signed with the chain's nonce (the old transaction can never land); a node that
// could not be reached leaves the transaction recorded as `submitting`, to be re-broadcast unchanged.
// Reserving a nonce (and re-signing onto another) runs one at a time, and what the relayer last
// handed the node only moves forward, so every nonce is broadcast, in order, and none twice.
//
// A transaction sent while nothing else waits in the queue goes by the node's synchronous send
// (`eth_sendRawTransactionSync`, EIP-7966: the node answers with the receipt once it is mined) where
// the node offers it, so a lone payment learns of its receipt as soon as a bot sending straight to
// the node would, with no look or block wake-up after. Whether the node has it is learnt on the first
// such send (a node without it refuses the method; the same bytes then go by eth_sendRawTransaction).
// A transaction queued behind a synchronous send waits only until the node knows the first one (its
// pool has it), not until it is mined: under load, transactions follow each other as fast as the
// node takes them.
//
// Payments on their way: the relayer tells the submitter of each fast-path payment whose signature it
// has checked (`onItsWay`), and of its arrival in the queue or its leaving the fast path. A group
// about to be taken first waits, up to `batchGatherMs` (config, 25 ms by default), for the payments
// of its vault already on their way then, so that a burst of payments read and recorded together
// shares one transaction. Without it, the first payment of a burst went alone and the rest followed
// in the next block: on anvil under load, half of the relayer's transactions carried one payment.
import { decodeEventLog, formatTransactionReceipt, getAbiItem, toEventSelector, type AbiEvent, type Address, type Hex, type TransactionReceipt } from "viem";
import type { PaymentRequest } from "../../api/validate.ts";
import type { Status } from "../../ledger/index.ts";
import type { Store } from "../store.ts";
import { relayError } from "../../errors.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import { batchCalldata, vaultAbi } from "../chain/intents.ts";
import { decodeRevert } from "../../chain/revert-decode.ts";
import { isMethodMissing, isSyncTimeout, isTransportFailure } from "../rpc-errors.ts";
import { faultPoint } from "../faults.ts";
import { withRevertReason } from "./revert-reason.ts";
import { requestIdsOf, type Job, type JobOutcome, type TransactionEvent } from "./job.ts";
import { transactionSigner } from "../../crypto/sign-transaction.ts";
import { keccak256Hex } from "../../crypto/keccak.ts";
import { hashesOf, waitForAnyReceipt } from "./stuck-watch.ts";
import { LeaseLostError, type KeyLeaseGate } from "./key-lease.ts";
import { timed, type OnStep } from "../steps.ts";

/** A transaction signed, recorded and made durable, ready to broadcast. */
interface Prepared {
  jobs: readonly Job[];
  ids: readonly string[];
  nonce: bigint;
  rawTx: Hex;
  txHash: Hex;
}

interface Queued {
  job: Job;
  resolve(outcome: JobOutcome): void;
  reject(error: unknown): void;
}

const BATCH_ITEM_GAS = 30_000n;

/** How often a transaction queued behind a synchronous send asks whether the node has the first one: at once, then after 1 ms, doubling to 50. */
const KNOWN_POLL_MS = 1;
const KNOWN_POLL_MAX_MS = 50;
/**
 * A transaction still waiting for its block after this long: its requests are marked submitted (once
 * the node has it, for a synchronous send), so that the stuck watch looks after them. One mined
 * sooner settles its requests straight from `submitting`, without that extra write.
 */
const MARK_SUBMITTED_AFTER_MS = 1_000;
/** After a synchronous send's wait ran out (the node's, or the relayer's RPC timeout): plain sends for this long. */
const SYNC_RETRY_MS = 60_000;
/**
 * Fees are never signed older than FEES_MAX_AGE_MS (from when their read began). Once they are
 * FEES_REFRESH_MS old, the next transaction signs with them and has them read again meanwhile, so
 * that under steady traffic no transaction waits for the node's fee answers (two calls).
 */
const FEES_REFRESH_MS = 500;
const FEES_MAX_AGE_MS = 1_000;

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** What became of a broadcast: the hash, whether the node took it, and the receipt if it came with the answer. */
interface Sent {
  txHash: Hex;
  broadcast: boolean;
  receipt?: TransactionReceipt;
}

/** The transaction last handed to the node: the next one is broadcast once the node has taken it. */
interface InFlight {
  /** Resolves once the node has taken the transaction (or refused it, or could not be reached). Never rejects. */
  accepted(): Promise<void>;
}

const NOTHING_IN_FLIGHT: InFlight = { accepted: async () => {} };

export class Submitter {
  readonly #chain: ChainRuntime;
  readonly #store: Store;
  readonly #signer: { readonly address: Address };
  readonly #sign: ReturnType<typeof transactionSigner>;
  readonly #maxBatch: number;
  readonly #gatherMs: number;
  readonly #queue: Queued[] = [];
  #pumping = false;
  /** Whether the node offers eth_sendRawTransactionSync: unknown until the first lone send. */
  #syncSend: "offered" | "missing" | undefined;
  /** No synchronous send before this time (ms): its last wait ran out. */
  #syncSendAfter = 0;
  #chainNonce: bigint | undefined;
  /** The nonce of the last transaction broadcast (or whose broadcast went unanswered). */
  #lastNonce: bigint | undefined;
  /** The nonce reservation under way (#serially). */
  #reserving: Promise<unknown> = Promise.resolve();
  #fees: (Fees & { at: number }) | undefined;
  /** The fee read under way, if any, and when it began (#feeData). */
  #feesReading: { at: number; fees: Promise<Fees> } | undefined;
  #onTransaction: (result: TransactionEvent) => void;
  readonly #onStep: OnStep | undefined;
  /** With several instances on one database: the key's lease, without which nothing is signed (key-lease.ts). */
  readonly #lease: KeyLeaseGate | undefined;
  readonly #handsOver: boolean;
  /** Per vault (lower-case): the fast-path payments on their way to the queue; one is marked `arrived` once queued or gone. */
  readonly #coming = new Map<string, Set<{ arrived: boolean }>>();
  /** Wakes the group waiting in #gather (one at a time: one pump per key). */
  #onArrival: (() => void) | undefined;
  /** Wakes a synchronous send's #taken idling while nothing waits to follow it: a job was queued, or the send turned late. */
  #nudge: (() => void) | undefined;

  constructor(
    chain: ChainRuntime,
    store: Store,
    signer: { readonly address: Address },
    privateKey: Hex,
    options: {
      maxBatch: number;
      /** Longest wait of a group for the payments of its vault on their way (config `batchGatherMs`; 0: none). */
      gatherMs: number;
      onTransaction?: (result: TransactionEvent) => void;
      /** Told how long each of a transaction's steps took (steps.ts: sign, durable, confirm). */
      onStep?: OnStep;
      lease?: KeyLeaseGate;
      /** With the lease: jobs this instance cannot sign go to the key's holder, so never wait for the lease here. */
      handsOver?: boolean;
    },
  ) {
    this.#chain = chain;
    this.#sign = transactionSigner(privateKey);
    this.#store = store;
    this.#signer = signer;
    this.#maxBatch = options.maxBatch;
    this.#gatherMs = options.gatherMs;
    this.#onTransaction = options.onTransaction ?? (() => {});
    this.#onStep = options.onStep;
    this.#lease = options.lease;
    this.#handsOver = options.handsOver ?? false;
  }

  get address(): Address {
    return this.#signer.address;
  }

  /** Queues a job; resolves once its transaction is mined (or is known to have failed). */
  submit(job: Job): Promise<JobOutcome> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      this.#nudge?.();
      void this.#pump();
    });
  }

  /**
   * A fast-path payment of `vault` is on its way here (checked, then recorded): a group of that vault
   * about to be taken waits for it (#gather). Returns what tells of its arrival in the queue, or of its
   * leaving the fast path; idempotent, and it must be called in either case.
   */
  onItsWay(vault: Address): () => void {
    const key = vault.toLowerCase();
    let coming = this.#coming.get(key);
    if (!coming) this.#coming.set(key, (coming = new Set()));
    const payment = { arrived: false };
    coming.add(payment);
    return () => {
      if (payment.arrived) return;
      payment.arrived = true;
      coming.delete(payment);
      if (coming.size === 0 && this.#coming.get(key) === coming) this.#coming.delete(key);
      this.#onArrival?.();
    };
  }

  /** Jobs waiting to be signed. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Sends the queue's jobs, one transaction at a time and in nonce order. The next group is taken
   * once the node has taken the transaction before it, so everything that queued meanwhile goes in
   * it: under load, fewer transactions, blocks and fsyncs per payment. (Signing and recording the
   * next group while the one before was being broadcast made batches a fifth smaller on anvil, and
   * cost both processes more CPU per payment than it saved in waiting.)
   */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    let inFlight = NOTHING_IN_FLIGHT;
    try {
      for (;;) {
        await inFlight.accepted();
        if (this.#queue.length === 0) break;
        await this.#gather();
        const group = this.#takeGroup();
        const jobs = group.map((q) => q.job);
        let prepared: Prepared;
        try {
          prepared = await this.#prepare(jobs);
        } catch (error) {
          if (group.length > 1 && /WRONG_STATE/.test((error as Error).message)) {
            // One request of the batch was recorded meanwhile elsewhere (a job handed over twice,
            // handoff.ts): send each on its own, so that only that one fails.
            this.#queue.unshift(...group.map((q) => ({ ...q, job: { ...q.job, payment: undefined } })));
            continue;
          }
          for (const q of group) q.reject(error);
          continue;
        }
        inFlight = this.#broadcastGroup(group, prepared);
      }
    } finally {
      this.#pumping = false;
      // The key's lease stays with this instance while it lives (other instances hand it their jobs, handoff.ts).
      if (this.#queue.length > 0) void this.#pump();
    }
  }

  /**
   * Before the next group is taken: when it is a payment, waits for the payments of its vault that are
   * on their way now (not for those that set out meanwhile), until they have all arrived or left the
   * fast path, the group is full, or `gatherMs` passed. A lone payment has nobody to wait for.
   */
  async #gather(): Promise<void> {
    const first = this.#queue[0]!.job;
    if (!first.payment || this.#maxBatch === 1 || this.#gatherMs === 0) return;
    const vault = first.vault.toLowerCase();
    const coming = this.#coming.get(vault);
    if (!coming) return;
    const awaited = [...coming];
    const deadline = Date.now() + this.#gatherMs;
    const full = () => this.#queue.filter((q) => joins(q.job, first)).length >= this.#maxBatch;
    const waiting = () => awaited.some((payment) => !payment.arrived) && !full();
    while (waiting()) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, left);
        function wake() {
          clearTimeout(timer);
          resolve();
        }
        this.#onArrival = wake;
      });
      this.#onArrival = undefined;
    }
  }

  /** The next job, plus the fast-path payments of the same vault queued behind it (up to maxBatch). */
  #takeGroup(): Queued[] {
    const first = this.#queue.shift()!;
    if (!first.job.payment || this.#maxBatch === 1) return [first];
    const group = [first];
    for (let i = 0; i < this.#queue.length && group.length < this.#maxBatch; ) {
      const q = this.#queue[i]!;
      if (joins(q.job, first.job)) {
        group.push(q);
        this.#queue.splice(i, 1);
      } else i++;
    }
    return group;
  }

  /**
   * Signs the transaction carrying `jobs` with the next nonce, records it (nonce reserved, raw bytes
   * kept) and makes the record durable: a group fsync of the ledger's log, off the main thread.
   * `from`: the states the requests may be in (re-signing a recorded, never-broadcast transaction);
   * `resetTo`: the key's next nonce is set to it first (re-signing onto another nonce).
   */
  async #prepare(jobs: readonly Job[], from?: Status[], resetTo?: bigint): Promise<Prepared> {
    const data = jobs.length === 1 ? jobs[0]!.data : batchCalldata(jobs.map((j) => j.payment!));
    const gas = jobs.length === 1 ? jobs[0]!.gas : jobs.reduce((sum, j) => sum + j.gas + BATCH_ITEM_GAS, 50_000n);
    const prepared = await timed(this.#onStep, "sign", async () => {
      const fees = await this.#feeData();
      return this.#serially(async () => {
        if (resetTo !== undefined) await this.#store.resetNonce(this.#chain.chainId, this.address, resetTo);
        return this.#reserve(jobs, data, gas, fees, from);
      });
    });
    await timed(this.#onStep, "durable", () => this.#store.sync());
    faultPoint("after-record");
    return prepared;
  }

  /**
   * Runs `step` once no other nonce reservation runs. The pump signs the next group while a
   * transaction is in flight, and that transaction may be re-signed meanwhile (its nonce found used,
   * or freed by a refusal): interleaved, the two could swap nonces, and the one re-signed last would
   * leave a nonce never sent, behind which the node holds every later transaction.
   */
  #serially<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#reserving.then(step);
    this.#reserving = run.catch(() => undefined);
    return run;
  }

  /** Signs the transaction with the key's next nonce and records it (not yet durable). */
  async #reserve(jobs: readonly Job[], data: Hex, gas: bigint, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, from?: Status[]): Promise<Prepared> {
    const ids = requestIdsOf(jobs);
    for (let attempt = 0; ; attempt++) {
      const leaseToken = await this.#holdLease();
      const chainNonce = await this.#pendingNonce();
      const nonce = await this.#store.nextNonce(this.#chain.chainId, this.address, chainNonce);
      const rawTx = this.#sign({
        type: "eip1559",
        chainId: this.#chain.chainId,
        to: jobs[0]!.vault,
        data,
        gas,
        nonce: Number(nonce),
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      const txHash = txHashOf(rawTx);
      const submission = {
        signer: this.address,
        nonce,
        txHash,
        rawTx,
        chainPendingNonce: chainNonce,
        // A refusal records nothing: the requests are still where they were.
        from,
        ...(leaseToken === undefined ? {} : { leaseToken }),
      };
      // A cancel (alone in its transaction: it carries no payment to batch) is recorded on its own row.
      const cancel = jobs[0]!.cancel ? { chainId: this.#chain.chainId, vault: jobs[0]!.vault, intentHash: jobs[0]!.intentHash } : undefined;
      const recorded = await this.#store.transaction(
        (tx) => (cancel ? tx.recordCancelSubmission(cancel, submission) : tx.recordBatchSubmission(ids, submission)),
        { durable: false },
      );
      if (!recorded.ok) {
        if (recorded.code === "LEASE_LOST" && this.#lease) {
          // Another instance holds the key now: nothing was recorded, so the job goes to it (or
          // waits for a new lease) rather than waiting here for a lease its holder keeps.
          this.#lease.lost();
          if ((await this.#lease.tryHold()) === undefined) throw new LeaseLostError(this.address, this.#chain.chainId);
        }
        if ((recorded.code === "NONCE_MISMATCH" || recorded.code === "LEASE_LOST") && attempt < 3) continue;
        throw new Error(`could not record the submission: ${recorded.code}`);
      }
      return { jobs, ids, nonce, rawTx, txHash };
    }
  }

  /**
   * Broadcasts a prepared group and starts watching it; settles the group's promises on failure.
   * Never throws. A group sent while nothing else waits goes by the node's synchronous send.
   */
  #broadcastGroup(group: readonly Queued[], prepared: Prepared): InFlight {
    const sync = this.#queue.length === 0 && this.#syncSendMayWork();
    /** The version a synchronous send is waiting on, once handed to the node. */
    let sending: Prepared | undefined;
    const done = (async () => {
      try {
        // Should the transaction before it have ended on another nonce than this one follows
        // (it was re-signed or refused), this one is re-signed to follow it without a gap.
        if (this.#lastNonce !== undefined && prepared.nonce !== this.#lastNonce + 1n) {
          prepared = await this.#prepare(prepared.jobs, ["submitting"], this.#lastNonce + 1n);
        }
        const broadcastAt = performance.now();
        const sent = await this.#broadcast(prepared, sync ? (version) => (sending = version) : undefined);
        void this.#watch(group, sent, broadcastAt);
      } catch (error) {
        for (const q of group) q.reject(error);
      }
    })();
    if (!sync) return { accepted: () => done };
    // The node is asked whether it has the transaction only while something waits to follow it, or
    // once the wait for its block is long (a node with a block time). Known to the node and still
    // waiting MARK_SUBMITTED_AFTER_MS after the send, the requests are marked submitted, so that the
    // stuck watch looks after them meanwhile.
    // Neither marks once the send is over: the timer is cleared then, and #taken stops.
    let late = false;
    let known: Prepared | undefined;
    const mark = () => {
      if (late && known) this.#markSubmitted(known.ids);
    };
    const timer = setTimeout(() => {
      late = true;
      mark();
      this.#nudge?.();
    }, MARK_SUBMITTED_AFTER_MS);
    timer.unref?.();
    void done.finally(() => clearTimeout(timer));
    const onKnown = (version: Prepared) => {
      known = version;
      mark();
    };
    const taken = Promise.race([done, this.#taken(() => sending, done, () => late || this.#queue.length > 0, onKnown)]);
    return { accepted: () => taken };
  }

  /**
   * Resolves once the node knows the transaction a synchronous send waits on (its pool has it, so
   * it can no longer be refused; told to `onKnown`), or the send is over; the next transaction may
   * then be broadcast.
   */
  async #taken(sending: () => Prepared | undefined, done: Promise<void>, wanted: () => boolean, onKnown: (version: Prepared) => void): Promise<void> {
    let over = false;
    let wake: (() => void) | undefined;
    void done.then(() => {
      over = true;
      wake?.();
    });
    let wait = KNOWN_POLL_MS;
    let sleep = false; // first look at once: a lone send idles straight away
    while (!over) {
      if (sleep) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(2 * wait, KNOWN_POLL_MAX_MS);
      }
      sleep = true;
      const version = sending();
      if (over || !version) continue;
      if (!wanted()) {
        // Nobody waits to follow it: no timer and no node call until a job is queued or the send
        // turns late (#nudge), or it is over; then the node is asked at once.
        await new Promise<void>((resolve) => {
          wake = resolve;
          this.#nudge = resolve;
        });
        if (this.#nudge === wake) this.#nudge = undefined;
        wake = undefined;
        wait = KNOWN_POLL_MS;
        sleep = false;
        continue;
      }
      const known = await this.#chain.clients.publicClient.request({ method: "eth_getTransactionByHash", params: [version.txHash] }).catch(() => null);
      if (known && !over) {
        this.#handedOver(version.nonce);
        onKnown(version);
        return;
      }
    }
  }

  /** Whether a lone transaction may go by eth_sendRawTransactionSync: unless the node lacks it or its wait lately ran out. */
  #syncSendMayWork(): boolean {
    return this.#syncSend !== "missing" && Date.now() >= this.#syncSendAfter;
  }

  /**
   * Broadcasts a recorded transaction; re-signs it if its nonce turns out to be used already.
   * `sync`: by the node's synchronous send, told of each version handed to the node; the receipt
   * comes back with it when the node answered with one.
   */
  async #broadcast(prepared: Prepared, sync?: (sending: Prepared) => void): Promise<Sent> {
    for (let attempt = 0; ; attempt++) {
      const { ids, nonce, rawTx, txHash } = prepared;
      let receipt: TransactionReceipt | undefined;
      try {
        if (sync && this.#syncSendMayWork()) {
          sync(prepared);
          receipt = await this.#sendSync(rawTx, txHash);
        } else {
          await this.#chain.clients.publicClient.request({ method: "eth_sendRawTransaction", params: [rawTx] });
        }
      } catch (error) {
        const message = (error as Error).message ?? "";
        if (isTransportFailure(error)) {
          // Recorded as submitting: re-broadcast unchanged later. Its nonce counts as used.
          this.#handedOver(nonce);
          return { txHash, broadcast: false };
        }
        if (!/already known|already imported/i.test(message)) {
          if (/nonce too low|nonce.*(used|lower)/i.test(message) && attempt < 3) {
            // Someone else used this nonce: our transaction can never land. Re-sign with the chain's.
            this.#chainNonce = undefined;
            const fresh = await this.#pendingNonce();
            prepared = await this.#prepare(prepared.jobs, ["submitting"], fresh);
            continue;
          }
          // Refused outright (no funds for gas, fee too low…): nothing entered the pool; free the nonce.
          this.#lastNonce = nonce - 1n;
          await this.#serially(() =>
            this.#store.transaction(async (tx) => {
              await tx.resetNonce(this.#chain.chainId, this.address, nonce);
              for (const id of ids) await tx.transition(id, ["submitting"], "rejected", { reason: `the node refused the transaction: ${firstLine(message)}` });
            }),
          );
          this.#onTransaction("failed");
          throw relayError("INTERNAL_ERROR", "the node refused the relayer's transaction", { cause: error });
        }
      }
      faultPoint("after-broadcast");
      this.#onTransaction("submitted");
      this.#handedOver(nonce);
      return { txHash, broadcast: true, receipt };
    }
  }

  /**
   * The node has (or may have) taken the transaction of `nonce`: the next one follows it. Never
   * turns back: a synchronous send is answered once its block comes, after the transactions queued
   * behind it went out.
   */
  #handedOver(nonce: bigint): void {
    if (this.#lastNonce === undefined || nonce > this.#lastNonce) this.#lastNonce = nonce;
    if (this.#chainNonce === undefined || nonce >= this.#chainNonce) this.#chainNonce = nonce + 1n;
  }

  /** Never throws: should the mark fail (the ledger closing), `submitting` is settled the same way. */
  #markSubmitted(ids: readonly string[]): void {
    this.#store
      .transaction(async (tx) => {
        for (const id of ids) await tx.move(id, ["submitting"], "submitted");
      }, { durable: false })
      .catch(() => {
        // the request stays `submitting`; its receipt or reconciliation settles it all the same
      });
  }

  /**
   * eth_sendRawTransactionSync: the receipt once mined, or undefined when the node took the
   * transaction but gave up waiting for its block. A node without the method (remembered) gets the
   * same bytes by eth_sendRawTransaction. When the answer did not come (the wait outlasting the
   * relayer's RPC timeout) or the node gave up waiting, a transaction the node knows (pending or
   * mined) is watched as usual; one it does not know is sent again by eth_sendRawTransaction. Any
   * other error is the node's refusal only if it does not know the transaction.
   */
  async #sendSync(rawTx: Hex, txHash: Hex): Promise<TransactionReceipt | undefined> {
    const client = this.#chain.clients.publicClient;
    try {
      const receipt = await client.request({ method: "eth_sendRawTransactionSync" as "eth_sendRawTransaction", params: [rawTx] });
      this.#syncSend = "offered";
      return formatTransactionReceipt(receipt as unknown as Parameters<typeof formatTransactionReceipt>[0]);
    } catch (error) {
      if (this.#syncSend !== "offered" && isMethodMissing(error)) this.#syncSend = "missing";
      else {
        // The wait ran out, or the node answered an error: a transaction the node holds was taken all
        // the same (and the ones queued behind it may have gone out), so it is watched as usual. One
        // it does not know is sent again after a wait that ran out, and is refused otherwise. Should
        // the node not answer this either, the send stays unknown (recorded, re-broadcast later).
        const waitRanOut = isTransportFailure(error) || isSyncTimeout(error);
        if (waitRanOut) this.#syncSendAfter = Date.now() + SYNC_RETRY_MS;
        if (await client.request({ method: "eth_getTransactionByHash", params: [txHash] })) return undefined;
        if (!waitRanOut) throw error;
      }
    }
    await client.request({ method: "eth_sendRawTransaction", params: [rawTx] });
    return undefined;
  }

  /** Settles the group from the transaction's receipt; `broadcastAt` (performance.now()) times the confirm step. */
  async #watch(group: readonly Queued[], sent: Sent, broadcastAt: number): Promise<void> {
    if (!sent.broadcast) {
      for (const q of group) q.resolve({ ok: "unknown", txHash: sent.txHash });
      return;
    }
    let receipt = sent.receipt;
    if (!receipt) try {
      // Any version of the transaction may mine: the original or a fee-bump replacement (stuck-watch.ts).
      // Only a `submitted` request's transaction is ever replaced, so until the requests are marked
      // the looks need no ledger read. A receipt found within MARK_SUBMITTED_AFTER_MS settles them
      // straight from `submitting`; else they are marked `submitted` (for the stuck watch) as the
      // next look goes out. Not fsynced: `submitting` and `submitted` are reconciled alike after a restart.
      const markAt = Date.now() + MARK_SUBMITTED_AFTER_MS;
      let marked = false;
      const hashes = async () => {
        if (!marked && Date.now() >= markAt) {
          marked = true;
          this.#markSubmitted(requestIdsOf(group.map((q) => q.job)));
        }
        return marked ? hashesOf(this.#store, sent.txHash) : [sent.txHash];
      };
      receipt = await waitForAnyReceipt(this.#chain, hashes, 120_000);
    } catch {
      receipt = undefined;
    }
    if (!receipt) {
      for (const q of group) q.resolve({ ok: "unknown", txHash: sent.txHash });
      return;
    }
    this.#onStep?.("confirm", (performance.now() - broadcastAt) / 1000);
    faultPoint("after-mined");
    this.#onTransaction(receipt.status === "success" ? "mined" : "reverted");
    const outcomes = await withRevertReason(this.#chain, receipt, outcomesFromReceipt(receipt, group.map((q) => q.job)));
    group.forEach((q, i) => q.resolve(outcomes[i]!));
  }

  /**
   * The key's lease token (waiting for the lease), or undefined with a store of one instance. A
   * lease just taken makes what this instance remembered of the key's nonces stale: another
   * instance signed with it meanwhile.
   */
  async #holdLease(): Promise<bigint | undefined> {
    if (!this.#lease) return undefined;
    if (this.#handsOver && !this.#lease.held && (await this.#lease.tryHold()) === undefined) {
      // Another instance holds the key: it signs this job (handoff.ts) rather than this one waiting.
      throw new LeaseLostError(this.address, this.#chain.chainId);
    }
    const { token, fresh } = await this.#lease.hold();
    if (fresh) {
      this.#chainNonce = undefined;
      this.#lastNonce = undefined;
    }
    return token;
  }

  /** Whether this instance may sign with the key now: always with one instance; with several, while it holds the key's lease. */
  get holdsKey(): boolean {
    return this.#lease ? this.#lease.held : true;
  }

  /** Gives up the key's lease (shutting down). */
  async close(): Promise<void> {
    await this.#lease?.letGo();
  }

  async #pendingNonce(): Promise<bigint> {
    if (this.#chainNonce === undefined) {
      const count = await this.#chain.clients.publicClient.getTransactionCount({ address: this.address, blockTag: "pending" });
      this.#chainNonce = BigInt(count);
    }
    return this.#chainNonce;
  }

  /**
   * Fees (viem's estimateFeesPerGas: the latest base fee with headroom, plus the node's suggested
   * tip), never older than FEES_MAX_AGE_MS; read again in the background once FEES_REFRESH_MS old.
   */
  async #feeData(): Promise<Fees> {
    const fees = this.#fees;
    const age = fees ? Date.now() - fees.at : Infinity;
    if (fees && age < FEES_REFRESH_MS) return fees;
    const reading = this.#readFees();
    if (fees && age < FEES_MAX_AGE_MS) {
      reading.catch(() => {}); // a failed read is tried again by the next transaction; these fees still serve
      return fees;
    }
    return reading;
  }

  /**
   * Reads the fees; they count as read when the read began. A read under way is joined while it
   * began less than FEES_MAX_AGE_MS ago (a read that has not answered for longer is not waited for).
   */
  #readFees(): Promise<Fees> {
    const at = Date.now();
    const under = this.#feesReading;
    if (under && at - under.at < FEES_MAX_AGE_MS) return under.fees;
    const fees = this.#chain.clients.publicClient.estimateFeesPerGas().then((estimate) => {
      const read = { at, maxFeePerGas: estimate.maxFeePerGas!, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas! };
      if (!this.#fees || at >= this.#fees.at) this.#fees = read;
      return read;
    }).finally(() => {
      if (this.#feesReading?.fees === fees) this.#feesReading = undefined;
    });
    this.#feesReading = { at, fees };
    return fees;
  }
}

const paymentFailedTopic = toEventSelector(getAbiItem({ abi: vaultAbi, name: "PaymentFailed" }) as AbiEvent);

/**
 * Per job: did its intent execute? A batch reports failures with PaymentFailed(intentHash, reason),
 * emitted by the vault; other logs (token transfers, PaymentExecuted) are not decoded.
 */
export function outcomesFromReceipt(receipt: TransactionReceipt, jobs: readonly Job[]): JobOutcome[] {
  const txHash = receipt.transactionHash;
  if (receipt.status !== "success") return jobs.map(() => ({ ok: false, txHash, reason: "the transaction reverted on-chain" }));
  const vault = jobs[0]?.vault.toLowerCase();
  const failed = new Map<string, string>();
  for (const log of receipt.logs) {
    if (log.topics[0] !== paymentFailedTopic || log.address.toLowerCase() !== vault) continue;
    try {
      const event = decodeEventLog({ abi: vaultAbi, eventName: "PaymentFailed", data: log.data, topics: log.topics });
      const args = event.args as unknown as { intentHash: Hex; reason: Hex };
      failed.set(args.intentHash.toLowerCase(), decodeRevert(args.reason));
    } catch {
      // not the vault's event after all (malformed): it reports nothing
    }
  }
  return jobs.map((job) => {
    const reason = failed.get(job.intentHash.toLowerCase());
    return reason === undefined ? { ok: true, txHash, blockNumber: receipt.blockNumber } : { ok: false, txHash, reason: `execution failed on-chain: ${reason}` };
  });
}

/** Whether `job` may share the batch of `first`: both fast-path payments of the same vault. */
function joins(job: Job, first: Job): boolean {
  return job.payment !== undefined && first.payment !== undefined && job.vault === first.vault;
}

/** A signed transaction's hash is the keccak of its raw bytes. */
function txHashOf(rawTx: Hex): Hex {
  return keccak256Hex(rawTx);
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.slice(0, 200);
}

