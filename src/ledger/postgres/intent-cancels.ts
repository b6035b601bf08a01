// The on-chain cancels of refused intents on PostgreSQL, with the semantics of
// src/ledger/intent-cancels.ts. A claim names the instance: a claim whose time is up, or whose
// instance's heartbeat has expired (instances.ts), is void, so a cancel a dead instance was sending
// is taken up by a live one soon, and no two live instances work on one cancel at once.
import { cancelFromRow, type CancelKey, type IntentCancel } from "../intent-cancels.ts";
import { dbNow } from "./leases.ts";
import type { Query } from "./session.ts";

const KEY = "chain_id = $1 AND vault = $2 AND intent_hash = $3";
const keyOf = (k: CancelKey) => [k.chainId, k.vault.toLowerCase(), k.intentHash.toLowerCase()];
const fromRow = (row: Record<string, unknown>) => cancelFromRow(row as never);

/** Queues the cancel of an intent the owner refused (the first refusal's row stands). */
export async function queueCancel(q: Query, key: CancelKey, requestId: string, now: number): Promise<void> {
  await q(
    `INSERT INTO intent_cancels (chain_id, vault, intent_hash, request_id, status, attempts, not_before, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'pending', 0, $5, $5, $5) ON CONFLICT DO NOTHING`,
    [...keyOf(key), requestId, now],
  );
}

/** The intents request `requestId` carries besides its own. */
export async function intentsCarriedBy(q: Query, requestId: string): Promise<string[]> {
  const rows = await q("SELECT intent_hash FROM linked_intents WHERE request_id = $1", [requestId]);
  return rows.map((row) => String(row.intent_hash));
}

export async function listCancels(q: Query): Promise<IntentCancel[]> {
  return (await q("SELECT * FROM intent_cancels WHERE status <> 'done' ORDER BY created_at, seq")).map(fromRow);
}

export async function claimCancel(q: Query, key: CancelKey, instance: string, until: number, now: number): Promise<IntentCancel | undefined> {
  const [row] = await q(
    `UPDATE intent_cancels SET claimed_by = $4, claimed_until = $5
     WHERE ${KEY} AND status <> 'done' AND not_before <= $6
       AND (claimed_by IS NULL OR claimed_until <= $6
            OR claimed_by IN (SELECT id FROM instances WHERE expires_at <= ${dbNow}))
     RETURNING *`,
    [...keyOf(key), instance, until, now],
  );
  return row ? fromRow(row) : undefined;
}

/** The cancel's status, its row locked until the transaction ends. */
export async function lockedStatusOf(q: Query, key: CancelKey): Promise<string | undefined> {
  const [row] = await q(`SELECT status FROM intent_cancels WHERE ${KEY} FOR UPDATE`, keyOf(key));
  return row ? String(row.status) : undefined;
}

export async function recordSent(q: Query, key: CancelKey, sent: { signer: string; nonce: bigint; txHash: string; rawTx: string }, now: number): Promise<void> {
  await q(`UPDATE intent_cancels SET status = 'sent', signer = $4, nonce = $5, tx_hash = $6, raw_tx = $7, updated_at = $8 WHERE ${KEY}`, [
    ...keyOf(key),
    sent.signer.toLowerCase(),
    sent.nonce.toString(),
    sent.txHash.toLowerCase(),
    sent.rawTx.toLowerCase(),
    now,
  ]);
}

export async function finishCancel(q: Query, key: CancelKey, now: number): Promise<void> {
  await q(`UPDATE intent_cancels SET status = 'done', claimed_by = NULL, claimed_until = NULL, updated_at = $4 WHERE ${KEY}`, [...keyOf(key), now]);
}

export async function retryCancel(q: Query, key: CancelKey, error: string, notBefore: number, now: number): Promise<void> {
  await q(
    `UPDATE intent_cancels SET status = 'pending', attempts = attempts + 1, last_error = $4, not_before = $5,
       claimed_by = NULL, claimed_until = NULL, updated_at = $6 WHERE ${KEY} AND status <> 'done'`,
    [...keyOf(key), error.slice(0, 500), notBefore, now],
  );
}

export async function releaseCancel(q: Query, key: CancelKey, instance: string): Promise<void> {
  await q(`UPDATE intent_cancels SET claimed_by = NULL, claimed_until = NULL WHERE ${KEY} AND claimed_by = $4`, [...keyOf(key), instance]);
}
