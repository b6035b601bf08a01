// Bot and vault limits from command-line flags: USD amounts (6 decimals on-chain) and rolling windows.
import type { BotConfigParams, SpendingLimit } from "../../chain/vault-config.ts";
import { formatUnits, parseUnits } from "../../../packages/client/src/units.ts";
import { CliError, EXIT } from "../io.ts";

const usage = (message: string) => new CliError(message, EXIT.USAGE);
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A USD amount ("50000", "0.5") as the vault stores it: 6 decimals. */
export function parseUsd(text: string, flag: string): bigint {
  try {
    return parseUnits(text, 6);
  } catch {
    throw usage(`${flag} must be a USD amount with at most 6 decimals, got "${text}"`);
  }
}

/** "3600", "90s", "30m", "1h", "7d" → seconds. */
export function parseDuration(text: string, flag: string): bigint {
  const match = /^(\d+)([smhd]?)$/.exec(text);
  if (!match || Number(match[1]) === 0) throw usage(`${flag} window must be a duration like 3600, 30m, 1h or 1d, got "${text}"`);
  return BigInt(Number(match[1]) * UNIT_SECONDS[match[2] || "s"]!);
}

/** `--limit <usd>/<window>[/<maxCount>]`, e.g. `1000/1h` or `250000/1d/100`. */
export function parseLimit(text: string): SpendingLimit {
  const [amount, window, count, ...rest] = text.split("/");
  if (amount === undefined || window === undefined || rest.length > 0) throw usage(`--limit must be <usd>/<window>[/<maxCount>], e.g. 1000/1h or 250000/1d/100; got "${text}"`);
  if (count !== undefined && !/^\d+$/.test(count)) throw usage(`--limit maxCount must be a whole number, got "${count}"`);
  return { amount: parseUsd(amount, "--limit"), windowSeconds: parseDuration(window, "--limit"), maxCount: BigInt(count ?? 0) };
}

export interface BotLimitFlags {
  maxPerTx?: string;
  maxRebalance?: string;
  dailyLimit?: string;
  limit?: string[];
  clearLimits?: boolean;
  aiThreshold?: string;
  requireAi?: boolean;
  requireReview?: boolean;
}

/** No limit set anywhere (0 means "not set" on-chain). */
export const UNLIMITED: BotConfigParams = Object.freeze({
  maxPerTxAmount: 0n,
  maxRebalanceAmount: 0n,
  spendingLimits: [],
  aiTriggerThreshold: 0n,
  requireAiVerification: false,
  requireHumanReview: false,
});

/** `base` with the flags that were given applied (for `bot add`, base is UNLIMITED; for `update`, the current config). */
export function applyLimitFlags(base: BotConfigParams, flags: BotLimitFlags): BotConfigParams {
  const config: BotConfigParams = { ...base, spendingLimits: [...base.spendingLimits] };
  if (flags.maxPerTx !== undefined) config.maxPerTxAmount = parseUsd(flags.maxPerTx, "--max-per-tx");
  if (flags.maxRebalance !== undefined) config.maxRebalanceAmount = parseUsd(flags.maxRebalance, "--max-rebalance");
  if (flags.aiThreshold !== undefined) config.aiTriggerThreshold = parseUsd(flags.aiThreshold, "--ai-threshold");
  if (flags.requireAi !== undefined) config.requireAiVerification = flags.requireAi;
  if (flags.requireReview !== undefined) config.requireHumanReview = flags.requireReview;
  const windows = [
    ...(flags.dailyLimit === undefined ? [] : [{ amount: parseUsd(flags.dailyLimit, "--daily-limit"), maxCount: 0n, windowSeconds: 86_400n }]),
    ...(flags.limit ?? []).map(parseLimit),
  ];
  if (flags.clearLimits) config.spendingLimits = [];
  if (windows.length > 0) config.spendingLimits = windows;
  if (config.spendingLimits.length > 5) throw usage(`at most 5 spending limits, got ${config.spendingLimits.length}`);
  return config;
}

const usd = (amount: bigint) => (amount === 0n ? "not set" : `$${formatUnits(amount, 6)}`);

/** Human lines describing a bot's configuration. */
export function describeConfig(config: BotConfigParams): [string, string][] {
  return [
    ["maxPerTx", usd(config.maxPerTxAmount)],
    ["maxRebalance", usd(config.maxRebalanceAmount)],
    ["aiThreshold", usd(config.aiTriggerThreshold)],
    ["requireAi", String(config.requireAiVerification)],
    ["requireReview", String(config.requireHumanReview)],
    ...config.spendingLimits.map(
      (l, i) => [`limit ${i + 1}`, `${usd(l.amount)} per ${l.windowSeconds}s${l.maxCount === 0n ? "" : `, at most ${l.maxCount} requests`}`] as [string, string],
    ),
  ];
}
