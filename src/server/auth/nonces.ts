// SIWE nonces that take no room on the server until they are used, so that no flood of nonce
// requests can evict or starve anyone's outstanding nonce. A nonce carries its own expiry and a MAC:
//
//   nonce = hex( expiry ‖ random ‖ mac )       80 hex digits (SIWE allows any letters and digits)
//   expiry = 8-byte big-endian ms since the epoch;  random = 16 bytes
//   mac    = the first 16 bytes of HMAC-SHA256(key, "relay siwe nonce v1\n" ‖ expiry ‖ random)
//
// The key is made for this process and never leaves its memory: a nonce from another relayer, or
// from before a restart, is refused, just as a restart forgets which nonces were used.
//
// Single use is enforced when a nonce is spent: a spent nonce is remembered until it expires (after
// that, its expiry refuses it anyway). That memory is bounded; when it is full of unexpired nonces,
// spending is refused until the oldest expire, never by forgetting one (which would allow a replay).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export type NonceCheck =
  | { ok: true }
  | { ok: false; reason: "unknown" | "expired" | "used" }
  /** Too many nonces spent within one lifetime: try again in `retryAfterSeconds`. */
  | { ok: false; reason: "full"; retryAfterSeconds: number };

/** Where OwnerAuth gets and spends nonces: this process's NonceBook, or one shared by several instances. */
export interface NonceIssuer {
  issue(): { nonce: string; expiresAtMs: number };
  spend(nonce: string): NonceCheck | Promise<NonceCheck>;
}

const MAC_LABEL = Buffer.from("relay siwe nonce v1\n", "latin1");
const EXPIRY_BYTES = 8;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const NONCE_RE = new RegExp(`^[0-9a-f]{${2 * (EXPIRY_BYTES + RANDOM_BYTES + MAC_BYTES)}}$`);

export class NonceBook implements NonceIssuer {
  readonly #key = randomBytes(32);
  readonly #ttlMs: number;
  readonly #maxSpent: number;
  readonly #now: () => number;
  /** Spent, not yet expired nonces → expiry (ms). */
  readonly #spent = new Map<string, number>();
  /** No spent nonce expires before this time (ms): a sweep before it would free nothing. */
  #nothingExpiresBefore = 0;

  constructor(options: { ttlMs: number; maxSpent: number; now: () => number }) {
    if (!Number.isSafeInteger(options.maxSpent) || options.maxSpent < 1) throw new RangeError("maxSpent must be a positive integer");
    this.#ttlMs = options.ttlMs;
    this.#maxSpent = options.maxSpent;
    this.#now = options.now;
  }

  /** How many spent nonces are remembered (to refuse their replay). */
  get spentCount(): number {
    return this.#spent.size;
  }

  /** A fresh nonce and its expiry in ms. Stores nothing. */
  issue(): { nonce: string; expiresAtMs: number } {
    const expiresAtMs = this.#now() + this.#ttlMs;
    const body = Buffer.alloc(EXPIRY_BYTES + RANDOM_BYTES);
    body.writeBigUInt64BE(BigInt(expiresAtMs), 0);
    randomBytes(RANDOM_BYTES).copy(body, EXPIRY_BYTES);
    return { nonce: Buffer.concat([body, this.#mac(body)]).toString("hex"), expiresAtMs };
  }

  /** Spends `nonce`: ok only if this process issued it, it has not expired and was not spent before. */
  spend(nonce: string): NonceCheck {
    if (!NONCE_RE.test(nonce)) return { ok: false, reason: "unknown" };
    const bytes = Buffer.from(nonce, "hex");
    const body = bytes.subarray(0, EXPIRY_BYTES + RANDOM_BYTES);
    if (!timingSafeEqual(this.#mac(body), bytes.subarray(EXPIRY_BYTES + RANDOM_BYTES))) return { ok: false, reason: "unknown" };
    const expiresAtMs = Number(body.readBigUInt64BE(0));
    const now = this.#now();
    if (now >= expiresAtMs) return { ok: false, reason: "expired" };
    if (this.#spent.has(nonce)) return { ok: false, reason: "used" };
    if (this.#spent.size >= this.#maxSpent && !this.#sweep(now)) {
      return { ok: false, reason: "full", retryAfterSeconds: Math.max(1, Math.ceil((this.#nothingExpiresBefore - now) / 1000)) };
    }
    this.#spent.set(nonce, expiresAtMs);
    this.#nothingExpiresBefore = Math.min(this.#nothingExpiresBefore, expiresAtMs);
    return { ok: true };
  }

  #mac(body: Buffer): Buffer {
    return createHmac("sha256", this.#key).update(MAC_LABEL).update(body).digest().subarray(0, MAC_BYTES);
  }

  /**
   * Forgets the spent nonces that have expired; says whether there is room now. Remembers when the
   * earliest remaining one expires, so that while the memory stays full a sweep runs at most once
   * per expiry, not once per login.
   */
  #sweep(now: number): boolean {
    if (now < this.#nothingExpiresBefore) return false;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [nonce, expiresAtMs] of this.#spent) {
      if (expiresAtMs <= now) this.#spent.delete(nonce);
      else earliest = Math.min(earliest, expiresAtMs);
    }
    this.#nothingExpiresBefore = earliest;
    return this.#spent.size < this.#maxSpent;
  }
}
