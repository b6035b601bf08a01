// Routes each job to a relayer key of its chain. All of a vault's jobs go to the same key, so its
// fast-path payments can share batches and keep their order; different vaults spread over keys.
import type { Address, Hex } from "viem";
import type { Store } from "../store.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import { Submitter } from "./submitter.ts";
import type { Job, JobOutcome, TransactionEvent } from "./job.ts";
import { configuredTokens, type TokenInfo } from "../chain/token-info.ts";
import type { KeyLeaseGate } from "./key-lease.ts";
import type { OnStep } from "../steps.ts";
import { Handoff, type HandoffKey, type SigningQueue } from "./handoff.ts";

export class Dispatcher {
  readonly #chains: ReadonlyMap<number, ChainRuntime>;
  readonly #submitters = new Map<number, Submitter[]>();
  readonly #tokens = new Map<number, Map<string, TokenInfo>>();
  /** Each key's lease, by `chainId:lower-case address` (several instances only). */
  readonly #leases = new Map<string, KeyLeaseGate>();
  readonly #handoff: Handoff | undefined;
  readonly #handoffKeys = new Map<Submitter, HandoffKey>();

  constructor(
    chains: ReadonlyMap<number, ChainRuntime>,
    store: Store,
    options: {
      maxBatch: number;
      /** Longest wait of a batch for the payments of its vault on their way (Submitter; config `batchGatherMs`). */
      gatherMs: number;
      onTransaction?: (chainId: number, result: TransactionEvent) => void;
      /** Told how long each of a transaction's steps took (steps.ts). */
      onStep?: OnStep;
      /** Several instances on one database: the lease each key's submitter must hold to sign. */
      leaseFor?: (chain: ChainRuntime, signer: Address) => KeyLeaseGate;
      /** With leaseFor: where jobs for a key another instance holds are handed to it (handoff.ts). */
      signingQueue?: SigningQueue;
      /** With signingQueue: longest wait for a handed-over job to be signed. */
      handoffTimeoutMs?: number;
    },
  ) {
    this.#chains = chains;
    for (const [chainId, chain] of chains) {
      this.#submitters.set(
        chainId,
        chain.signers.map((signer, i) => {
          const lease = options.leaseFor?.(chain, signer.address);
          if (lease) this.#leases.set(`${chainId}:${signer.address.toLowerCase()}`, lease);
          return new Submitter(chain, store, signer, chain.config.relayerKeys[i] as Hex, {
            maxBatch: options.maxBatch,
            gatherMs: options.gatherMs,
            onTransaction: (result) => options.onTransaction?.(chainId, result),
            onStep: options.onStep,
            lease,
            handsOver: lease !== undefined && options.signingQueue !== undefined,
          });
        }),
      );
      this.#tokens.set(chainId, configuredTokens(chain.config.tokens));
    }
    if (options.signingQueue && this.#leases.size > 0) {
      const keys = [...this.#submitters].flatMap(([chainId, list]) =>
        list.map((submitter) => ({ chain: chains.get(chainId)!, submitter, lease: this.#leases.get(`${chainId}:${submitter.address.toLowerCase()}`)! })),
      );
      this.#handoff = new Handoff(options.signingQueue, store, keys, options.handoffTimeoutMs ?? 120_000);
      for (const key of keys) this.#handoffKeys.set(key.submitter, key);
    }
  }

  #submitterFor(chainId: number, vault: Address): Submitter {
    const list = this.#submitters.get(chainId);
    if (!list || list.length === 0) throw new Error(`no relayer key for chain ${chainId}`);
    return list[Number(BigInt(vault) % BigInt(list.length))]!;
  }

  /** The relayer address that sends `vault`'s transactions on `chainId` (the simulation's `from`). */
  signerFor(chainId: number, vault: Address): Address {
    return this.#submitterFor(chainId, vault).address;
  }

  /**
   * A fast-path payment of `vault` is on its way to its key's queue: a batch of that vault about to
   * be sent waits for it a little (Submitter.onItsWay). Returns what says it arrived or left the fast
   * path; call it either way.
   */
  onItsWay(chainId: number, vault: Address): () => void {
    return this.#submitterFor(chainId, vault).onItsWay(vault);
  }

  submit(chainId: number, job: Job): Promise<JobOutcome> {
    const submitter = this.#submitterFor(chainId, job.vault);
    // Several instances: signed here only while this instance holds the key, else by its holder.
    const key = this.#handoffKeys.get(submitter);
    return key && this.#handoff ? this.#handoff.submit(key, job) : submitter.submit(job);
  }

  /**
   * Sends the on-chain cancel of a rejected request's intent (cancels.ts) through the queue of the
   * key serving its vault, on this instance: never handed over, since the handed-over jobs are
   * requests (handoff.ts); the cancel's sender asks signingRight first, and a lease lost meanwhile
   * throws LeaseLostError with nothing recorded.
   */
  submitCancel(chainId: number, job: Job & { cancel: true }): Promise<JobOutcome> {
    return this.#submitterFor(chainId, job.vault).submit(job);
  }

  /**
   * Whether this instance may sign with `signer` on `chainId` outside the key's queue (a fee bump),
   * and under which lease: `{}` with one instance (no leases); `{ leaseToken }` while this instance
   * holds the key's lease (taking it if it is free or expired); undefined while another holds it.
   */
  async signingRight(chainId: number, signer: string): Promise<{ leaseToken?: bigint } | undefined> {
    if (this.#leases.size === 0) return {};
    const lease = this.#leases.get(`${chainId}:${signer.toLowerCase()}`);
    const leaseToken = await lease?.tryHold();
    return leaseToken === undefined ? undefined : { leaseToken };
  }

  /** Lower-case addresses of the chain's configured ERC-20 tokens. */
  knownErc20s(chainId: number): ReadonlySet<string> {
    return new Set(this.#tokens.get(chainId)?.keys());
  }

  /** Symbol and decimals of the chain's configured tokens, by lower-case address. */
  tokenInfo(chainId: number): ReadonlyMap<string, TokenInfo> {
    return this.#tokens.get(chainId) ?? new Map();
  }

  /** Every relayer address per chain (reconciliation). */
  signers(): Array<{ chain: ChainRuntime; address: Address }> {
    return [...this.#submitters].flatMap(([chainId, list]) => list.map((s) => ({ chain: this.#chains.get(chainId)!, address: s.address })));
  }

  /** Every relayer key and whether this instance holds it now (/readyz). */
  keys(): Array<{ chainId: number; signer: Address; held: boolean }> {
    return [...this.#submitters].flatMap(([chainId, list]) => list.map((s) => ({ chainId, signer: s.address, held: s.holdsKey })));
  }

  /** Gives up every key lease this instance holds (shutting down). */
  async close(): Promise<void> {
    this.#handoff?.close();
    await Promise.all([...this.#submitters.values()].flat().map((s) => s.close()));
  }

  /** Jobs waiting to be signed, over all keys. */
  get queued(): number {
    let n = 0;
    for (const list of this.#submitters.values()) for (const s of list) n += s.queued;
    return n;
  }
}
