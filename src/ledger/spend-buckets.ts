// The buckets a spend window is totalled from, shared by both stores (spend.ts, postgres/spend.ts).
// Each reservation adds to its bot's totals per minute (`spend_minutes`), hour and day, and to its
// vault's totals per minute, hour and day (`spend_buckets`, bot ''). A window is the entries of
// the minute it starts in that are later than its start, then every whole minute after that one:
// the minutes up to the first whole hour, the hours up to the first whole day, then whole days.
// So a window reads about 59 + 23 rows plus one per day, however many requests and bots it holds.

export const minuteMs = 60_000;
export const hourMs = 3_600_000;
export const dayMs = 86_400_000;

/** The bot of the vault's own totals in `spend_buckets` (all its bots together). */
export const wholeVault = "";

/** Where a window starting after `since` (unix ms) reads each of its parts. */
export interface WindowParts {
  /** The minute `since` falls in: its entries later than `since` count, from `spend`. */
  first: number;
  /** The end of that minute (ms). */
  firstEnd: number;
  /** Whole minutes in (first, firstHour × 60), then whole hours in [firstHour, firstDay × 24), then days from firstDay. */
  firstHour: number;
  firstDay: number;
}

export function windowParts(since: number): WindowParts {
  const first = Math.floor(since / minuteMs);
  const firstHour = Math.ceil((first + 1) / 60);
  return { first, firstEnd: (first + 1) * minuteMs, firstHour, firstDay: Math.ceil(firstHour / 24) };
}

/**
 * The coarser buckets each reservation adds to, beside its bot's minute in `spend_minutes`: the
 * bot's own (`bot`) or the whole vault's, and their length in ms.
 */
export const buckets: readonly { bot: boolean; size: number }[] = [
  { bot: true, size: hourMs },
  { bot: true, size: dayMs },
  { bot: false, size: minuteMs },
  { bot: false, size: hourMs },
  { bot: false, size: dayMs },
];

/** Where an entry at `at` (unix ms) falls: its start in each of {@link buckets}, in order. */
export function bucketStarts(at: number): number[] {
  return buckets.map(({ size }) => Math.floor(at / size));
}

/**
 * The `spend_buckets` rows (chain_id, vault, bot, size, start, usd, count) a reservation adds, as
 * SQL VALUES, from the placeholders of its chain, vault, bot and usd and of each bucket's start.
 */
export function bucketRows(p: { chain: string; vault: string; bot: string; usd: string; start(i: number): string }): string {
  return buckets.map(({ bot, size }, i) => `(${p.chain}, ${p.vault}, ${bot ? p.bot : `'${wholeVault}'`}, ${size}, ${p.start(i)}, ${p.usd}, 1)`).join(", ");
}

/**
 * Fills `spend_buckets` from the `spend` entries (an empty table: a bench's bulk fill), start =
 * at / size. The same SQL for SQLite and PostgreSQL.
 */
export const spendBucketsFromSpend = buckets
  .map(
    ({ bot, size }) => `INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
    SELECT chain_id, vault, ${bot ? "bot" : `'${wholeVault}'`}, ${size}, at / ${size}, SUM(usd), COUNT(*) FROM spend
    GROUP BY chain_id, vault, ${bot ? "bot, " : ""}at / ${size};`,
  )
  .join("\n  ");

/**
 * What the migrations that made `spend_buckets` (SQLite 10, PostgreSQL 6) filled it with: the SQL of
 * {@link spendBucketsFromSpend} for the buckets of that release, written out so that those released
 * migrations stay as they ran whatever {@link buckets} becomes. Never edit: a change to the buckets
 * needs a new migration of its own.
 */
export const spendBucketsFirstFill = `INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
    SELECT chain_id, vault, bot, 3600000, at / 3600000, SUM(usd), COUNT(*) FROM spend
    GROUP BY chain_id, vault, bot, at / 3600000;
  INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
    SELECT chain_id, vault, bot, 86400000, at / 86400000, SUM(usd), COUNT(*) FROM spend
    GROUP BY chain_id, vault, bot, at / 86400000;
  INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
    SELECT chain_id, vault, '', 60000, at / 60000, SUM(usd), COUNT(*) FROM spend
    GROUP BY chain_id, vault, at / 60000;
  INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
    SELECT chain_id, vault, '', 3600000, at / 3600000, SUM(usd), COUNT(*) FROM spend
    GROUP BY chain_id, vault, at / 3600000;
  INSERT INTO spend_buckets (chain_id, vault, bot, size, start, usd, count)
    SELECT chain_id, vault, '', 86400000, at / 86400000, SUM(usd), COUNT(*) FROM spend
    GROUP BY chain_id, vault, at / 86400000;`;
