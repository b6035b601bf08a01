// SIWE nonces shared by every relayer instance on one database: the nonces of
// src/server/auth/nonces.ts (same format: expiry ‖ random ‖ MAC, nothing stored until spent), with
// the MAC key derived from a secret all instances share and the spent nonces in the database, so a
// nonce issued by one instance can be spent on any, and only once across all of them.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type pg from "pg";
import type { NonceCheck } from "../../server/auth/nonces.ts";
import { loadOrCreateSharedSecret } from "./secrets.ts";
import { withTransaction } from "./session.ts";

const MAC_LABEL = Buffer.from("relay siwe nonce v1\n", "latin1");
const EXPIRY_BYTES = 8;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const NONCE_RE = new RegExp(`^[0-9a-f]{${2 * (EXPIRY_BYTES + RANDOM_BYTES + MAC_BYTES)}}$`);
/** Advisory-lock namespace of the spent-nonce table (one lock: spends are rare, a count must be exact). */
const nonceLock = 3;

export interface SharedNonceBookOptions {
  ttlMs: number;
  /** Most spent, unexpired nonces remembered; when full, spending is refused until the oldest expire. */
  maxSpent: number;
  now: () => number;
}

export class PostgresNonceBook {
  readonly #pool: pg.Pool;
  readonly #key: Buffer;
  readonly #options: SharedNonceBookOptions;

  private constructor(pool: pg.Pool, key: Buffer, options: SharedNonceBookOptions) {
    this.#pool = pool;
    this.#key = key;
    this.#options = options;
  }

  /** The nonce book on `pool`'s database (migrated: see openPostgresShared). */
  static async open(pool: pg.Pool, options: SharedNonceBookOptions): Promise<PostgresNonceBook> {
    if (!Number.isSafeInteger(options.maxSpent) || options.maxSpent < 1) throw new RangeError("maxSpent must be a positive integer");
    const secret = await loadOrCreateSharedSecret(pool, "siwe-nonce-key");
    return new PostgresNonceBook(pool, Buffer.from(secret), options);
  }

  /** A fresh nonce and its expiry in ms. Stores nothing. */
  issue(): { nonce: string; expiresAtMs: number } {
    const expiresAtMs = this.#options.now() + this.#options.ttlMs;
    const body = Buffer.alloc(EXPIRY_BYTES + RANDOM_BYTES);
    body.writeBigUInt64BE(BigInt(expiresAtMs), 0);
    randomBytes(RANDOM_BYTES).copy(body, EXPIRY_BYTES);
    return { nonce: Buffer.concat([body, this.#mac(body)]).toString("hex"), expiresAtMs };
  }

  /** Spends `nonce`: ok only if an instance of this database issued it, it has not expired and was never spent. */
  async spend(nonce: string): Promise<NonceCheck> {
    if (!NONCE_RE.test(nonce)) return { ok: false, reason: "unknown" };
    const bytes = Buffer.from(nonce, "hex");
    const body = bytes.subarray(0, EXPIRY_BYTES + RANDOM_BYTES);
    if (!timingSafeEqual(this.#mac(body), bytes.subarray(EXPIRY_BYTES + RANDOM_BYTES))) return { ok: false, reason: "unknown" };
    const expiresAtMs = Number(body.readBigUInt64BE(0));
    const now = this.#options.now();
    if (now >= expiresAtMs) return { ok: false, reason: "expired" };
    return withTransaction(this.#pool, true, async (client): Promise<NonceCheck> => {
      await client.query("SELECT pg_advisory_xact_lock($1, 0)", [nonceLock]);
      // Expired nonces are refused by their expiry: they need no remembering.
      await client.query("DELETE FROM siwe_spent_nonces WHERE expires_at <= $1", [now]);
      const used = await client.query("SELECT 1 FROM siwe_spent_nonces WHERE nonce = $1", [nonce]);
      if (used.rows.length > 0) return { ok: false, reason: "used" };
      const { rows } = await client.query<{ n: string; earliest: string | null }>("SELECT COUNT(*) AS n, MIN(expires_at) AS earliest FROM siwe_spent_nonces");
      if (Number(rows[0]!.n) >= this.#options.maxSpent) {
        return { ok: false, reason: "full", retryAfterSeconds: Math.max(1, Math.ceil((Number(rows[0]!.earliest) - now) / 1000)) };
      }
      await client.query("INSERT INTO siwe_spent_nonces (nonce, expires_at) VALUES ($1, $2)", [nonce, expiresAtMs]);
      return { ok: true };
    });
  }

  /** How many spent, unexpired nonces are remembered. */
  async spentCount(): Promise<number> {
    const { rows } = await this.#pool.query<{ n: string }>("SELECT COUNT(*) AS n FROM siwe_spent_nonces WHERE expires_at > $1", [this.#options.now()]);
    return Number(rows[0]!.n);
  }

  #mac(body: Buffer): Buffer {
    return createHmac("sha256", this.#key).update(MAC_LABEL).update(body).digest().subarray(0, MAC_BYTES);
  }
}
