// The `nonces` table: the next transaction nonce per (chainId, relayer signer).
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";

/** Prepared statements and operations on `nonces`. Nonces are stored as decimal TEXT. */
export class Nonces {
  readonly #db: Db;
  readonly #get: StatementSync;
  readonly #set: StatementSync;

  constructor(db: Db) {
    this.#db = db;
    const s = db.sqlite;
    this.#get = s.prepare("SELECT next FROM nonces WHERE chain_id = ? AND signer = ?");
    this.#set = s.prepare(
      "INSERT INTO nonces (chain_id, signer, next) VALUES (?, ?, ?) ON CONFLICT (chain_id, signer) DO UPDATE SET next = excluded.next",
    );
  }

  /**
   * The nonce the next submission of `signer` must use: max(stored next nonce, the chain's pending
   * nonce). Reads only: nothing is reserved until the submission is recorded, so a failed estimate
   * or signature burns no nonce.
   */
  next(chainId: number, signer: string, chainPendingNonce: bigint): bigint {
    const row = this.#get.get(chainId, signer.toLowerCase()) as { next: string } | undefined;
    const stored = row ? BigInt(row.next) : 0n;
    return stored > chainPendingNonce ? stored : chainPendingNonce;
  }

  /**
   * Reserves `nonce` if it is exactly {@link next}; returns the expected nonce otherwise (someone
   * else took it: re-sign with the expected one). Joins the caller's transaction.
   */
  reserve(chainId: number, signer: string, nonce: bigint, chainPendingNonce: bigint): { ok: true } | { ok: false; expected: bigint } {
    return this.#db.transaction(() => {
      const expected = this.next(chainId, signer, chainPendingNonce);
      if (nonce !== expected) return { ok: false, expected } as const;
      this.#set.run(chainId, signer.toLowerCase(), (nonce + 1n).toString());
      return { ok: true } as const;
    });
  }

  /** Sets the stored next nonce to the chain's (reconciliation after dropped or replaced transactions). */
  reset(chainId: number, signer: string, chainNonce: bigint): void {
    if (chainNonce < 0n) throw new RangeError("nonce must not be negative");
    this.#db.transaction(() => this.#set.run(chainId, signer.toLowerCase(), chainNonce.toString()));
  }
}
