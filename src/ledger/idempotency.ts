// The `idempotency` table (one row per (kind, key)) and the in-process InFlight helper.
import type { StatementSync } from "node:sqlite";
import type { ClaimOutcome, KeyState } from "../relayer/store.ts";
import type { Db } from "./db.ts";

/** Entries are kept at least this long (DESIGN §7): 24 hours. */
export const idempotencyRetentionMs = 24 * 60 * 60 * 1000;

/** Declared by the relayer, which consumes it (src/relayer/store.ts). */
export type { ClaimOutcome, KeyState };

/** A key's stored row: the request it was claimed for, and that request's answer once given. */
export interface KeyRow {
  fingerprint: string;
  request_id: string;
  response: string | null;
}

/**
 * A taken key as `fingerprint`'s request finds it (both stores): another request's data under it is
 * a conflict whatever its state; its own is a replay once answered, in flight before.
 */
export function takenKey(row: KeyRow, fingerprint: string): Exclude<KeyState, { outcome: "free" }> {
  if (row.fingerprint !== fingerprint) return { outcome: "conflict" };
  if (row.response !== null) return { outcome: "replay", response: String(row.response), requestId: String(row.request_id) };
  return { outcome: "in_flight", requestId: String(row.request_id) };
}

/** Prepared statements and operations on `idempotency`. */
export class Idempotency {
  readonly #db: Db;
  readonly #get: StatementSync;
  readonly #insert: StatementSync;
  readonly #complete: StatementSync;
  readonly #release: StatementSync;
  readonly #prune: StatementSync;

  constructor(db: Db) {
    this.#db = db;
    const s = db.sqlite;
    this.#get = s.prepare("SELECT fingerprint, request_id, response FROM idempotency WHERE kind = ? AND key = ?");
    // A key already taken is left as it is (then read): one statement for a new key, the usual case.
    this.#insert = s.prepare(
      "INSERT INTO idempotency (kind, key, fingerprint, request_id, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, key) DO NOTHING",
    );
    this.#complete = s.prepare("UPDATE idempotency SET response = ? WHERE kind = ? AND key = ?");
    this.#release = s.prepare("DELETE FROM idempotency WHERE kind = ? AND key = ? AND response IS NULL");
    this.#prune = s.prepare("DELETE FROM idempotency WHERE created_at < ?");
  }

  /**
   * Claims `key` for `requestId`, atomically. A different `fingerprint` under the same key is a
   * conflict whatever its state; the same fingerprint is a replay once a response is stored, and
   * in flight before.
   */
  claim(kind: string, key: string, fingerprint: string, requestId: string): ClaimOutcome {
    return this.#db.transaction(() => {
      if (Number(this.#insert.run(kind, key, fingerprint, requestId, this.#db.now()).changes) === 1) return { outcome: "new" } as const;
      return takenKey(this.#get.get(kind, key) as unknown as KeyRow, fingerprint);
    });
  }

  /** The key's state without claiming it: one read. */
  lookup(kind: string, key: string, fingerprint: string): KeyState {
    const row = this.#get.get(kind, key) as KeyRow | undefined;
    return row ? takenKey(row, fingerprint) : { outcome: "free" };
  }

  /** Stores the exact JSON text of the 200 response for `key`; later claims replay it. Returns false if the key is unknown. */
  complete(kind: string, key: string, responseText: string): boolean {
    return this.#db.transaction(() => Number(this.#complete.run(responseText, kind, key).changes) === 1);
  }

  /**
   * Frees `key` after an error (errors store nothing, so a retry runs again). A key that already
   * has a response is kept. Returns whether a claim was released.
   */
  release(kind: string, key: string): boolean {
    return this.#db.transaction(() => Number(this.#release.run(kind, key).changes) === 1);
  }

  /**
   * Deletes entries older than `olderThanMs` (an age), but never one younger than 24 hours.
   * Returns how many were deleted.
   */
  prune(olderThanMs: number): number {
    const age = Math.max(olderThanMs, idempotencyRetentionMs);
    return this.#db.transaction(() => Number(this.#prune.run(this.#db.now() - age).changes));
  }
}

/**
 * Coalesces concurrent work by key inside one process: while the first `run(key, fn)` is pending,
 * later calls with the same key do not call their `fn` and get the first call's promise (its value
 * or its error). Once it settles the key is free again.
 */
export class InFlight<T> {
  readonly #pending = new Map<string, Promise<T>>();

  /** Runs `fn` for `key`, or joins the run already under way for it. */
  run(key: string, fn: () => Promise<T>): Promise<T> {
    const existing = this.#pending.get(key);
    if (existing) return existing;
    const promise = (async () => fn())().finally(() => {
      if (this.#pending.get(key) === promise) this.#pending.delete(key);
    });
    this.#pending.set(key, promise);
    return promise;
  }

  /** Whether work for `key` is under way. */
  has(key: string): boolean {
    return this.#pending.has(key);
  }

  /** Number of keys under way. */
  get size(): number {
    return this.#pending.size;
  }
}
