// The `requests` table on PostgreSQL: one row per accepted request, moved between states by
// compare-and-set (an UPDATE whose WHERE names the states it may leave, re-checked by PostgreSQL
// against the row's latest version, so two instances can never both move one request).
import { newRecord, newRowValues, type BotHistoryRow, type NewRequest, type RequestRecord, type ReviewFilter, type TransitionFields } from "../requests.ts";
import { statuses, type RequestKind, type Status } from "../status.ts";
import type { Query, Row } from "./session.ts";
import { dbNow } from "./leases.ts";

const lower = (hex: string): string => hex.toLowerCase();

/** A request row with its signed transaction (the `transactions` row its tx_hash names). */
const selectRequest = "SELECT r.*, t.raw_tx FROM requests r LEFT JOIN transactions t ON t.tx_hash = r.tx_hash";

const optional = <T>(value: unknown, map: (v: string) => T): T | undefined =>
  value === null || value === undefined ? undefined : map(String(value));

/** A row (BIGINT and NUMERIC arrive as decimal strings) as the record the SQLite ledger returns. */
export function requestFromRow(row: Row): RequestRecord {
  const record: RequestRecord = {
    id: String(row.id),
    kind: row.kind as RequestKind,
    chainId: Number(row.chain_id),
    vault: String(row.vault),
    bot: String(row.bot),
    intentHash: String(row.intent_hash),
    idempotencyKey: String(row.idempotency_key),
    fingerprint: String(row.fingerprint),
    status: row.status as Status,
    usdValue: BigInt(String(row.usd_value)),
    body: String(row.body),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deadline: BigInt(String(row.deadline)),
  };
  const extras: Partial<RequestRecord> = {
    response: optional(row.response, String),
    reason: optional(row.reason, String),
    heldBecause: optional(row.held_because, String),
    agents: optional(row.agents, String),
    txHash: optional(row.tx_hash, String),
    rawTx: optional(row.raw_tx, String),
    nonce: optional(row.nonce, BigInt),
    signer: optional(row.signer, String),
    reviewExpiresAt: optional(row.review_expires_at, Number),
  };
  for (const [key, value] of Object.entries(extras)) {
    if (value !== undefined) (record as unknown as Record<string, unknown>)[key] = value;
  }
  return record;
}

/**
 * Inserts a request (status `received` unless given) and returns it: it arrived at `arrived` (its
 * chain's clock) and last changed at `now` (the wall clock; see RequestRecord).
 */
export async function createRequest(q: Query, input: NewRequest, arrived: number, now: number, instance: string | null = null): Promise<RequestRecord> {
  // The record is what the row now holds: built here rather than read back (RETURNING *).
  const record = newRecord(input, arrived, now);
  await q(
    `INSERT INTO requests (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint, status,
       usd_value, body, held_because, created_at, updated_at, deadline, review_expires_at, instance)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $17, $14, $15, $16)`,
    [...newRowValues(record), instance, now],
  );
  return record;
}

/** The request with this id; `forUpdate` locks its row until the transaction ends. */
export async function getRequest(q: Query, id: string, forUpdate = false): Promise<RequestRecord | undefined> {
  const rows = await q(`${selectRequest} WHERE r.id = $1${forUpdate ? " FOR UPDATE OF r" : ""}`, [id]);
  return rows[0] ? requestFromRow(rows[0]) : undefined;
}

/**
 * Compare-and-set: moves the request to `to` (setting `fields`) only if its status is one of
 * `from`. Returns the updated request, or undefined when it does not exist or is in another state.
 */
export async function transitionRequest(
  q: Query,
  id: string,
  from: readonly Status[],
  to: Status,
  fields: TransitionFields,
  now: number,
): Promise<RequestRecord | undefined> {
  if (!statuses.includes(to)) throw new TypeError(`unknown status ${String(to)}`);
  const rawTx = fields.rawTx === undefined ? undefined : lower(fields.rawTx);
  if (rawTx !== undefined) {
    if (fields.txHash === undefined) throw new TypeError("rawTx is stored under its txHash: give both");
    await recordTransaction(q, fields.txHash, rawTx);
  }
  const rows = await q(
    `UPDATE requests SET status = $2, updated_at = $3,
       response = COALESCE($4, response), reason = COALESCE($5, reason),
       held_because = COALESCE($6, held_because), agents = COALESCE($7, agents),
       tx_hash = COALESCE($8, tx_hash), nonce = COALESCE($9::numeric, nonce),
       signer = COALESCE($10, signer), review_expires_at = COALESCE($11::bigint, review_expires_at),
       usd_value = COALESCE($12::numeric, usd_value)
     WHERE id = $1 AND status = ANY($13::text[]) RETURNING *`,
    [
      id,
      to,
      now,
      fields.response ?? null,
      fields.reason ?? null,
      fields.heldBecause ?? null,
      fields.agents ?? null,
      fields.txHash === undefined ? null : lower(fields.txHash),
      fields.nonce === undefined ? null : fields.nonce.toString(),
      fields.signer === undefined ? null : lower(fields.signer),
      fields.reviewExpiresAt ?? null,
      fields.usdValue === undefined ? null : fields.usdValue.toString(),
      [...from],
    ],
  );
  if (!rows[0]) return undefined;
  return requestFromRow(rawTx === undefined ? rows[0] : { ...rows[0], raw_tx: rawTx });
}

/**
 * Stores a signed transaction under its hash (once: a batch's requests share it). Call inside the
 * transaction that moves its requests to `submitting`, so it is durable before it is broadcast.
 */
