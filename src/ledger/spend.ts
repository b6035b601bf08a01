// The `spend` table: USD reserved by requests, checked against rolling spending-limit windows,
// totalled from the buckets of spend-buckets.ts, so that a window's cost grows neither with the
// requests in it nor with the vault's bots.
import type { StatementSync } from "node:sqlite";
import { bucketRows, buckets, bucketStarts, dayMs, hourMs, minuteMs, wholeVault, windowParts } from "./spend-buckets.ts";
import type { Db } from "./db.ts";
import type { SpendingLimit } from "../chain/vault-config.ts";

export type { SpendingLimit };

/** The limits that apply to one reservation. */
export interface SpendLimits {
  /** The bot's limits: windows over that bot's spend on the vault. */
  botLimits: readonly SpendingLimit[];
  /** The vault's limits: windows over all its bots' spend. */
  vaultLimits: readonly SpendingLimit[];
}

/** One reservation. `at` (unix ms) defaults to the clock of the entry's chain. */
export interface SpendEntry {
  chainId: number;
  vault: string;
  bot: string;
  requestId: string;
  /** USD, 6 decimals; at most 2^63 - 1. */
  usd: bigint;
  at?: number;
}

/** Result of {@link Spend.reserve}. */
export type ReserveResult =
  /** Reserved; `burst` when a window's `maxCount` is now exceeded (scan it, do not refuse it). */
  | { ok: true; burst: boolean }
  /** Refused, nothing reserved: the first limit (bot limits first, in order) the spend would exceed. */
  | {
      ok: false;
      code: "EXCEEDS_DAILY_LIMIT" | "EXCEEDS_VELOCITY_LIMIT";
      limit: SpendingLimit;
      scope: "bot" | "vault";
      /** USD already counted in that window. */
      spent: bigint;
      /** USD still available in that window (0 when none). */
      remaining: bigint;
    };

/** Window query of {@link Spend.spentInWindow}; without `bot`, the vault's window over all bots. */
export interface WindowQuery {
  chainId: number;
  vault: string;
  bot?: string;
  windowSeconds: bigint;
  /** End of the window, unix ms; defaults to the clock of the query's chain. */
  at?: number;
}

/** USD and number of reservations in a window. */
export interface WindowTotals {
  usd: bigint;
  count: bigint;
}

const maxUsd = (1n << 63n) - 1n;
/** `usd` of a minute or bucket (`spend_minutes`, `spend_buckets`) whose total does not fit in 64 bits. */
const overflowed = -1n;
const daySeconds = 86_400n;

/** Prepared statements and operations on `spend`. */
export class Spend {
  readonly #db: Db;
  readonly #vaultWindow: StatementSync;
  readonly #botWindow: StatementSync;
  readonly #insert: StatementSync;
  readonly #exists: StatementSync;
  readonly #entry: StatementSync;
  readonly #release: StatementSync;
  readonly #minute: StatementSync;
  readonly #setMinute: StatementSync;
  readonly #recount: StatementSync;
  readonly #addToMinute: StatementSync;
  readonly #addToBuckets: StatementSync;
  readonly #bucket: StatementSync;
  readonly #setBucket: StatementSync;
  readonly #recountVault: StatementSync;

