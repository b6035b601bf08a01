// The `terms_acceptances` table: which wallet accepted which version of the relayer's terms of
// service, when, and the signed text and signature that prove it. The first acceptance of a version
// stands: accepting it again changes nothing.
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";

/** One wallet's acceptance of one terms version. */
export interface TermsAcceptance {
  wallet: string;
  version: string;
  signature: string;
  message: string;
  /** Unix ms of the first acceptance of this version. */
  at: number;
}

interface Row {
  wallet: string;
  version: string;
  signature: string;
  message: string;
  at: number;
}

export class TermsAcceptances {
  readonly #db: Db;
  readonly #insert: StatementSync;
  readonly #find: StatementSync;
  readonly #latest: StatementSync;

  constructor(db: Db) {
    this.#db = db;
    const s = db.sqlite;
    this.#insert = s.prepare("INSERT OR IGNORE INTO terms_acceptances (wallet, version, signature, message, at) VALUES (?, ?, ?, ?, ?)");
    this.#find = s.prepare("SELECT wallet, version, signature, message, at FROM terms_acceptances WHERE wallet = ? AND version = ?");
    this.#latest = s.prepare("SELECT wallet, version, signature, message, at FROM terms_acceptances WHERE wallet = ? ORDER BY at DESC, version DESC LIMIT 1");
  }

  /** Records the acceptance unless this wallet already accepted this version; returns the one that stands. */
  record(input: Omit<TermsAcceptance, "at">): TermsAcceptance {
    this.#insert.run(input.wallet.toLowerCase(), input.version, input.signature, input.message, this.#db.now());
    return this.find(input.wallet, input.version)!;
  }

  /** This wallet's acceptance of this version, if any. */
  find(wallet: string, version: string): TermsAcceptance | undefined {
    return rowOf(this.#find.get(wallet.toLowerCase(), version) as Row | undefined);
  }

  /** This wallet's most recent acceptance of any version, if any. */
  latest(wallet: string): TermsAcceptance | undefined {
    return rowOf(this.#latest.get(wallet.toLowerCase()) as Row | undefined);
  }
}

function rowOf(row: Row | undefined): TermsAcceptance | undefined {
  return row && { wallet: row.wallet, version: row.version, signature: row.signature, message: row.message, at: Number(row.at) };
}
