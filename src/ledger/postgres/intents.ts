// Per-intent state on PostgreSQL: the intent lock that makes an intent claim atomic across
// instances, the owner's refusals (`refused_intents`) and the intents a request carries besides its
// own (`linked_intents`), with the semantics of src/ledger/refusals.ts and linked-intents.ts.
import type { Refusal } from "../refusals.ts";
import type { IntentReplay } from "../../relayer/store.ts";
import { replayFromRow, replaySql } from "../intent-replays.ts";
import type { Query } from "./session.ts";

/** Advisory-lock namespace of intents (the first key of pg_advisory_xact_lock(int, int)). */
const intentLocks = 2;

/**
 * Locks one intent until the transaction ends. An intent claim (refusal check, duplicate check,
 * createRequest, linkIntent) takes it before it reads, and a refusal before it writes, so claims of
 * one intent from any instances run one after another and each sees what the previous committed.
 * Its own statement: under READ COMMITTED the reads that follow see every commit made before the
 * lock was granted.
 */
export async function lockIntent(q: Query, chainId: number, vault: string, intentHash: string): Promise<void> {
  await q("SELECT pg_advisory_xact_lock($1, hashtext($2))", [intentLocks, `${chainId}:${vault.toLowerCase()}:${intentHash.toLowerCase()}`]);
}

/** Records that the owner refused this intent (the first refusal stands). */
export async function recordRefusal(q: Query, chainId: number, vault: string, intentHash: string, requestId: string, reason: string, now: number): Promise<void> {
  await q(
    `INSERT INTO refused_intents (chain_id, vault, intent_hash, request_id, reason, at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT DO NOTHING`,
    [chainId, vault.toLowerCase(), intentHash.toLowerCase(), requestId, reason, now],
  );
}

/** The refusal of this intent (as a request's own intent), if the owner refused it. */
export async function findOwnRefusal(q: Query, chainId: number, vault: string, intentHash: string): Promise<Refusal | undefined> {
  const [row] = await q("SELECT request_id, reason, at FROM refused_intents WHERE chain_id = $1 AND vault = $2 AND intent_hash = $3", [
    chainId,
    vault.toLowerCase(),
    intentHash.toLowerCase(),
  ]);
  return row ? { requestId: String(row.request_id), reason: String(row.reason), at: Number(row.at) } : undefined;
}

/** Records that request `requestId` carries `intentHash` besides its own. */
export async function linkIntent(q: Query, chainId: number, vault: string, intentHash: string, requestId: string): Promise<void> {
  await q("INSERT INTO linked_intents (chain_id, vault, intent_hash, request_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [
    chainId,
    vault.toLowerCase(),
    intentHash.toLowerCase(),
    requestId,
  ]);
}

/** Ids of the requests that carry this intent besides their own. */
export async function requestsLinkedTo(q: Query, chainId: number, vault: string, intentHash: string): Promise<string[]> {
  const rows = await q("SELECT request_id FROM linked_intents WHERE chain_id = $1 AND vault = $2 AND intent_hash = $3", [
    chainId,
    vault.toLowerCase(),
    intentHash.toLowerCase(),
  ]);
  return rows.map((row) => String(row.request_id));
}

const replay = replaySql({ chain: "$1", vault: "$2", intent: "$3" });

/** See Store.replayOf: the intent's refusal, else a live request carrying it, in one statement. */
export async function findReplay(q: Query, chainId: number, vault: string, intentHash: string): Promise<IntentReplay | undefined> {
  const [row] = await q(replay, [chainId, vault.toLowerCase(), intentHash.toLowerCase()]);
  return row ? replayFromRow(row as Parameters<typeof replayFromRow>[0]) : undefined;
}
