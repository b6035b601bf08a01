// Who may sign with a relayer key when several instances share one database: the instance holding
// the key's lease (a row in the database with a fencing token, ledger/postgres/leases.ts). Every
// instance accepts every request. The first instance with work for a key takes its lease and keeps
// it while it lives, renewing it in the background; the others hand it their jobs (handoff.ts), so
// the lease changes holder only on a failure. Whatever signs with the key (the submitter, a fee bump)
// records under the lease's token (a store records nothing under a token that is no longer
// current). A lease that was not given up (its holder died or froze) is taken once it expires; the
// taker first settles the key's in-flight requests with the chain. Losing the lease (a failed
// renewal) stops signing at once. A clean shutdown gives the lease up for the next instance.
import { setTimeout as sleep } from "node:timers/promises";

/** A key lease as the database hands it out. */
export interface KeyLease {
  chainId: number;
  signer: string;
  /** Fencing token: grows whenever the lease changes holder. */
  token: bigint;
  /** Another holder had it and did not give it up: reconcile the key's in-flight requests first. */
  tookOver: boolean;
}

/** The leases of a shared database (PostgresKeyLeases). */
export interface KeyLeases<L extends KeyLease = KeyLease> {
  acquire(chainId: number, signer: string, ttlMs: number): Promise<L | undefined>;
  renew(lease: L, ttlMs: number): Promise<L | undefined>;
  release(lease: L): Promise<void>;
}

export interface KeyLeaseGateOptions {
  /** How long a lease lasts unless renewed; renewed every third of it. */
  ttlMs: number;
  /** Longest wait for a lease another instance holds before the work is given up. */
  waitMs: number;
  /** Settles the key's in-flight requests with the chain after a takeover (before any signing). */
  onTakeover: () => Promise<void>;
  log?: (line: string) => void;
}

/** The lease of one relayer key, for its submitter. */
/**
 * The key's lease passed to another instance before this one recorded anything: the job was not
 * signed and may be handed to the new holder (handoff.ts) or tried again.
 */
export class LeaseLostError extends Error {
  constructor(signer: string, chainId: number) {
    super(`relayer key ${signer} on chain ${chainId} is leased by another instance`);
    this.name = "LeaseLostError";
  }
}

export class KeyLeaseGate<L extends KeyLease = KeyLease> {
  readonly #leases: KeyLeases<L>;
  readonly #chainId: number;
  readonly #signer: string;
  readonly #options: KeyLeaseGateOptions;
  #lease: L | undefined;
  #renewal: ReturnType<typeof setInterval> | undefined;
  #releasing: Promise<void> = Promise.resolve();
  /** A lease was taken that hold() has not yet reported as fresh. */
  #unseen = false;

  constructor(leases: KeyLeases<L>, chainId: number, signer: string, options: KeyLeaseGateOptions) {
    this.#leases = leases;
    this.#chainId = chainId;
    this.#signer = signer;
    this.#options = options;
  }

  /** Whether this instance holds the key's lease now (as far as it knows). */
  get held(): boolean {
    return this.#lease !== undefined;
  }

  /**
   * The current lease's token, waiting for the lease if another instance holds it. `fresh` says the
   * lease was just taken: whatever this instance remembered of the key's nonces may be stale.
   */
  async hold(): Promise<{ token: bigint; fresh: boolean }> {
    const until = Date.now() + this.#options.waitMs;
    for (let pauseMs = 20; ; pauseMs = Math.min(2 * pauseMs, 500)) {
      const held = await this.#take();
      if (held !== undefined) {
        // Taken since the last hold() (here, or by tryHold): what the caller remembers is stale.
        const fresh = this.#unseen;
        this.#unseen = false;
        return { token: held, fresh };
      }
      if (Date.now() > until) throw new Error(`relayer key ${this.#signer} on chain ${this.#chainId} stayed leased by another instance`);
      await sleep(pauseMs);
    }
  }

  /**
   * The lease's token if this instance holds it, or takes it now (one attempt, no wait: the key is
   * free, or its holder's lease expired); undefined while another instance holds it. For work that
   * signs with the key outside its queue (fee bumps, stuck-watch.ts).
   */
  tryHold(): Promise<bigint | undefined> {
    return this.#take();
  }

  /** The held lease's token, else one attempt to acquire it (settling a dead holder's work first). */
  async #take(): Promise<bigint | undefined> {
    if (this.#lease) return this.#lease.token;
    await this.#releasing;
    // Another caller may have taken it meanwhile.
    const taken = this.#lease as L | undefined;
    if (taken) return taken.token;
    const lease = await this.#leases.acquire(this.#chainId, this.#signer, this.#options.ttlMs);
    if (!lease) return undefined;
    const meanwhile = this.#lease as L | undefined;
    if (meanwhile) return meanwhile.token;
    if (lease.tookOver) {
      this.#options.log?.(`took over the lease of relayer key ${this.#signer} on chain ${this.#chainId}; settling its in-flight requests`);
      await this.#options.onTakeover();
    }
    this.#lease = lease;
    this.#unseen = true;
    this.#startRenewing();
    return lease.token;
  }

  /** The store refused the token (the lease passed to another instance): stop signing with it. */
  lost(): void {
    this.#drop();
  }

  /** Gives the lease up (shutting down). */
  letGo(): Promise<void> {
    const lease = this.#lease;
    this.#drop();
    if (!lease) return this.#releasing;
    this.#releasing = this.#leases.release(lease).catch(() => {
      // Unreleased, it expires: another instance then takes it over (and reconciles).
    });
    return this.#releasing;
  }

  #drop(): void {
    this.#lease = undefined;
    if (this.#renewal) clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  #startRenewing(): void {
    this.#renewal = setInterval(() => {
      const lease = this.#lease;
      if (!lease) return;
      this.#leases
        .renew(lease, this.#options.ttlMs)
        .then((renewed) => {
          if (this.#lease !== lease) return;
          if (renewed) this.#lease = renewed;
          else this.#drop();
        })
        // Cannot tell whether it still holds: stop signing rather than risk a nonce the next holder owns.
        .catch(() => {
          if (this.#lease === lease) this.#drop();
        });
    }, Math.max(10, Math.floor(this.#options.ttlMs / 3)));
    this.#renewal.unref();
  }
}