  constructor(db: Db) {
    this.#db = db;
    const s = db.sqlite;
    // A window is (end - windowSeconds, end]: an entry exactly windowSeconds old no longer counts.
    // A window in one statement (see spentInWindow): its whole minutes, hours and days, and the
    // entries of the minute it starts in that are later than its start. ?1 chain, ?2 vault, ?3 bot
    // ('' for the vault), minutes in (?4, ?5), hours in [?6, ?7), days from ?8, entries in (?9, ?10).
    // An entry counts 1 and adds its usd; `least` is below 0 only when a bucket had overflowed.
    const window = (minutes: string, entries: string) => `SELECT COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(count), 0) AS count, COALESCE(MIN(usd), 0) AS least FROM (
      ${minutes}
      UNION ALL SELECT usd, count FROM spend_buckets WHERE chain_id = ?1 AND vault = ?2 AND bot = ?3 AND size = ${hourMs} AND start >= ?6 AND start < ?7
      UNION ALL SELECT usd, count FROM spend_buckets WHERE chain_id = ?1 AND vault = ?2 AND bot = ?3 AND size = ${dayMs} AND start >= ?8
      UNION ALL ${entries})`;
    this.#botWindow = s.prepare(
      window(
        "SELECT usd, count FROM spend_minutes WHERE chain_id = ?1 AND vault = ?2 AND bot = ?3 AND minute > ?4 AND minute < ?5",
        "SELECT usd, 1 FROM spend WHERE chain_id = ?1 AND vault = ?2 AND bot = ?3 AND at > ?9 AND at < ?10",
      ),
    );
    this.#vaultWindow = s.prepare(
      window(
        `SELECT usd, count FROM spend_buckets WHERE chain_id = ?1 AND vault = ?2 AND bot = ?3 AND size = ${minuteMs} AND start > ?4 AND start < ?5`,
        "SELECT usd, 1 FROM spend WHERE chain_id = ?1 AND vault = ?2 AND at > ?9 AND at < ?10",
      ),
    );
    this.#insert = s.prepare("INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) VALUES (?, ?, ?, ?, ?, ?)");
    this.#exists = s.prepare("SELECT 1 FROM spend WHERE request_id = ?");
    this.#entry = s.prepare("SELECT chain_id, vault, bot, usd, at FROM spend WHERE request_id = ?");
    this.#release = s.prepare("DELETE FROM spend WHERE request_id = ?");
    this.#minute = s.prepare("SELECT usd, count FROM spend_minutes WHERE chain_id = ? AND vault = ? AND bot = ? AND minute = ?");
    this.#setMinute = s.prepare(
      `INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (chain_id, vault, bot, minute) DO UPDATE SET usd = excluded.usd, count = excluded.count`,
    );
    // One statement adds a reservation to its minute's total; a total past 2^63 - 1 becomes `overflowed`.
    this.#addToMinute = s.prepare(
      `INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count) VALUES (?1, ?2, ?3, ?4, ?5, 1)
       ON CONFLICT (chain_id, vault, bot, minute) DO UPDATE SET
         usd = CASE WHEN usd = ${overflowed} OR usd > ${maxUsd} - excluded.usd THEN ${overflowed} ELSE usd + excluded.usd END,
         count = count + 1`,
    );
    this.#recount = s.prepare("SELECT COALESCE(SUM(usd), 0) AS usd, COUNT(*) AS count FROM spend WHERE chain_id = ? AND vault = ? AND bot = ? AND at >= ? AND at < ?");
    this.#recountVault = s.prepare("SELECT COALESCE(SUM(usd), 0) AS usd, COUNT(*) AS count FROM spend WHERE chain_id = ? AND vault = ? AND at >= ? AND at < ?");
    // One statement adds a reservation to each of its buckets (?1 chain, ?2 vault, ?3 bot, ?4 usd,
    // then each bucket's start), overflowing as #addToMinute.
    this.#addToBuckets = s.prepare(
      `INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
       VALUES ${bucketRows({ chain: "?1", vault: "?2", bot: "?3", usd: "?4", start: (i) => `?${5 + i}` })}
       ON CONFLICT (chain_id, vault, bot, size, start) DO UPDATE SET
         usd = CASE WHEN usd = ${overflowed} OR usd > ${maxUsd} - excluded.usd THEN ${overflowed} ELSE usd + excluded.usd END,
         count = count + 1`,
    );
    this.#bucket = s.prepare("SELECT usd FROM spend_buckets WHERE chain_id = ? AND vault = ? AND bot = ? AND size = ? AND start = ?");
    this.#setBucket = s.prepare("UPDATE spend_buckets SET usd = ?, count = count - 1 WHERE chain_id = ? AND vault = ? AND bot = ? AND size = ? AND start = ?");
    for (const statement of [this.#vaultWindow, this.#botWindow, this.#minute, this.#recount, this.#recountVault, this.#bucket, this.#entry]) {
      statement.setReadBigInts(true);
    }
  }

  /** USD and count reserved in one rolling window. */
  spentInWindow(query: WindowQuery): WindowTotals {
    const vault = query.vault.toLowerCase();
    const since = (query.at ?? this.#db.chainNow(query.chainId)) - windowMs(query.windowSeconds);
    const { first, firstEnd, firstHour, firstDay } = windowParts(since);
    try {
      const bot = query.bot?.toLowerCase();
      const totals = (bot === undefined ? this.#vaultWindow : this.#botWindow).get(
        query.chainId,
        vault,
        bot ?? wholeVault,
        first,
        firstHour * 60,
        firstHour,
        firstDay * 24,
        firstDay,
        since,
        firstEnd,
      ) as { usd: bigint; count: bigint; least: bigint };
      if (totals.least < 0n || totals.usd > maxUsd) throw new Error("integer overflow");
      return { usd: totals.usd, count: totals.count };
    } catch (error) {
      // SQLite's SUM refuses to overflow 64 bits rather than wrap; say so plainly.
      if (error instanceof Error && /integer overflow/.test(error.message)) {
        throw new RangeError("spend in window exceeds 2^63 - 1 USD units", { cause: error });
      }
      throw error;
    }
  }

  /**
   * Checks every window and reserves `entry.usd` in one IMMEDIATE transaction, so concurrent
   * callers (in this process or another one on the same file) can never together exceed a limit.
   * Spending exactly up to a limit's amount is allowed. Throws if the request already holds a
   * reservation, or (RangeError) if a window's total no longer fits in 64 bits.
   */
  reserve(entry: SpendEntry, limits: SpendLimits): ReserveResult {
    if (entry.usd < 0n || entry.usd > maxUsd) throw new RangeError(`usd out of range: ${entry.usd}`);
    // The entry's chain's time: moving another chain's time (a devnet's) never empties these windows.
    const at = entry.at ?? this.#db.chainNow(entry.chainId);
    const checks = [
      ...limits.botLimits.map((limit) => ({ limit, scope: "bot" as const })),
      ...limits.vaultLimits.map((limit) => ({ limit, scope: "vault" as const })),
    ].filter(({ limit }) => limit.windowSeconds > 0n && (limit.amount > 0n || limit.maxCount > 0n));
    return this.#db.transaction((): ReserveResult => {
      if (this.#exists.get(entry.requestId)) throw new Error(`spend already reserved for ${entry.requestId}`);
      let burst = false;
      for (const { limit, scope } of checks) {
        const totals = this.spentInWindow({
          chainId: entry.chainId,
          vault: entry.vault,
          bot: scope === "bot" ? entry.bot : undefined,
          windowSeconds: limit.windowSeconds,
          at,
        });
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
      const vault = entry.vault.toLowerCase();
      const bot = entry.bot.toLowerCase();
      this.#insert.run(entry.requestId, entry.chainId, vault, bot, entry.usd, at);
      this.#addToMinute.run(entry.chainId, vault, bot, Math.floor(at / minuteMs), entry.usd);
      this.#addToBuckets.run(entry.chainId, vault, bot, entry.usd, ...bucketStarts(at));
      return { ok: true, burst };
    });
  }

  /** Drops a request's reservation (rejected, or failed before execution). Returns whether one existed. */
  release(requestId: string): boolean {
    return this.#db.transaction(() => {
      const row = this.#entry.get(requestId) as { chain_id: bigint; vault: string; bot: string; usd: bigint; at: bigint } | undefined;
      if (!row) return false;
      const chainId = Number(row.chain_id);
      const at = Number(row.at);
      this.#release.run(requestId);
      // Recount that minute from its entries (exact even when its total had overflowed).
      const minute = Math.floor(at / minuteMs);
      let usd: bigint;
      let count: bigint;
      try {
        ({ usd, count } = this.#recount.get(chainId, row.vault, row.bot, minute * minuteMs, (minute + 1) * minuteMs) as { usd: bigint; count: bigint });
      } catch {
        const before = this.#minute.get(chainId, row.vault, row.bot, minute) as { count: bigint };
        ({ usd, count } = { usd: overflowed, count: before.count - 1n });
      }
      this.#setMinute.run(chainId, row.vault, row.bot, minute, usd, count);
      // The coarser buckets: the entry comes off each; one whose total had overflowed is recounted
      // from its entries instead (still overflowed if they do not fit either).
      const starts = bucketStarts(at);
      for (const [i, { bot: own, size }] of buckets.entries()) {
        const bot = own ? row.bot : wholeVault;
        const start = starts[i]!;
        const bucket = this.#bucket.get(chainId, row.vault, bot, size, start) as { usd: bigint } | undefined;
        if (!bucket) continue;
        let left = bucket.usd - row.usd;
        if (bucket.usd === overflowed) {
          try {
            const from = start * size;
            const recounted = (bot === wholeVault ? this.#recountVault.get(chainId, row.vault, from, from + size) : this.#recount.get(chainId, row.vault, bot, from, from + size)) as { usd: bigint };
            left = recounted.usd;
          } catch {
            left = overflowed;
          }
        }
        this.#setBucket.run(left, chainId, row.vault, bot, size, start);
      }
      return true;
    });
  }
}

function windowMs(windowSeconds: bigint): number {
  const ms = windowSeconds * 1000n;
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(ms);
}
