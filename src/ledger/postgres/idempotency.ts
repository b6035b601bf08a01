// Idempotency keys on PostgreSQL (semantics of src/ledger/idempotency.ts). A claim inserts with
// ON CONFLICT DO NOTHING: PostgreSQL lets exactly one of any number of concurrent inserts of a key
// win (the others wait for it to commit, then see it), and the losers read the winner's row.
import { idempotencyRetentionMs, takenKey, type ClaimOutcome, type KeyRow, type KeyState } from "../idempotency.ts";
import type { Query } from "./session.ts";
import { dbNow } from "./leases.ts";

/**
 * Claims `key` for `requestId`. A different `fingerprint` under the same key is a conflict
 * whatever its state; the same fingerprint is a replay once a response is stored, in flight before.
 */
export async function claimIdempotency(q: Query, kind: string, key: string, fingerprint: string, requestId: string, now: number, instance: string | null = null): Promise<ClaimOutcome> {
  for (;;) {
    const inserted = await q(
      `INSERT INTO idempotency (kind, key, fingerprint, request_id, created_at, instance) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (kind, key) DO NOTHING RETURNING 1`,
      [kind, key, fingerprint, requestId, now, instance],
    );
    if (inserted.length > 0) return { outcome: "new" };
    const [row] = await q("SELECT fingerprint, request_id, response FROM idempotency WHERE kind = $1 AND key = $2", [kind, key]);
    // Released between our insert and this read: the key is free again, claim it anew.
    if (!row) continue;
    return takenKey(row as unknown as KeyRow, fingerprint);
  }
}

/** The key's state without claiming it: one read. */
export async function lookupIdempotency(q: Query, kind: string, key: string, fingerprint: string): Promise<KeyState> {
  const [row] = await q("SELECT fingerprint, request_id, response FROM idempotency WHERE kind = $1 AND key = $2", [kind, key]);
  return row ? takenKey(row as unknown as KeyRow, fingerprint) : { outcome: "free" };
}

/** Stores the exact text of the 200 response for `key`. Returns false if the key is unknown. */
export async function completeIdempotency(q: Query, kind: string, key: string, responseText: string): Promise<boolean> {
  return (await q("UPDATE idempotency SET response = $3 WHERE kind = $1 AND key = $2 RETURNING 1", [kind, key, responseText])).length === 1;
}

/** Frees `key` after an error; a key that already has a response is kept. Returns whether a claim was released. */
export async function releaseIdempotency(q: Query, kind: string, key: string): Promise<boolean> {
  return (await q("DELETE FROM idempotency WHERE kind = $1 AND key = $2 AND response IS NULL RETURNING 1", [kind, key])).length === 1;
}

/** Deletes entries older than `olderThanMs`, never one younger than 24 hours. Returns how many. */
export async function pruneIdempotency(q: Query, olderThanMs: number, now: number): Promise<number> {
  const age = Math.max(olderThanMs, idempotencyRetentionMs);
  const [row] = await q("WITH gone AS (DELETE FROM idempotency WHERE created_at < $1 RETURNING 1) SELECT COUNT(*) AS n FROM gone", [now - age]);
  return Number(row!.n);
}

/**
 * Frees the keys claimed by instances whose heartbeat expired and for which they never recorded a
 * request (they died while checking it): a same-key retry waiting on another instance then runs.
 * Returns how many.
 */
export async function releaseInterruptedClaims(q: Query): Promise<number> {
  const [row] = await q(
    `WITH gone AS (
       DELETE FROM idempotency i WHERE i.response IS NULL AND i.instance IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM instances n WHERE n.id = i.instance AND n.expires_at > ${dbNow})
         AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.id = i.request_id)
       RETURNING 1)
     SELECT COUNT(*) AS n FROM gone`,
  );
  return Number(row!.n);
}
