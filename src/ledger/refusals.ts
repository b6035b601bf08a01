// The `refused_intents` table: intents the owner rejected, or whose review lapsed undecided. Keyed
// by the intent's EIP-712 digest on its vault, so a refusal binds every later submission of the same
// signed intent, under any idempotency key and with any unsigned fields.
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";

/** Why and when an intent was refused, and the request that was refused. */
export interface Refusal {
  requestId: string;
  reason: string;
  /** Unix ms by the intent's chain's clock. */
  at: number;
}

export class Refusals {
  readonly #db: Db;
  readonly #insert: StatementSync;
  readonly #find: StatementSync;

  constructor(db: Db) {
    this.#db = db;
    const s = db.sqlite;
    this.#insert = s.prepare(`INSERT OR IGNORE INTO refused_intents (chain_id, vault, intent_hash, request_id, reason, at)
      VALUES (?, ?, ?, ?, ?, ?)`);
    this.#find = s.prepare("SELECT request_id, reason, at FROM refused_intents WHERE chain_id = ? AND vault = ? AND intent_hash = ?");
  }

  /** Records that the owner refused this intent (the first refusal stands). */
  record(chainId: number, vault: string, intentHash: string, requestId: string, reason: string): void {
    this.#insert.run(chainId, vault.toLowerCase(), intentHash.toLowerCase(), requestId, reason, this.#db.chainNow(chainId));
  }

  /** The refusal of this intent, if the owner refused it. */
  find(chainId: number, vault: string, intentHash: string): Refusal | undefined {
    const row = this.#find.get(chainId, vault.toLowerCase(), intentHash.toLowerCase()) as
      | { request_id: string; reason: string; at: number }
      | undefined;
    return row ? { requestId: row.request_id, reason: row.reason, at: Number(row.at) } : undefined;
  }
}
