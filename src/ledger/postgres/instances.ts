// Which relayer instances on a shared database are alive: each one renews its row in `instances`
// (a heartbeat with an expiry by the database's clock) while it runs, and stamps the requests it
// records with its id. A received or scanning request whose instance's heartbeat has expired was
// interrupted by that instance's death; a surviving instance settles it (reconcile.ts).
import type { Query } from "./session.ts";
import { dbNow } from "./leases.ts";

/** Marks instance `id` alive for `ttlMs` more. */
export async function heartbeat(q: Query, id: string, ttlMs: number): Promise<void> {
  await q(
    `INSERT INTO instances (id, expires_at) VALUES ($1, ${dbNow} + $2)
     ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
    [id, Math.ceil(ttlMs)],
  );
}

/** Forgets instances dead for more than a day (their requests, if any are left, count as interrupted all the same). */
export async function pruneInstances(q: Query): Promise<void> {
  await q(`DELETE FROM instances WHERE expires_at < ${dbNow} - 86400000`);
}
