// Relayer-key leases for several instances sharing one database: each key's nonces are owned by one
// instance at a time. An instance acquires a key's lease for a while and renews it; when it stops
// renewing (it died, froze, or lost the database), another instance takes the lease once it has
// expired, with a larger fencing token, and must first reconcile the key's in-flight requests with
// the chain (`tookOver`). A lease's token fences its holder: a write checked with leaseIsCurrent
// inside the same transaction fails once the lease has passed to someone else, so a holder that
// wakes up late can never record a transaction for a nonce its successor owns.
//
// Expiry is judged by the database's clock, the one clock every instance shares.
import type pg from "pg";
import type { Query } from "./session.ts";
import { withTransaction } from "./session.ts";

/** A lease held by this instance. */
export interface KeyLease {
  chainId: number;
  signer: string;
  holder: string;
  /** Fencing token: grows by one whenever the lease changes holder. */
  token: bigint;
  /** When it lapses unless renewed (database clock, unix ms). */
  expiresAt: number;
  /** Another holder had it before: reconcile the key's in-flight requests with the chain first. */
  tookOver: boolean;
}

/** The database's clock in unix ms: the one clock every instance shares. */
export const dbNow = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

export class PostgresKeyLeases {
  readonly #pool: pg.Pool;
  readonly #holder: string;

  /** Leases taken on `pool`'s database in the name of `holder` (this instance's unique id). */
  constructor(pool: pg.Pool, holder: string) {
    this.#pool = pool;
    this.#holder = holder;
  }

  /**
   * Takes (or renews, if this instance holds it) the lease of `signer` on `chainId` for `ttlMs`.
   * Undefined while another instance holds an unexpired lease.
   */
  acquire(chainId: number, signer: string, ttlMs: number): Promise<KeyLease | undefined> {
    const key = [chainId, signer.toLowerCase()];
    return withTransaction(this.#pool, true, async (client) => {
      // Make sure a row exists to lock, then decide under its lock.
      await client.query(`INSERT INTO key_leases (chain_id, signer, holder, token, expires_at) VALUES ($1, $2, '', 0, 0) ON CONFLICT DO NOTHING`, key);
      const { rows } = await client.query<{ holder: string; token: string; expires_at: string; now: string }>(
        `SELECT holder, token, expires_at, ${dbNow} AS now FROM key_leases WHERE chain_id = $1 AND signer = $2 FOR UPDATE`,
        key,
      );
      const current = rows[0]!;
      const mine = current.holder === this.#holder;
      if (!mine && Number(current.expires_at) > Number(current.now)) return undefined;
      const token = mine ? BigInt(current.token) : BigInt(current.token) + 1n;
      const { rows: updated } = await client.query<{ expires_at: string }>(
        `UPDATE key_leases SET holder = $3, token = $4, expires_at = ${dbNow} + $5 WHERE chain_id = $1 AND signer = $2 RETURNING expires_at`,
        [...key, this.#holder, token.toString(), Math.ceil(ttlMs)],
      );
      return {
        chainId,
        signer: signer.toLowerCase(),
        holder: this.#holder,
        token,
        expiresAt: Number(updated[0]!.expires_at),
        tookOver: !mine && current.holder !== "",
      };
    });
  }

  /** Extends a lease still held under its token; undefined once it has passed to another instance. */
  async renew(lease: KeyLease, ttlMs: number): Promise<KeyLease | undefined> {
    const { rows } = await this.#pool.query<{ expires_at: string }>(
      `UPDATE key_leases SET expires_at = ${dbNow} + $5
       WHERE chain_id = $1 AND signer = $2 AND holder = $3 AND token = $4 RETURNING expires_at`,
      [lease.chainId, lease.signer, this.#holder, lease.token.toString(), Math.ceil(ttlMs)],
    );
    return rows[0] ? { ...lease, expiresAt: Number(rows[0].expires_at), tookOver: false } : undefined;
  }

  /**
   * Gives a lease up at once (a clean shutdown, or nothing left to send), so another instance need
   * not wait for its expiry. The next holder need not reconcile (its `tookOver` is false): every
   * transaction recorded under the lease is being watched by its sender or by reconciliation.
   */
  async release(lease: KeyLease): Promise<void> {
    await this.#pool.query("UPDATE key_leases SET expires_at = 0, holder = '' WHERE chain_id = $1 AND signer = $2 AND holder = $3 AND token = $4", [
      lease.chainId,
      lease.signer,
      this.#holder,
      lease.token.toString(),
    ]);
  }
}

/**
 * Whether `token` is the current, unexpired lease of `signer` on `chainId`, checked inside the
 * caller's transaction: the row is share-locked until it ends, so no other instance can take the
 * lease between this check and the caller's commit.
 */
export async function leaseIsCurrent(q: Query, chainId: number, signer: string, token: bigint): Promise<boolean> {
  const rows = await q(
    `SELECT 1 FROM key_leases WHERE chain_id = $1 AND signer = $2 AND token = $3 AND expires_at > ${dbNow} FOR SHARE`,
    [chainId, signer.toLowerCase(), token.toString()],
  );
  return rows.length === 1;
}
