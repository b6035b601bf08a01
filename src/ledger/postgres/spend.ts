// Spend windows on PostgreSQL: the `spend` entries and their per-bot, per-minute totals
// (`spend_minutes`), as in the SQLite ledger (src/ledger/spend.ts, whose semantics this keeps). A
// reservation locks its vault's scope first (a transaction-level advisory lock on chain and vault,
// which covers the vault's windows and each of its bots'), then reads the windows and inserts:
// reservations from any number of instances on one vault run one after another, so together they
// never exceed a limit.
import type { ReserveResult, SpendEntry, SpendLimits, WindowQuery, WindowTotals } from "../spend.ts";
import type { Query } from "./session.ts";

const maxUsd = (1n << 63n) - 1n;
const minuteMs = 60_000;
const daySeconds = 86_400n;
/** Advisory-lock namespace of spend scopes (the first key of pg_advisory_xact_lock(int, int)). */
const spendLocks = 1;

function windowMs(windowSeconds: bigint): number {
  const ms = windowSeconds * 1000n;
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(ms);
}

/**
 * USD and count reserved in one rolling window ending at `query.at` (default `now`): the whole
 * minutes after the one the window starts in, from their totals, plus that minute's entries later
 * than the start. Throws a RangeError when the total exceeds 2^63 - 1, as the SQLite ledger does.
 */
export async function spentInWindow(q: Query, query: WindowQuery, now: number): Promise<WindowTotals> {
  const vault = query.vault.toLowerCase();
  const since = (query.at ?? now) - windowMs(query.windowSeconds);
  const first = Math.floor(since / minuteMs);
  const firstEnd = (first + 1) * minuteMs;
  const bot = query.bot?.toLowerCase();
  const scope = bot === undefined ? "chain_id = $1 AND vault = $2" : "chain_id = $1 AND vault = $2 AND bot = $6";
  const values: unknown[] = [query.chainId, vault, first, since, firstEnd];
  if (bot !== undefined) values.push(bot);
  const [row] = await q(
    `SELECT w.usd + p.usd AS usd, w.count + p.count AS count FROM
       (SELECT COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(count), 0) AS count FROM spend_minutes WHERE ${scope} AND minute > $3) w,
       (SELECT COALESCE(SUM(usd), 0) AS usd, COUNT(*) AS count FROM spend WHERE ${scope} AND at > $4 AND at < $5) p`,
    values,
  );
  const usd = BigInt(String(row!.usd));
  if (usd > maxUsd) throw new RangeError("spend in window exceeds 2^63 - 1 USD units");
  return { usd, count: BigInt(String(row!.count)) };
}

/**
 * Checks every window and reserves `entry.usd` (call inside a transaction: the scope lock lasts
 * until it ends). Spending exactly up to a limit is allowed. Throws if the request already holds a
 * reservation, or (RangeError) if a window's total no longer fits in 64 bits.
 */
export async function reserveSpend(q: Query, entry: SpendEntry, limits: SpendLimits, now: number): Promise<ReserveResult> {
  if (entry.usd < 0n || entry.usd > maxUsd) throw new RangeError(`usd out of range: ${entry.usd}`);
  const at = entry.at ?? now;
  const vault = entry.vault.toLowerCase();
  const bot = entry.bot.toLowerCase();
  const checks = [
    ...limits.botLimits.map((limit) => ({ limit, scope: "bot" as const })),
    ...limits.vaultLimits.map((limit) => ({ limit, scope: "vault" as const })),
  ].filter(({ limit }) => limit.windowSeconds > 0n && (limit.amount > 0n || limit.maxCount > 0n));
  await q("SELECT pg_advisory_xact_lock($1, hashtext($2))", [spendLocks, `${entry.chainId}:${vault}`]);
  const existing = await q("SELECT 1 FROM spend WHERE request_id = $1", [entry.requestId]);
  if (existing.length > 0) throw new Error(`spend already reserved for ${entry.requestId}`);
  let burst = false;
  for (const { limit, scope } of checks) {
    const totals = await spentInWindow(
      q,
      { chainId: entry.chainId, vault, bot: scope === "bot" ? bot : undefined, windowSeconds: limit.windowSeconds, at },
      now,
    );
    if (limit.amount > 0n && totals.usd + entry.usd > limit.amount) {
      return {
        ok: false,
        code: limit.windowSeconds === daySeconds ? "EXCEEDS_DAILY_LIMIT" : "EXCEEDS_VELOCITY_LIMIT",
        limit,
        scope,
        spent: totals.usd,
        remaining: limit.amount > totals.usd ? limit.amount - totals.usd : 0n,
      };
    }
    if (limit.maxCount > 0n && totals.count + 1n > limit.maxCount) burst = true;
  }
  await q("INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) VALUES ($1, $2, $3, $4, $5, $6)", [
    entry.requestId,
    entry.chainId,
    vault,
    bot,
    entry.usd.toString(),
    at,
  ]);
  await q(
    `INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count) VALUES ($1, $2, $3, $4, $5, 1)
     ON CONFLICT (chain_id, vault, bot, minute) DO UPDATE SET usd = spend_minutes.usd + excluded.usd, count = spend_minutes.count + 1`,
    [entry.chainId, vault, bot, Math.floor(at / minuteMs), entry.usd.toString()],
  );
  return { ok: true, burst };
}

/** Drops a request's reservation and takes it off its minute's total. Returns whether one existed. */
export async function releaseSpend(q: Query, requestId: string): Promise<boolean> {
  const [row] = await q("DELETE FROM spend WHERE request_id = $1 RETURNING chain_id, vault, bot, usd, at", [requestId]);
  if (!row) return false;
  await q(
    `UPDATE spend_minutes SET usd = usd - $5, count = count - 1
     WHERE chain_id = $1 AND vault = $2 AND bot = $3 AND minute = $4`,
    [row.chain_id, row.vault, row.bot, Math.floor(Number(row.at) / minuteMs), row.usd],
  );
  return true;
}
