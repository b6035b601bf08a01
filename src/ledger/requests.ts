// The `requests` table: one row per accepted request, moved between states by compare-and-set.
import { randomFillSync } from "node:crypto";
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";
import { requestKinds, statuses, type RequestKind, type Status } from "./status.ts";

/** A stored request. Addresses and hashes are lower-case hex. */
export interface RequestRecord {
  id: string;
  kind: RequestKind;
  chainId: number;
  vault: string;
  bot: string;
  intentHash: string;
  idempotencyKey: string;
  fingerprint: string;
  status: Status;
  /** USD value, 6 decimals. */
  usdValue: bigint;
  /** JSON text of the normalized request. */
  body: string;
  /** JSON text of the last 200 response given for it. */
  response?: string;
  reason?: string;
  heldBecause?: string;
  /** JSON text of the agents' verdicts. */
  agents?: string;
  txHash?: string;
  /**
   * The signed transaction `txHash` names, stored once per transaction (a batch's requests share
   * it). Reads return it; a transition's result carries it only when that transition recorded it.
   */
  rawTx?: string;
  nonce?: bigint;
  /** Relayer address that signed the transaction. */
  signer?: string;
  /**
   * When the request arrived, unix ms, by its chain's clock (on a devnet, the chain's time): a
   * bot's recent history and a self-deciding review's delay count from it.
   */
  createdAt: number;
  /** When it last changed, unix ms, by the wall clock: how long its transaction has waited for the node is real time. */
  updatedAt: number;
  /** The intent's deadline, unix seconds. */
  deadline: bigint;
  /** When an undecided review becomes `rejected`, unix ms by its chain's clock. */
  reviewExpiresAt?: number;
}

/** Input of {@link Requests.create}; `id` is generated when omitted, `status` defaults to `received`. */
export type NewRequest = Pick<
  RequestRecord,
  "kind" | "chainId" | "vault" | "bot" | "intentHash" | "idempotencyKey" | "fingerprint" | "usdValue" | "body" | "deadline"
> &
  Partial<Pick<RequestRecord, "id" | "status" | "heldBecause" | "reviewExpiresAt">>;

/** Fields a transition may set. Omitted (undefined) fields keep their value; fields are never cleared. */
export type TransitionFields = Partial<
  Pick<
    RequestRecord,
    "response" | "reason" | "heldBecause" | "agents" | "txHash" | "rawTx" | "nonce" | "signer" | "reviewExpiresAt" | "usdValue"
  >
>;

/** See {@link Requests.botHistory}. */
export interface BotHistoryRow {
  requests24h: number;
  rejected24h: number;
  approvedUsd24h: bigint;
  medianUsd: bigint;
  /** Approved requests counted for the median (at most 50). */
  recentApproved: number;
  knownCounterparty: boolean;
}

/** Filter of {@link Requests.listReviews}. */
export interface ReviewFilter {
  chainId?: number;
  vault?: string;
  /** Defaults to `held` (reviews waiting for a decision). */
  status?: Status;
}

const base32 = "abcdefghijklmnopqrstuvwxyz234567";

/** A request id's random bits come from this pool of CSPRNG bytes, each byte used once. */
const ID_RANDOM_BYTES = 10;
const idPool = Buffer.alloc(ID_RANDOM_BYTES * 256);
let idPoolOffset = idPool.length;

/** The next 10 unused random bytes: the pool is refilled 256 ids at a time (one draw per id cost ~20 µs under load). */
function idBytes(): Buffer {
  if (idPoolOffset + ID_RANDOM_BYTES > idPool.length) {
    randomFillSync(idPool);
    idPoolOffset = 0;
  }
  return idPool.subarray(idPoolOffset, (idPoolOffset += ID_RANDOM_BYTES));
}

/** Base32 characters of an id's time (ms since 1970): 45 bits, enough until the year 3084. */
const ID_TIME_CHARS = 9;
/** The same 32 characters in their byte order, for the time: so the ids' text sorts as their times do. */
const sortedBase32 = [...base32].sort().join("");
/** `req_`, the time, and 15 random characters. */
const ID_LENGTH = 4 + 24;

