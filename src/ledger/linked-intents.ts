// The `linked_intents` table: signed intents a request carries besides its own intent_hash (a
// swap-and-pay's swap). The ledger answers for them as for the request's own hash: a linked
// intent is a duplicate while its request is live, and refused when its request was refused.
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";

export class LinkedIntents {
  readonly #insert: StatementSync;
  readonly #requestsOf: StatementSync;
  readonly #carriedBy: StatementSync;

  constructor(db: Db) {
    const s = db.sqlite;
    this.#insert = s.prepare("INSERT OR IGNORE INTO linked_intents (chain_id, vault, intent_hash, request_id) VALUES (?, ?, ?, ?)");
    this.#requestsOf = s.prepare("SELECT request_id FROM linked_intents WHERE chain_id = ? AND vault = ? AND intent_hash = ?");
    this.#carriedBy = s.prepare("SELECT intent_hash FROM linked_intents WHERE request_id = ?");
  }

  link(chainId: number, vault: string, intentHash: string, requestId: string): void {
    this.#insert.run(chainId, vault.toLowerCase(), intentHash.toLowerCase(), requestId);
  }

  /** Ids of the requests that carry this intent besides their own. */
  requestsOf(chainId: number, vault: string, intentHash: string): string[] {
    return (this.#requestsOf.all(chainId, vault.toLowerCase(), intentHash.toLowerCase()) as { request_id: string }[]).map((r) => r.request_id);
  }

  /** The intents request `requestId` carries besides its own. */
  carriedBy(requestId: string): string[] {
    return (this.#carriedBy.all(requestId) as { intent_hash: string }[]).map((r) => r.intent_hash);
  }
}