export async function recordTransaction(q: Query, txHash: string, rawTx: string): Promise<void> {
  await q("INSERT INTO transactions (tx_hash, raw_tx) VALUES ($1, $2) ON CONFLICT DO NOTHING", [lower(txHash), lower(rawTx)]);
}

/** The earliest request for this intent that is not `rejected` (approved or still in progress). */
export async function findOwnByIntentHash(q: Query, chainId: number, vault: string, intentHash: string): Promise<RequestRecord | undefined> {
  const rows = await q(
    `${selectRequest} WHERE r.chain_id = $1 AND r.vault = $2 AND r.intent_hash = $3 AND r.status <> 'rejected'
     ORDER BY r.created_at, r.seq LIMIT 1`,
    [chainId, lower(vault), lower(intentHash)],
  );
  return rows[0] ? requestFromRow(rows[0]) : undefined;
}

/** Requests in `submitting` or `submitted`, oldest first, for reconciliation after a restart. */
export async function listInFlight(q: Query): Promise<RequestRecord[]> {
  return (await q(`${selectRequest} WHERE r.status IN ('submitting', 'submitted') ORDER BY r.created_at, r.seq`)).map(requestFromRow);
}

/** Requests a restart must settle: recorded but neither held, submitted nor final. */
export async function listUnsettled(q: Query): Promise<RequestRecord[]> {
  return (await q(`${selectRequest} WHERE r.status IN ('received', 'scanning') ORDER BY r.created_at, r.seq`)).map(requestFromRow);
}

/**
 * Received or scanning requests whose recording instance is no longer alive (its heartbeat in
 * `instances` expired, or it never had one): nobody is working on them any more.
 */
export async function listInterrupted(q: Query): Promise<RequestRecord[]> {
  return (
    await q(
      `SELECT r.* FROM requests r LEFT JOIN instances i ON i.id = r.instance
       WHERE r.status IN ('received', 'scanning') AND (i.id IS NULL OR i.expires_at <= ${dbNow})
       ORDER BY r.created_at, r.seq`,
    )
  ).map(requestFromRow);
}

/** Claims a held review for one decision until `until` unless another claim has not lapsed (Store.claimReview). */
export async function claimReview(q: Query, id: string, until: number, now: number): Promise<RequestRecord | undefined> {
  const rows = await q(
    `UPDATE requests SET deciding_until = $2
     WHERE id = $1 AND status = 'held' AND (deciding_until IS NULL OR deciding_until <= $3) RETURNING *`,
    [id, until, now],
  );
  return rows[0] ? requestFromRow(rows[0]) : undefined;
}

/** Gives a claim up; the review stays held. */
export async function releaseReview(q: Query, id: string): Promise<void> {
  await q("UPDATE requests SET deciding_until = NULL WHERE id = $1 AND status = 'held'", [id]);
}

/** Requests that were held for review, in `filter.status` (default `held`), oldest first. */
export async function listReviews(q: Query, filter: ReviewFilter): Promise<RequestRecord[]> {
  const rows = await q(
    `${selectRequest} WHERE r.held_because IS NOT NULL AND r.status = $1
       AND ($2::bigint IS NULL OR r.chain_id = $2) AND ($3::text IS NULL OR r.vault = $3) ORDER BY r.created_at, r.seq`,
    [filter.status ?? "held", filter.chainId ?? null, filter.vault === undefined ? null : lower(filter.vault)],
  );
  return rows.map(requestFromRow);
}

/**
 * Ids of held requests whose review window ended at or before `nowOn(chainId)`, the time on the
 * request's own chain, of those that ended by `latest` (no chain's time is later).
 */
export async function expiringReviewIds(q: Query, nowOn: (chainId: number) => number, latest: number): Promise<string[]> {
  const rows = await q(
    "SELECT id, chain_id, review_expires_at FROM requests WHERE status = 'held' AND review_expires_at IS NOT NULL AND review_expires_at <= $1 ORDER BY created_at, seq",
    [latest],
  );
  return rows.filter((row) => Number(row.review_expires_at) <= nowOn(Number(row.chain_id))).map((row) => String(row.id));
}

/** A bot's recent history on a vault, for the verification agents. `counterparty` is lower-case. */
export async function botHistory(q: Query, chainId: number, vault: string, bot: string, counterparty: string, since: number): Promise<BotHistoryRow> {
  const key = [chainId, lower(vault), lower(bot)];
  const [totals] = await q(
    `SELECT COUNT(*) AS requests, COUNT(*) FILTER (WHERE status = 'rejected') AS rejected,
       COALESCE(SUM(usd_value) FILTER (WHERE status = 'approved'), 0) AS approved_usd
     FROM requests WHERE chain_id = $1 AND vault = $2 AND bot = $3 AND created_at > $4`,
    [...key, since],
  );
  const recent = await q(
    `SELECT usd_value FROM requests WHERE chain_id = $1 AND vault = $2 AND bot = $3 AND status = 'approved'
     ORDER BY created_at DESC, seq DESC LIMIT 50`,
    key,
  );
  const usd = recent.map((r) => BigInt(String(r.usd_value))).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const [paid] = await q(
    `SELECT EXISTS (SELECT 1 FROM requests WHERE chain_id = $1 AND vault = $2 AND bot = $3 AND status = 'approved'
       AND body::jsonb ->> 'counterparty' = $4) AS known`,
    [...key, lower(counterparty)],
  );
  return {
    requests24h: Number(totals!.requests),
    rejected24h: Number(totals!.rejected),
    approvedUsd24h: BigInt(String(totals!.approved_usd)),
    medianUsd: usd.length === 0 ? 0n : usd[Math.floor(usd.length / 2)]!,
    recentApproved: usd.length,
    knownCounterparty: paid!.known === true,
  };
}
