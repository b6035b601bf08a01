// Whether a signed intent may be recorded again (Store.replayOf), in one statement: the owner's
// refusal of it (`refused_intents`: as a request's own intent, or as an intent linked to a refused
// request), else a request that carries it (its own intent_hash, or `linked_intents`) and is not
// rejected. What findRefusal and findByIntentHash read together, in the order the relayer asks
// them (a refusal first), without building the request it finds.
import type { StatementSync } from "node:sqlite";
import type { IntentReplay } from "../relayer/store.ts";
import type { Db } from "./db.ts";

/**
 * The statement's rows, ranked: 0 the intent's own refusal, 1 a refusal of a request it is linked
 * to (that request's own intent refused for that request), 2 a live request of its own, 3 a live
 * request it is linked to. ?1 chain, ?2 vault, ?3 intent hash (lower-case). The linked refusal's
 * joins are CROSS JOINs so that SQLite reads them in that order (the intent's links, their requests,
 * those requests' refusals, each by its key) rather than every refusal of the vault; PostgreSQL
 * plans them as inner joins.
 */
export const replaySql = (p: { chain: string; vault: string; intent: string }): string => `
  SELECT 0 AS tier, request_id, reason, at FROM refused_intents WHERE chain_id = ${p.chain} AND vault = ${p.vault} AND intent_hash = ${p.intent}
  UNION ALL
  SELECT 1, f.request_id, f.reason, f.at FROM linked_intents l CROSS JOIN requests r CROSS JOIN refused_intents f
    WHERE l.chain_id = ${p.chain} AND l.vault = ${p.vault} AND l.intent_hash = ${p.intent} AND r.id = l.request_id
      AND f.chain_id = ${p.chain} AND f.vault = ${p.vault} AND f.intent_hash = r.intent_hash AND f.request_id = l.request_id
  UNION ALL
  SELECT 2, id, NULL, NULL FROM requests WHERE chain_id = ${p.chain} AND vault = ${p.vault} AND intent_hash = ${p.intent} AND status <> 'rejected'
  UNION ALL
  SELECT 3, r.id, NULL, NULL FROM linked_intents l JOIN requests r ON r.id = l.request_id
    WHERE l.chain_id = ${p.chain} AND l.vault = ${p.vault} AND l.intent_hash = ${p.intent} AND r.status <> 'rejected'
  ORDER BY tier LIMIT 1`;

/** A row of {@link replaySql} as the store answers it. */
export function replayFromRow(row: { tier: unknown; request_id: unknown; reason: unknown; at: unknown }): IntentReplay {
  const requestId = String(row.request_id);
  return Number(row.tier) < 2 ? { refusal: { requestId, reason: String(row.reason), at: Number(row.at) } } : { duplicate: requestId };
}

export class IntentReplays {
  readonly #find: StatementSync;

  constructor(db: Db) {
    this.#find = db.sqlite.prepare(replaySql({ chain: "?1", vault: "?2", intent: "?3" }));
  }

  /** See Store.replayOf. */
  find(chainId: number, vault: string, intentHash: string): IntentReplay | undefined {
    const row = this.#find.get(chainId, vault.toLowerCase(), intentHash.toLowerCase()) as Parameters<typeof replayFromRow>[0] | undefined;
    return row ? replayFromRow(row) : undefined;
  }
}