/**
 * A new unguessable request id: `req_` + 24 base32 characters, the creation time (ms, 9 characters)
 * then 75 random bits (15 characters). Ids made in a later millisecond sort after earlier ones, so
 * the ledger's indexes keyed by request id (the requests' own, the spend entries') take each new
 * id at their end, on a page a recent commit already wrote, rather than on a random page each.
 */
export function newRequestId(): string {
  let time = "";
  for (let t = Date.now(), i = 0; i < ID_TIME_CHARS; i++, t = Math.floor(t / 32)) time = sortedBase32[t % 32] + time;
  let out = "req_" + time;
  let bits = 0;
  let value = 0;
  for (const byte of idBytes()) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out.slice(0, ID_LENGTH); // 16 characters drawn, 15 kept
}

/**
 * The record a new request's row holds (both stores): checked (a known kind and status, a USD value
 * not below 0), addresses and hash lower-case, status `received` unless given, arrived at `arrived`
 * (its chain's clock) and last changed at `now` (the wall clock).
 */
export function newRecord(input: NewRequest, arrived: number, now: number): RequestRecord {
  if (!requestKinds.includes(input.kind)) throw new TypeError(`unknown request kind ${String(input.kind)}`);
  const status = input.status ?? "received";
  if (!statuses.includes(status)) throw new TypeError(`unknown status ${String(status)}`);
  if (input.usdValue < 0n) throw new RangeError("usdValue must not be negative");
  const record: RequestRecord = {
    id: input.id ?? newRequestId(),
    kind: input.kind,
    chainId: input.chainId,
    vault: lower(input.vault),
    bot: lower(input.bot),
    intentHash: lower(input.intentHash),
    idempotencyKey: input.idempotencyKey,
    fingerprint: input.fingerprint,
    status,
    usdValue: input.usdValue,
    body: input.body,
    createdAt: arrived,
    updatedAt: now,
    deadline: input.deadline,
  };
  if (input.heldBecause !== undefined) record.heldBecause = input.heldBecause;
  if (input.reviewExpiresAt !== undefined) record.reviewExpiresAt = input.reviewExpiresAt;
  return record;
}

/**
 * A new request's row values in the INSERT's order of both stores (id, kind, chain_id, vault, bot,
 * intent_hash, idempotency_key, fingerprint, status, usd_value, body, held_because, created_at,
 * deadline, review_expires_at); each store adds its own after them (updated_at; PostgreSQL the
 * instance first).
 */
export function newRowValues(record: RequestRecord): (string | number | null)[] {
  return [
    record.id,
    record.kind,
    record.chainId,
    record.vault,
    record.bot,
    record.intentHash,
    record.idempotencyKey,
    record.fingerprint,
    record.status,
    record.usdValue.toString(),
    record.body,
    record.heldBecause ?? null,
    record.createdAt,
    record.deadline.toString(),
    record.reviewExpiresAt ?? null,
  ];
}

type Row = Record<string, string | number | null>;

function fromRow(row: Row): RequestRecord {
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
    usdValue: BigInt(row.usd_value as string),
    body: String(row.body),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deadline: BigInt(row.deadline as string),
  };
  // Optional fields are present only when set (a read per column, no intermediate object).
  if (row.response != null) record.response = String(row.response);
  if (row.reason != null) record.reason = String(row.reason);
  if (row.held_because != null) record.heldBecause = String(row.held_because);
  if (row.agents != null) record.agents = String(row.agents);
  if (row.tx_hash != null) record.txHash = String(row.tx_hash);
  if (row.raw_tx != null) record.rawTx = String(row.raw_tx);
  if (row.nonce != null) record.nonce = BigInt(row.nonce);
  if (row.signer != null) record.signer = String(row.signer);
  if (row.review_expires_at != null) record.reviewExpiresAt = Number(row.review_expires_at);
  return record;
}

const lower = (hex: string): string => hex.toLowerCase();

/** A request row with its signed transaction (the `transactions` row its tx_hash names). */
const selectRequest = "SELECT r.*, t.raw_tx FROM requests r LEFT JOIN transactions t ON t.tx_hash = r.tx_hash";

type UpdateValue = string | number;

/**
 * A transition's UPDATE: the columns it sets besides the status and the time (a field left out, or
 * null, keeps its column as it is, so the UPDATE sets only the columns given), and the statement's
 * values in its placeholders' order: the status, the time, those columns' values, the request's id.
 * Positional values: node:sqlite binds an object's named values about twice as slowly.
 */
