// Reserving a request's USD value in its rolling spend windows, inside the transaction that records
// it (relayer.ts): two requests together above a limit can never both pass.
import type { RelayRequest } from "../../api/validate.ts";
import { relayError } from "../../errors.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import type { StoreOps } from "../store.ts";
import { formatUsd } from "../usd.ts";

/**
 * Payments and executes: the bot's and the vault's windows (403 EXCEEDS_DAILY_LIMIT for a 86400 s
 * window, else EXCEEDS_VELOCITY_LIMIT). `burst`: a window's maxCount was passed, which is scanned.
 */
export async function reservePaymentWindows(tx: StoreOps, request: RelayRequest, snapshot: PolicySnapshot, requestId: string): Promise<{ burst: boolean }> {
  const reserved = await tx.reserveSpend(
    { chainId: request.chainId, vault: request.vaultAddress, bot: request.intent.bot, requestId, usd: snapshot.usdValue },
    { botLimits: snapshot.config.spendingLimits, vaultLimits: snapshot.vaultLimits },
  );
  if (!reserved.ok) {
    const scope = reserved.scope === "bot" ? "the bot's" : "the vault's";
    throw relayError(reserved.code, `${scope} limit of ${formatUsd(reserved.limit.amount)} USD per ${reserved.limit.windowSeconds} s has ${formatUsd(reserved.remaining)} USD left`);
  }
  return { burst: reserved.burst };
}

/**
 * A swap's value counts against the bot's swap volume window, which the owner sets on-chain
 * (setBotSwapLimit). Swaps keep their own windows, apart from payments and executes: the ledger's
 * spend scope for them is the vault's address with a `#swap` suffix. A swap-and-pay counts twice,
 * as what it is: its payment in the payment windows, its swap here (swap-and-pay.ts reserveSwapLeg).
 */
export async function reserveSwapVolume(tx: StoreOps, request: RelayRequest, snapshot: PolicySnapshot, requestId: string): Promise<{ burst: boolean }> {
  const limit = snapshot.swapLimit;
  if (limit.amount === 0n || limit.windowSeconds === 0n) return { burst: false };
  const reserved = await tx.reserveSpend(
    { chainId: request.chainId, vault: `${request.vaultAddress}#swap`, bot: request.intent.bot, requestId, usd: snapshot.usdValue },
    { botLimits: [{ amount: limit.amount, maxCount: 0n, windowSeconds: limit.windowSeconds }], vaultLimits: [] },
  );
  if (!reserved.ok) {
    throw relayError("EXCEEDS_REBALANCE_LIMIT", `the bot's swap volume limit of ${formatUsd(limit.amount)} USD per ${limit.windowSeconds} s has ${formatUsd(reserved.remaining)} USD left`);
  }
  return { burst: false };
}
