// Relayer nonces on PostgreSQL (semantics of src/ledger/nonces.ts): the next nonce per chain and
// signer. A reservation locks the signer's row (created first if missing) until its transaction
// ends, so two instances can never reserve one nonce.
import type { Query } from "./session.ts";

/** max(stored next nonce, the chain's pending nonce); reads only. */
export async function nextNonce(q: Query, chainId: number, signer: string, chainPendingNonce: bigint, forUpdate = false): Promise<bigint> {
  const [row] = await q(`SELECT next FROM nonces WHERE chain_id = $1 AND signer = $2${forUpdate ? " FOR UPDATE" : ""}`, [chainId, signer.toLowerCase()]);
  const stored = row ? BigInt(String(row.next)) : 0n;
  return stored > chainPendingNonce ? stored : chainPendingNonce;
}

/** Reserves `nonce` if it is exactly the next one (call inside a transaction); the expected one otherwise. */
export async function reserveNonce(
  q: Query,
  chainId: number,
  signer: string,
  nonce: bigint,
  chainPendingNonce: bigint,
): Promise<{ ok: true } | { ok: false; expected: bigint }> {
  // A row to lock; 0 changes nothing, the next nonce being at least the chain's.
  await q("INSERT INTO nonces (chain_id, signer, next) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING", [chainId, signer.toLowerCase()]);
  const expected = await nextNonce(q, chainId, signer, chainPendingNonce, true);
  if (nonce !== expected) return { ok: false, expected };
  await setNonce(q, chainId, signer, nonce + 1n);
  return { ok: true };
}

/** Sets the stored next nonce. */
export async function setNonce(q: Query, chainId: number, signer: string, next: bigint): Promise<void> {
  await q(
    "INSERT INTO nonces (chain_id, signer, next) VALUES ($1, $2, $3) ON CONFLICT (chain_id, signer) DO UPDATE SET next = excluded.next",
    [chainId, signer.toLowerCase(), next.toString()],
  );
}
