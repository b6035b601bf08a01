// Spend windows on PostgreSQL: the `spend` entries and their totals per bot and minute
// (`spend_minutes`) and per coarser bucket (`spend_buckets`, spend-buckets.ts), as in the SQLite
// ledger (src/ledger/spend.ts, whose semantics this keeps). A
// reservation locks its vault's scope first (a transaction-level advisory lock on chain and vault,
// which covers the vault's windows and each of its bots'), then reads the windows and inserts:
// reservations from any number of instances on one vault run one after another, so together they
// never exceed a limit.
import type { ReserveResult, SpendEntry, SpendLimits, WindowQuery, WindowTotals } from "../spend.ts";
import type { Query } from "./session.ts";
import { bucketRows, buckets, bucketStarts, dayMs, hourMs, minuteMs, wholeVault, windowParts } from "../spend-buckets.ts";

const maxUsd = (1n << 63n) - 1n;
const daySeconds = 86_400n;
/** The lengths of the buckets of a bot (`bot`) or of the whole vault, as an SQL list. */
const sizesOf = (bot: boolean): string => buckets.filter((b) => b.bot === bot).map((b) => b.size).join(", ");
/** Advisory-lock namespace of spend scopes (the first key of pg_advisory_xact_lock(int, int)). */
const spendLocks = 1;

function windowMs(windowSeconds: bigint): number {
  const ms = windowSeconds * 1000n;
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(ms);
}

/** One window to total: over `bot`'s spend, or the vault's (all its bots) when `bot` is undefined. */
interface Window {
  bot: string | undefined;
  windowSeconds: bigint;
}

/**
 * The totals of several windows of one vault ending at `at`, in one query: for each, the whole
 * minutes after the one the window starts in (minutes up to the first whole hour, hours up to the
 * first whole day, then days: spend-buckets.ts), plus that minute's entries later than the start.
 * With `requestId`, a row with i = 0 is added when that request already holds a reservation.
 * Totals may exceed 2^63 - 1 here (NUMERIC); callers decide what that means.
 */
async function windowTotals(
  q: Query,
  chainId: number,
  vault: string,
  windows: readonly Window[],
  at: number,
  requestId?: string,
): Promise<{ totals: WindowTotals[]; taken: boolean }> {
  const starts = windows.map(({ windowSeconds }) => at - windowMs(windowSeconds));
  const parts = starts.map(windowParts);
  const rows = await q(
    `SELECT v.i, w.usd + p.usd AS usd, w.count + p.count AS count
     FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
         WITH ORDINALITY AS v(bot, since, first, first_end, first_hour, first_day, i),
       LATERAL (SELECT COALESCE(SUM(x.usd), 0) AS usd, COALESCE(SUM(x.count), 0) AS count FROM (
                  SELECT m.usd, m.count FROM spend_minutes m
                  WHERE v.bot IS NOT NULL AND m.chain_id = $1 AND m.vault = $2 AND m.bot = v.bot AND m.minute > v.first AND m.minute < v.first_hour * 60
                  UNION ALL SELECT b.usd, b.count FROM spend_buckets b
                  WHERE v.bot IS NULL AND b.chain_id = $1 AND b.vault = $2 AND b.bot = '${wholeVault}' AND b.size = ${minuteMs}
                    AND b.start > v.first AND b.start < v.first_hour * 60
                  UNION ALL SELECT b.usd, b.count FROM spend_buckets b
                  WHERE b.chain_id = $1 AND b.vault = $2 AND b.bot = COALESCE(v.bot, '${wholeVault}') AND b.size = ${hourMs}
                    AND b.start >= v.first_hour AND b.start < v.first_day * 24
                  UNION ALL SELECT b.usd, b.count FROM spend_buckets b
                  WHERE b.chain_id = $1 AND b.vault = $2 AND b.bot = COALESCE(v.bot, '${wholeVault}') AND b.size = ${dayMs} AND b.start >= v.first_day
                ) x) w,
       LATERAL (SELECT COALESCE(SUM(usd), 0) AS usd, COUNT(*) AS count FROM spend s
                WHERE s.chain_id = $1 AND s.vault = $2 AND (v.bot IS NULL OR s.bot = v.bot) AND s.at > v.since AND s.at < v.first_end) p
     UNION ALL
     SELECT 0, NULL, NULL WHERE EXISTS (SELECT 1 FROM spend WHERE request_id = $9)
     ORDER BY 1`,
    [
      chainId,
      vault,
      windows.map(({ bot }) => bot ?? null),
      starts,
      parts.map((part) => part.first),
      parts.map((part) => part.firstEnd),
      parts.map((part) => part.firstHour),
      parts.map((part) => part.firstDay),
      requestId ?? null,
    ],
  );
  const taken = rows.length > 0 && Number(rows[0]!.i) === 0;
  const totals = rows.filter((row) => Number(row.i) > 0).map((row) => ({ usd: BigInt(String(row.usd)), count: BigInt(String(row.count)) }));
  return { totals, taken };
}

