// SWAP_REQUIRED: a payment (without a swap) in a token the vault holds too little of, which another
// token the vault holds could cover through a swap. Instead of 422 INSUFFICIENT_BALANCE the bot is
// told which swaps would do, so that it can re-send the same payment with a signed swap (the
// production SDK's auto-swap does exactly that).
//
// An option is a swap the bot could sign and the relayer would accept, judged by the rules of a
// swap request (checkPolicy and chooseRoute, not a copy of them):
// - from a configured ERC-20 of the chain (chain.config.tokens), other than the payment token, of
//   which the vault holds enough to yield the whole payment amount at the best router quote;
// - into the payment token, which must be on the vault's rebalance whitelist (or the registry's
//   default one when the vault sets none);
// - worth at most the bot's maxRebalanceAmount, with priced (not stale) feeds;
// - quoting at least the vault's slippage floor for the amount swapped.
// The swap is sized to yield the whole payment amount (swapMinToAmount = amount), not only the
// shortfall: the swap-and-pay rule is swapMinToAmount ≥ the payment amount.
import { zeroHash, type Address } from "viem";
import type { PaymentRequest, SwapRequest } from "../../api/validate.ts";
import { isEth } from "../../chain/eth.ts";
import { isRelayError } from "../../errors.ts";
import type { ChainRuntime, SnapshotQuery } from "../chain/chain-runtime.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import { checkPolicy } from "../policy/index.ts";
import { chooseRoute } from "../chain/simulate.ts";

/** One swap that would cover the payment, as the fields of a signed swap. Amounts in base units. */
export interface SwapOption {
  /** swapFromToken. */
  fromToken: Address;
  symbol: string;
  /** swapMaxFromAmount: covers the payment at the current quote, plus SWAP_MARGIN_BPS. */
  maxFromAmount: bigint;
  /** The best router quote for maxFromAmount at the block the request was read at. */
  quotedOut: bigint;
  /** swapToToken: the payment token. */
  toToken: Address;
  /** swapMinToAmount: the payment amount. */
  minToAmount: bigint;
}

/** Headroom on the from-amount, so that a small price move before the signed retry still covers it. */
export const SWAP_MARGIN_BPS = 100n;

/**
 * The swaps that would cover `request` (empty when none would: the payment stays 422
 * INSUFFICIENT_BALANCE), read at `blockNumber`, best quote first.
 */
export async function findSwapOptions(chain: ChainRuntime, request: PaymentRequest, blockNumber: bigint): Promise<SwapOption[]> {
  const { token, amount } = request.intent;
  if (isEth(token)) return []; // the routers swap ERC-20s only
  const candidates = Object.entries(chain.config.tokens)
    .map(([symbol, info]) => ({ symbol, fromToken: info.address as Address }))
    .filter((c) => !isEth(c.fromToken) && c.fromToken.toLowerCase() !== token.toLowerCase());
  if (candidates.length === 0) return [];

  // What the vault holds of each candidate.
  const held = await chain.snapshots(candidates.map((c) => swapQuery(request, c.fromToken, 0n)), blockNumber);
  const sized: Array<{ symbol: string; fromToken: Address; maxFromAmount: bigint }> = [];
  for (const [i, c] of candidates.entries()) {
    const balance = held[i]!.balances[0]!;
    if (balance === 0n) continue;
    // All of it at the best quote must yield the payment; then take the proportional share plus margin.
    const all = await routeFor(chain, swapOf(request, c.fromToken, balance), blockNumber, 0n);
    if (all === undefined) continue;
    const share = ceilDiv(balance * amount, all);
    const withMargin = ceilDiv(share * (10_000n + SWAP_MARGIN_BPS), 10_000n);
    sized.push({ ...c, maxFromAmount: withMargin < balance ? withMargin : balance });
  }
  if (sized.length === 0) return [];

  // The swap rules at the sized amounts: whitelist, rebalance cap, feeds, slippage floor, quote.
  const snapshots = await chain.snapshots(sized.map((s) => swapQuery(request, s.fromToken, s.maxFromAmount)), blockNumber);
  const options: SwapOption[] = [];
  for (const [i, s] of sized.entries()) {
    const swap = swapOf(request, s.fromToken, s.maxFromAmount);
    if (!allowedBySwapPolicy(swap, snapshots[i]!)) continue;
    const quotedOut = await routeFor(chain, swap, blockNumber, snapshots[i]!.swapFloor);
    if (quotedOut === undefined) continue;
    options.push({ ...s, quotedOut, toToken: token, minToAmount: amount });
  }
  return options.sort((a, b) => (a.quotedOut > b.quotedOut ? -1 : a.quotedOut < b.quotedOut ? 1 : 0));
}

/** The answer's reason for a payment that a swap would cover. */
export function swapRequiredReason(request: PaymentRequest, balance: bigint, options: readonly SwapOption[]): string {
  const from = options.map((o) => o.symbol).join(", ");
  return `the vault holds ${balance} of token ${request.intent.token}, needs ${request.intent.amount}; a swap from ${from} would cover it: re-send the payment with a signed swap (see swapOptions)`;
}

/** The swap the bot would sign: `maxFromAmount` of `fromToken` into at least the payment amount. */
function swapOf(request: PaymentRequest, fromToken: Address, maxFromAmount: bigint): SwapRequest {
  const { bot, token, amount, deadline } = request.intent;
  return {
    kind: "swap",
    chainId: request.chainId,
    vaultAddress: request.vaultAddress,
    signature: "0x",
    idempotencyKey: request.idempotencyKey,
    intent: { bot, toToken: token, minToAmount: amount, fromToken, maxFromAmount, deadline, ref: zeroHash },
  };
}

/** The policy lens query of that swap (as snapshotQuery builds it for a swap request). */
function swapQuery(request: PaymentRequest, fromToken: Address, maxFromAmount: bigint): SnapshotQuery {
  return { vault: request.vaultAddress, bot: request.intent.bot, intentHash: zeroHash, tokens: [fromToken], amounts: [maxFromAmount], toToken: request.intent.token };
}

/** Whether a swap request would pass checkPolicy (a refusal there means: not an option). */
function allowedBySwapPolicy(swap: SwapRequest, snapshot: PolicySnapshot): boolean {
  try {
    checkPolicy(swap, snapshot);
    return true;
  } catch (error) {
    if (isRelayError(error)) return false;
    throw error;
  }
}

/** The best quote chooseRoute finds for the swap, or undefined when it has no route or quotes too little. */
async function routeFor(chain: ChainRuntime, swap: SwapRequest, blockNumber: bigint, floor: bigint): Promise<bigint | undefined> {
  try {
    return (await chooseRoute(chain, swap, blockNumber, floor)).quotedOut;
  } catch (error) {
    if (isRelayError(error) && (error.code === "NO_SWAP_ROUTE" || error.code === "SWAP_SLIPPAGE_EXCEEDED")) return undefined;
    throw error;
  }
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
