// The SIWE nonces this relayer has handed out and not yet seen used, kept in memory. Each lives
// for a fixed time; the set is bounded, so a flood of nonce requests drops the oldest ones
// instead of growing without limit. A nonce is spent by the first login that names it.
import { randomBytes } from "node:crypto";

export type NonceCheck = "ok" | "unknown" | "expired";

export class NonceBook {
  readonly #ttlMs: number;
  readonly #capacity: number;
  readonly #now: () => number;
  /** Nonce → expiry (ms). A Map iterates in insertion order, so the first entry is the oldest. */
  readonly #expiries = new Map<string, number>();

  constructor(options: { ttlMs: number; capacity: number; now: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#capacity = options.capacity;
    this.#now = options.now;
  }

  /** How many nonces are outstanding (issued, not spent, not yet dropped). */
  get size(): number {
    return this.#expiries.size;
  }

  /** A fresh nonce of 32 hex digits (128 random bits) and its expiry in ms. */
  issue(): { nonce: string; expiresAtMs: number } {
    const now = this.#now();
    this.#dropExpired(now);
    while (this.#expiries.size >= this.#capacity) this.#dropOldest();
    const nonce = randomBytes(16).toString("hex");
    const expiresAtMs = now + this.#ttlMs;
    this.#expiries.set(nonce, expiresAtMs);
    return { nonce, expiresAtMs };
  }

  /** Removes `nonce` and says whether it was outstanding and unexpired. */
  spend(nonce: string): NonceCheck {
    const expiresAtMs = this.#expiries.get(nonce);
    if (expiresAtMs === undefined) return "unknown";
    this.#expiries.delete(nonce);
    return this.#now() < expiresAtMs ? "ok" : "expired";
  }

  // Nonces share one lifetime, so expiries grow with insertion order: expired ones are at the front.
  #dropExpired(now: number): void {
    for (const [nonce, expiresAtMs] of this.#expiries) {
      if (expiresAtMs > now) return;
      this.#expiries.delete(nonce);
    }
  }

  #dropOldest(): void {
    const oldest = this.#expiries.keys().next();
    if (!oldest.done) this.#expiries.delete(oldest.value);
  }
}