function updateOf(id: string, to: Status, now: number, fields: TransitionFields): { columns: string[]; values: UpdateValue[] } {
  const columns: string[] = [];
  const values: UpdateValue[] = [to, now];
  const set = (column: string, value: UpdateValue | null | undefined) => {
    if (value == null) return;
    columns.push(column);
    values.push(value);
  };
  set("response", fields.response);
  set("reason", fields.reason);
  set("held_because", fields.heldBecause);
  set("agents", fields.agents);
  set("tx_hash", fields.txHash == null ? undefined : lower(fields.txHash));
  set("nonce", fields.nonce?.toString());
  set("signer", fields.signer == null ? undefined : lower(fields.signer));
  set("review_expires_at", fields.reviewExpiresAt);
  set("usd_value", fields.usdValue?.toString());
  values.push(id);
  return { columns, values };
}

/** Prepared statements and operations on `requests`. */
export class Requests {
  readonly #db: Db;
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  /** The compare-and-set UPDATE, one prepared statement per set of states it may leave and of columns it sets. */
  readonly #updates = new Map<string, StatementSync>();
  readonly #recordTx: StatementSync;
  readonly #byIntent: StatementSync;
  readonly #inFlight: StatementSync;
  readonly #reviews: StatementSync;
  readonly #expiring: StatementSync;
  readonly #unsettled: StatementSync;
  readonly #history: StatementSync;
  readonly #recentApproved: StatementSync;
  readonly #paidBefore: StatementSync;
  readonly #unsettledUpTo: StatementSync;
  readonly #claimReview: StatementSync;
  readonly #releaseReview: StatementSync;
  readonly #lastRowid: StatementSync;
  readonly #statusOf: StatementSync;

