// The `replacements` table: transactions signed to replace a broadcast one (same signer and nonce,
// higher fees), filed under the hash first recorded for the request(s) it carries. Any one of the
// original and its replacements may be the one that mines.
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";

/** One signed replacement. Hashes and raw bytes are lower-case hex. */
export interface Replacement {
  txHash: string;
  rawTx: string;
  createdAt: number;
}

/** Prepared statements and operations on `replacements`. */
export class Replacements {
  readonly #db: Db;
  readonly #insert: StatementSync;
  readonly #list: StatementSync;

  constructor(db: Db) {
    this.#db = db;
    const s = db.sqlite;
    this.#insert = s.prepare("INSERT OR IGNORE INTO replacements (tx_hash, original, raw_tx, created_at) VALUES (?, ?, ?, ?)");
    this.#list = s.prepare("SELECT tx_hash, raw_tx, created_at FROM replacements WHERE original = ? ORDER BY created_at, rowid");
  }

  /** Files a signed replacement of `original` (before it is broadcast). */
  record(original: string, txHash: string, rawTx: string): Replacement {
    const createdAt = this.#db.now();
    this.#db.transaction(() => this.#insert.run(txHash.toLowerCase(), original.toLowerCase(), rawTx.toLowerCase(), createdAt));
    return { txHash: txHash.toLowerCase(), rawTx: rawTx.toLowerCase(), createdAt };
  }

  /** The replacements of `original`, oldest first. */
  of(original: string): Replacement[] {
    return (this.#list.all(original.toLowerCase()) as Array<{ tx_hash: string; raw_tx: string; created_at: number }>).map((row) => ({
      txHash: row.tx_hash,
      rawTx: row.raw_tx,
      createdAt: Number(row.created_at),
    }));
  }
}
