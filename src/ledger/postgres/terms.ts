// Terms-of-service acceptances on PostgreSQL (semantics of src/ledger/terms.ts): the first
// acceptance of a version stands.
import type { TermsAcceptance } from "../terms.ts";
import type { Query, Row } from "./session.ts";

const columns = "wallet, version, signature, message, at";

function fromRow(row: Row | undefined): TermsAcceptance | undefined {
  return row && { wallet: String(row.wallet), version: String(row.version), signature: String(row.signature), message: String(row.message), at: Number(row.at) };
}

/** Records the acceptance unless this wallet already accepted this version; returns the one that stands. */
export async function recordTermsAcceptance(q: Query, input: Omit<TermsAcceptance, "at">, now: number): Promise<TermsAcceptance> {
  await q(`INSERT INTO terms_acceptances (${columns}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, [
    input.wallet.toLowerCase(),
    input.version,
    input.signature,
    input.message,
    now,
  ]);
  return (await findTermsAcceptance(q, input.wallet, input.version))!;
}

/** This wallet's acceptance of this version, if any. */
export async function findTermsAcceptance(q: Query, wallet: string, version: string): Promise<TermsAcceptance | undefined> {
  return fromRow((await q(`SELECT ${columns} FROM terms_acceptances WHERE wallet = $1 AND version = $2`, [wallet.toLowerCase(), version]))[0]);
}

/** This wallet's most recent acceptance of any version, if any. */
export async function latestTermsAcceptance(q: Query, wallet: string): Promise<TermsAcceptance | undefined> {
  const rows = await q(`SELECT ${columns} FROM terms_acceptances WHERE wallet = $1 ORDER BY at DESC, version DESC LIMIT 1`, [wallet.toLowerCase()]);
  return fromRow(rows[0]);
}
