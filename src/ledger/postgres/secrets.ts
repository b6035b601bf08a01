// Secrets every relayer instance on one database must hold alike (the owner-session signing key,
// so a session made by one instance is accepted by all): created once, by whichever instance asks
// first, and read by the others. The database's access control protects them, as it protects the
// ledger's signed transactions.
import { randomBytes } from "node:crypto";
import type pg from "pg";

/** The secret named `name` (`bytes` random bytes, made on first use); every instance gets the same. */
export async function loadOrCreateSharedSecret(pool: pg.Pool, name: string, bytes = 32): Promise<Uint8Array> {
  // Whoever inserts first wins; everyone then reads the winner's bytes.
  await pool.query("INSERT INTO shared_secrets (name, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING", [name, randomBytes(bytes)]);
  const { rows } = await pool.query<{ secret: Buffer }>("SELECT secret FROM shared_secrets WHERE name = $1", [name]);
  const secret = rows[0]!.secret;
  if (secret.length !== bytes) throw new Error(`shared secret ${name} holds ${secret.length} bytes, not ${bytes}`);
  return new Uint8Array(secret);
}