function fits(totals: WindowTotals): WindowTotals {
  if (totals.usd > maxUsd) throw new RangeError("spend in window exceeds 2^63 - 1 USD units");
  return totals;
}

/**
 * USD and count reserved in one rolling window ending at `query.at` (default `now`). Throws a
 * RangeError when the total exceeds 2^63 - 1, as the SQLite ledger does.
 */
export async function spentInWindow(q: Query, query: WindowQuery, now: number): Promise<WindowTotals> {
  const window = { bot: query.bot?.toLowerCase(), windowSeconds: query.windowSeconds };
  const { totals } = await windowTotals(q, query.chainId, query.vault.toLowerCase(), [window], query.at ?? now);
  return fits(totals[0]!);
}

/**
 * Checks every window and reserves `entry.usd` (call inside a transaction: the scope lock lasts
 * until it ends). Spending exactly up to a limit is allowed. Throws if the request already holds a
 * reservation, or (RangeError) if a window's total no longer fits in 64 bits. Three statements
 * under the lock (lock; every window and the duplicate check; the inserts), so that instances
 * reserving on one vault wait on each other as briefly as possible.
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
  const windows = checks.map(({ limit, scope }) => ({ bot: scope === "bot" ? bot : undefined, windowSeconds: limit.windowSeconds }));
  const { totals, taken } = await windowTotals(q, entry.chainId, vault, windows, at, entry.requestId);
  if (taken) throw new Error(`spend already reserved for ${entry.requestId}`);
  let burst = false;
  for (const [i, { limit, scope }] of checks.entries()) {
    const spent = fits(totals[i]!);
    if (limit.amount > 0n && spent.usd + entry.usd > limit.amount) {
      return {
        ok: false,
        code: limit.windowSeconds === daySeconds ? "EXCEEDS_DAILY_LIMIT" : "EXCEEDS_VELOCITY_LIMIT",
        limit,
        scope,
        spent: spent.usd,
        remaining: limit.amount > spent.usd ? limit.amount - spent.usd : 0n,
      };
    }
    if (limit.maxCount > 0n && spent.count + 1n > limit.maxCount) burst = true;
  }
  await q(
    `WITH entry AS (INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) VALUES ($1, $2, $3, $4, $5, $6)),
       minute AS (INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count) VALUES ($2, $3, $4, $7, $5, 1)
         ON CONFLICT (chain_id, vault, bot, minute) DO UPDATE SET usd = spend_minutes.usd + excluded.usd, count = spend_minutes.count + 1)
     INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
     VALUES ${bucketRows({ chain: "$2", vault: "$3", bot: "$4", usd: "$5", start: (i) => `$${8 + i}` })}
     ON CONFLICT (chain_id, vault, bot, size, start) DO UPDATE SET usd = spend_buckets.usd + excluded.usd, count = spend_buckets.count + 1`,
    [entry.requestId, entry.chainId, vault, bot, entry.usd.toString(), at, Math.floor(at / minuteMs), ...bucketStarts(at)],
  );
  return { ok: true, burst };
}

/** Drops a request's reservation and takes it off its minute's and its buckets' totals. Returns whether one existed. */
export async function releaseSpend(q: Query, requestId: string): Promise<boolean> {
  const [row] = await q(
    `WITH gone AS (DELETE FROM spend WHERE request_id = $1 RETURNING chain_id, vault, bot, usd, at),
       minute AS (UPDATE spend_minutes m SET usd = m.usd - gone.usd, count = m.count - 1 FROM gone
                  WHERE m.chain_id = gone.chain_id AND m.vault = gone.vault AND m.bot = gone.bot AND m.minute = gone.at / ${minuteMs}),
       buckets AS (UPDATE spend_buckets b SET usd = b.usd - gone.usd, count = b.count - 1 FROM gone
                  WHERE b.chain_id = gone.chain_id AND b.vault = gone.vault AND b.start = gone.at / b.size
                    AND ((b.bot = gone.bot AND b.size IN (${sizesOf(true)})) OR (b.bot = '${wholeVault}' AND b.size IN (${sizesOf(false)}))))
     SELECT COUNT(*) AS n FROM gone`,
    [requestId],
  );
  return Number(row!.n) === 1;
}
