// Fee-bump replacements on PostgreSQL (semantics of src/ledger/replacements.ts), filed under the
// hash first recorded for the request(s) they carry.
import type { Replacement } from "../replacements.ts";
import type { Query } from "./session.ts";

/** Files a signed replacement of `original` (before it is broadcast); a hash filed twice keeps its first row. */
export async function recordReplacement(q: Query, original: string, txHash: string, rawTx: string, now: number): Promise<Replacement> {
  await q("INSERT INTO replacements (tx_hash, original, raw_tx, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [
    txHash.toLowerCase(),
    original.toLowerCase(),
    rawTx.toLowerCase(),
    now,
  ]);
  return { txHash: txHash.toLowerCase(), rawTx: rawTx.toLowerCase(), createdAt: now };
}

/** The replacements of `original`, oldest first. */
export async function replacementsOf(q: Query, original: string): Promise<Replacement[]> {
  const rows = await q("SELECT tx_hash, raw_tx, created_at FROM replacements WHERE original = $1 ORDER BY created_at, seq", [original.toLowerCase()]);
  return rows.map((row) => ({ txHash: String(row.tx_hash), rawTx: String(row.raw_tx), createdAt: Number(row.created_at) }));
}