  constructor(db: Db) {
    this.#db = db;
    const s = db.sqlite;
    this.#insert = s.prepare(`INSERT INTO requests
      (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint, status, usd_value, body,
       held_because, created_at, updated_at, deadline, review_expires_at)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?16, ?14, ?15)`);
    this.#get = s.prepare(`${selectRequest} WHERE r.id = ?`);
    this.#statusOf = s.prepare("SELECT status, chain_id FROM requests WHERE id = ?");
    // The hash is the transaction's keccak: one hash, one raw transaction, however many requests.
    this.#recordTx = s.prepare("INSERT INTO transactions (tx_hash, raw_tx) VALUES (?, ?) ON CONFLICT DO NOTHING");
    this.#byIntent = s.prepare(`${selectRequest} WHERE r.chain_id = ? AND r.vault = ? AND r.intent_hash = ?
      AND r.status <> 'rejected' ORDER BY r.created_at, r.rowid LIMIT 1`);
    this.#inFlight = s.prepare(
      `${selectRequest} WHERE r.status IN ('submitting', 'submitted') ORDER BY r.created_at, r.rowid`,
    );
    this.#reviews = s.prepare(`${selectRequest} WHERE r.held_because IS NOT NULL AND r.status = :status
      AND (:chainId IS NULL OR r.chain_id = :chainId) AND (:vault IS NULL OR r.vault = :vault) ORDER BY r.created_at, r.rowid`);
    this.#unsettled = s.prepare(`${selectRequest} WHERE r.status IN ('received', 'scanning') ORDER BY r.created_at, r.rowid`);
    this.#unsettledUpTo = s.prepare(`${selectRequest} WHERE r.status IN ('received', 'scanning') AND r.rowid <= ? ORDER BY r.created_at, r.rowid`);
    this.#lastRowid = s.prepare("SELECT COALESCE(MAX(rowid), 0) AS n FROM requests");
    this.#claimReview = s.prepare(`UPDATE requests SET deciding_until = :until
      WHERE id = :id AND status = 'held' AND (deciding_until IS NULL OR deciding_until <= :now) RETURNING *`);
    this.#releaseReview = s.prepare("UPDATE requests SET deciding_until = NULL WHERE id = ? AND status = 'held'");
    this.#history = s.prepare(`SELECT COUNT(*) AS requests, COALESCE(SUM(status = 'rejected'), 0) AS rejected,
      COALESCE(SUM(CASE WHEN status = 'approved' THEN CAST(usd_value AS INTEGER) ELSE 0 END), 0) AS approved_usd
      FROM requests WHERE chain_id = ? AND vault = ? AND bot = ? AND created_at > ?`);
    this.#recentApproved = s.prepare(`SELECT usd_value FROM requests WHERE chain_id = ? AND vault = ? AND bot = ?
      AND status = 'approved' ORDER BY created_at DESC LIMIT 50`);
    this.#paidBefore = s.prepare(`SELECT COUNT(*) AS n FROM requests WHERE chain_id = ? AND vault = ? AND bot = ?
      AND status = 'approved' AND json_extract(body, '$.counterparty') = ?`);
    this.#expiring = s.prepare(
      "SELECT id, chain_id, review_expires_at FROM requests WHERE status = 'held' AND review_expires_at IS NOT NULL AND review_expires_at <= ?",
    );
  }

  /** Inserts a request (status `received` unless given) and returns it. */
  create(input: NewRequest): RequestRecord {
    // Its arrival by its chain's clock; its last change (now too) by the wall clock.
    const arrived = this.#db.chainNow(input.chainId);
    const now = this.#db.now();
    const record = newRecord(input, arrived, now);
    // The record is what the row now holds: built here rather than read back (RETURNING *).
    // Positional values, in the INSERT's column order (the last one, ?16, is updated_at).
    this.#insert.run(...newRowValues(record), now);
    return record;
  }

  /** The request with this id, if any. */
  get(id: string): RequestRecord | undefined {
    const row = this.#get.get(id) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /**
   * Compare-and-set: moves the request to `to` (setting `fields`) only if its current status is one
   * of `from`. Returns the updated request, or undefined when it does not exist or is in another state.
   */
  transition(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): RequestRecord | undefined {
    const rawTx = this.#checkTransition(to, fields);
    const { columns, values } = updateOf(id, to, this.#db.now(), fields);
    const update = this.#updateFrom(from, columns, true);
    if (!update) return undefined;
    return this.#db.transaction(() => {
      // One statement reads and moves the row: no separate read of the status first.
      const row = update.get(...values) as Row | undefined;
      if (!row) return undefined;
      if (rawTx === undefined) return fromRow(row);
      this.recordTransaction(fields.txHash!, rawTx);
      return fromRow({ ...row, raw_tx: rawTx });
    });
  }

  /**
   * {@link transition} for a caller that does not need the moved request back: the row is not read
   * back (no RETURNING, no record built). Returns whether the request moved.
   */
  move(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): boolean {
    const rawTx = this.#checkTransition(to, fields);
    const { columns, values } = updateOf(id, to, this.#db.now(), fields);
    const update = this.#updateFrom(from, columns, false);
    if (!update) return false;
    return this.#db.transaction(() => {
      if (Number(update.run(...values).changes) !== 1) return false;
      if (rawTx !== undefined) this.recordTransaction(fields.txHash!, rawTx);
      return true;
    });
  }

  /** The status and chain of the request with this id, if any (the row's other columns are not read). */
  statusOf(id: string): { status: Status; chainId: number } | undefined {
    const row = this.#statusOf.get(id) as { status: Status; chain_id: number } | undefined;
    return row && { status: row.status, chainId: Number(row.chain_id) };
  }

  /** Checks a transition's target and fields; returns the raw transaction to store, lower-case, if any. */
  #checkTransition(to: Status, fields: TransitionFields): string | undefined {
    if (!statuses.includes(to)) throw new TypeError(`unknown status ${String(to)}`);
    const rawTx = fields.rawTx === undefined ? undefined : lower(fields.rawTx);
    if (rawTx !== undefined && fields.txHash === undefined) throw new TypeError("rawTx is stored under its txHash: give both");
    return rawTx;
  }

  /**
   * The UPDATE that moves a request only from the known states among `from` (none: undefined),
   * setting `columns` (updateOf's), returning the row (`returning`) or not.
   */
  #updateFrom(from: readonly Status[], columns: readonly string[], returning: boolean): StatementSync | undefined {
    // Only names from the fixed `statuses` list and updateOf's column names reach the SQL text.
    const known = statuses.filter((status) => from.includes(status));
    if (known.length === 0) return undefined;
    const key = `${returning ? "row" : "count"}:${known.join(",")}:${columns.join(",")}`;
    let statement = this.#updates.get(key);
    if (!statement) {
      const states = known.map((status) => `'${status}'`).join(", ");
      const set = columns.map((column) => `, ${column} = ?`).join("");
      statement = this.#db.sqlite.prepare(
        `UPDATE requests SET status = ?, updated_at = ?${set} WHERE id = ? AND status IN (${states})${returning ? " RETURNING *" : ""}`,
      );
      this.#updates.set(key, statement);
    }
    return statement;
  }

  /**
   * Stores a signed transaction under its hash (once: a batch's requests share it). Call inside the
   * transaction that moves its requests to `submitting`, so it is durable before it is broadcast.
   */
  recordTransaction(txHash: string, rawTx: string): void {
    this.#recordTx.run(lower(txHash), lower(rawTx));
  }

  /** The earliest request for this intent that is not `rejected` (approved or still in progress). */
  findByIntentHash(chainId: number, vault: string, intentHash: string): RequestRecord | undefined {
    const row = this.#byIntent.get(chainId, lower(vault), lower(intentHash)) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Requests in `submitting` or `submitted`, oldest first, for reconciliation after a restart. */
  listInFlight(): RequestRecord[] {
    return (this.#inFlight.all() as Row[]).map(fromRow);
  }

  /** Requests that were held for review, in `filter.status` (default `held`), oldest first. */
  listReviews(filter: ReviewFilter = {}): RequestRecord[] {
    const rows = this.#reviews.all({
      status: filter.status ?? "held",
      chainId: filter.chainId ?? null,
      vault: filter.vault === undefined ? null : lower(filter.vault),
    }) as Row[];
    return rows.map(fromRow);
  }

  /** Requests a restart must settle: recorded but neither held, submitted nor final. */
  listUnsettled(): RequestRecord[] {
    return (this.#unsettled.all() as Row[]).map(fromRow);
  }

  /** Received or scanning requests recorded no later than row `maxRowid` (recorded by an earlier process). */
  listUnsettledUpTo(maxRowid: number): RequestRecord[] {
    return (this.#unsettledUpTo.all(maxRowid) as Row[]).map(fromRow);
  }

  /** See Store.claimReview. */
  claimReview(id: string, until: number, now: number): RequestRecord | undefined {
    const row = this.#claimReview.get({ id, until, now }) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  releaseReview(id: string): void {
    this.#releaseReview.run(id);
  }

  /** The last row recorded so far (0 if none). */
  lastRowid(): number {
    return Number((this.#lastRowid.get() as { n: number | bigint }).n);
  }

  /** A bot's recent history on a vault, for the verification agents. `counterparty` is lower-case. */
  botHistory(chainId: number, vault: string, bot: string, counterparty: string, since: number): BotHistoryRow {
    const v = lower(vault);
    const b = lower(bot);
    const totals = this.#history.get(chainId, v, b, since) as { requests: number; rejected: number; approved_usd: number | bigint };
    const usd = (this.#recentApproved.all(chainId, v, b) as { usd_value: string }[]).map((r) => BigInt(r.usd_value)).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    const paid = this.#paidBefore.get(chainId, v, b, lower(counterparty)) as { n: number };
    return {
      requests24h: Number(totals.requests),
      rejected24h: Number(totals.rejected),
      approvedUsd24h: BigInt(totals.approved_usd),
      medianUsd: usd.length === 0 ? 0n : usd[Math.floor(usd.length / 2)]!,
      recentApproved: usd.length,
      knownCounterparty: Number(paid.n) > 0,
    };
  }

  /**
   * Ids of held requests whose review window ended at or before `nowOn(chainId)`, the time on the
   * request's own chain, of those that ended by `latest` (no chain's time is later; call inside a transaction).
   */
  expiringReviewIds(nowOn: (chainId: number) => number, latest: number): string[] {
    const rows = this.#expiring.all(latest) as Array<{ id: string; chain_id: number; review_expires_at: number }>;
    return rows.filter((row) => Number(row.review_expires_at) <= nowOn(Number(row.chain_id))).map((row) => String(row.id));
  }
}
