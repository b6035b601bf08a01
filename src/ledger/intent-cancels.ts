// The `intent_cancels` table: the on-chain cancels that make a rejection final. Every rejection of a
// held request (the owner's, or a review that lapsed) queues, in the same transaction, one row per
// signed intent the request carries (a swap-and-pay's swap too): the relayer key serving the vault
// then sends `cancelIntent` for it, so that no key, leaked or not, can execute the refused signature.
//
// A row is `pending` until its cancel transaction is recorded (signed, nonce reserved, raw bytes
// kept), then `sent` until the chain shows the intent cancelled (or used: nothing left to cancel),
// then `done`. A cancel that failed goes back to `pending` with a later `not_before` (backoff).
// Whoever works on a row claims it first, for a while: a restarted relayer finds the claims of the
// process that stopped void (here, made before it opened the file; on PostgreSQL, made by an
// instance whose heartbeat expired).
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";

export type CancelStatus = "pending" | "sent" | "done";

/** Which cancel: one signed intent on one vault. */
export interface CancelKey {
  chainId: number;
  vault: string;
  intentHash: string;
}

/** One intent to cancel on-chain. Addresses, hashes and raw bytes are lower-case hex. */
export interface IntentCancel extends CancelKey {
  /** The rejected request that carried the intent. */
  requestId: string;
  status: CancelStatus;
  signer?: string;
  nonce?: bigint;
  txHash?: string;
  rawTx?: string;
  /** Failed attempts so far. */
  attempts: number;
  /** Not sent before this (the store's wall clock, unix ms): the backoff after a failure. */
  notBefore: number;
  lastError?: string;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  chain_id: number;
  vault: string;
  intent_hash: string;
  request_id: string;
  status: CancelStatus;
  signer: string | null;
  nonce: string | null;
  tx_hash: string | null;
  raw_tx: string | null;
  attempts: number;
  not_before: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export function cancelFromRow(row: Row): IntentCancel {
  return {
    chainId: Number(row.chain_id),
    vault: row.vault,
    intentHash: row.intent_hash,
    requestId: row.request_id,
    status: row.status,
    ...(row.signer ? { signer: row.signer } : {}),
    ...(row.nonce !== null && row.nonce !== undefined ? { nonce: BigInt(row.nonce) } : {}),
    ...(row.tx_hash ? { txHash: row.tx_hash } : {}),
    ...(row.raw_tx ? { rawTx: row.raw_tx } : {}),
    attempts: Number(row.attempts),
    notBefore: Number(row.not_before),
    ...(row.last_error ? { lastError: row.last_error } : {}),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const KEY = "chain_id = ? AND vault = ? AND intent_hash = ?";
const keyOf = (k: CancelKey) => [k.chainId, k.vault.toLowerCase(), k.intentHash.toLowerCase()] as const;

export class IntentCancels {
  readonly #db: Db;
  /** This connection's name on its claims. */
  readonly #claimant: string;
  /** When this connection opened the file: another's claim made before then is a stopped process's, and void. */
  readonly #openedAt: number;
  readonly #queue: StatementSync;
  readonly #list: StatementSync;
  readonly #claim: StatementSync;
  readonly #status: StatementSync;
  readonly #record: StatementSync;
  readonly #finish: StatementSync;
  readonly #retry: StatementSync;
  readonly #release: StatementSync;

  constructor(db: Db, claimant: string) {
    this.#db = db;
    this.#claimant = claimant;
    this.#openedAt = db.now();
    const s = db.sqlite;
    this.#queue = s.prepare(`INSERT OR IGNORE INTO intent_cancels
      (chain_id, vault, intent_hash, request_id, status, attempts, not_before, created_at, updated_at)
      VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`);
    this.#list = s.prepare("SELECT * FROM intent_cancels WHERE status <> 'done' ORDER BY created_at, rowid");
    // Void: a claim whose time is up, or one another connection made before this one opened the
    // file (a process that stopped: the state directory has one relayer at a time).
    this.#claim = s.prepare(`UPDATE intent_cancels SET claimed_by = ?, claimed_until = ?, claimed_at = ?
      WHERE ${KEY} AND status <> 'done' AND not_before <= ?
        AND (claimed_by IS NULL OR claimed_until <= ? OR (claimed_by <> ? AND claimed_at < ?)) RETURNING *`);
    this.#status = s.prepare(`SELECT status FROM intent_cancels WHERE ${KEY}`);
    this.#record = s.prepare(`UPDATE intent_cancels SET status = 'sent', signer = ?, nonce = ?, tx_hash = ?, raw_tx = ?, updated_at = ? WHERE ${KEY}`);
    this.#finish = s.prepare(`UPDATE intent_cancels SET status = 'done', claimed_by = NULL, claimed_until = NULL, updated_at = ? WHERE ${KEY}`);
    this.#retry = s.prepare(`UPDATE intent_cancels SET status = 'pending', attempts = attempts + 1, last_error = ?, not_before = ?,
      claimed_by = NULL, claimed_until = NULL, updated_at = ? WHERE ${KEY} AND status <> 'done'`);
    this.#release = s.prepare(`UPDATE intent_cancels SET claimed_by = NULL, claimed_until = NULL WHERE ${KEY} AND claimed_by = ?`);
  }

  /** Queues the cancel of an intent the owner refused (the first refusal's row stands). Joins the caller's transaction. */
  queue(key: CancelKey, requestId: string): void {
    const now = this.#db.now();
    this.#queue.run(...keyOf(key), requestId, now, now, now);
  }

  /** Every cancel not yet done, oldest first. */
  list(): IntentCancel[] {
    return (this.#list.all() as unknown as Row[]).map(cancelFromRow);
  }

  /** Claims a cancel that is due (not done, past its backoff) until `untilMs`, unless a live claim holds it. */
  claim(key: CancelKey, untilMs: number): IntentCancel | undefined {
    const now = this.#db.now();
    const row = this.#claim.get(this.#claimant, untilMs, now, ...keyOf(key), now, now, this.#claimant, this.#openedAt) as Row | undefined;
    return row ? cancelFromRow(row) : undefined;
  }

  /** The cancel's status, if queued. */
  statusOf(key: CancelKey): CancelStatus | undefined {
    return (this.#status.get(...keyOf(key)) as { status: CancelStatus } | undefined)?.status;
  }

  /** Records the cancel's signed transaction (the caller reserved its nonce in the same transaction). */
  recordSent(key: CancelKey, sent: { signer: string; nonce: bigint; txHash: string; rawTx: string }): void {
    this.#record.run(sent.signer.toLowerCase(), sent.nonce.toString(), sent.txHash.toLowerCase(), sent.rawTx.toLowerCase(), this.#db.now(), ...keyOf(key));
  }

  /** The chain shows the intent cancelled (or used): nothing more to send. */
  finish(key: CancelKey): void {
    this.#finish.run(this.#db.now(), ...keyOf(key));
  }

  /** The cancel failed: back to pending, sent again no sooner than `waitMs` after its `updated_at`. */
  retry(key: CancelKey, error: string, waitMs: number): void {
    const now = this.#db.now();
    this.#retry.run(error.slice(0, 500), now + waitMs, now, ...keyOf(key));
  }

  /** Gives this process's claim up, the cancel as it is (a sent one waiting for its block). */
  release(key: CancelKey): void {
    this.#release.run(...keyOf(key), this.#claimant);
  }
}
