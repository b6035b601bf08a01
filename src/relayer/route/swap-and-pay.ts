// Swap-and-pay (DESIGN.md §10): a payment that carries the same bot's signed swap, whose output
// pays it. The payment is checked as any payment (its USD value fills the payment windows); the
// swap as any swap of its size, by the swap kind's own rules rather than a copy of them: signature,
// deadline, on-chain replay and cancellation, rebalance whitelist and cap, the vault's balance of
// the from-token, the route and the slippage floor (checkSwapLeg), over its own policy snapshot
// read at the payment's block; its value reserved in the bot's swap volume window (reserveSwapLeg,
// the swap kind's reserve); its path chosen as a plain swap's and the stricter of the two taken
// (swapAndPayPath), so a large swap riding on a small payment is scanned or held as it would be
// alone. Before, the swap was valued only through the payment: a $1,500 swap on a $1 payment passed
// a $100 swap window and took the fast path. Both execute in one vault call,
// executeSwapAndPayment (its calldata: intents.ts); its swap hash is linked to the request in the
// ledger so duplicate, refusal and replay checks see it too.
import type { Hex } from "viem";
import type { PaymentRequest, SwapRequest } from "../../api/validate.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import { checkBalance, checkBotAndVault, checkDeadline, checkSignature, intentHashOf } from "../intake/checks.ts";
import { checkPolicy } from "../policy/index.ts";
import type { SwapRoute } from "../chain/intents.ts";
import { kindOf, snapshotQuery } from "../kinds/index.ts";
import type { Path } from "./path.ts";
import { chooseRoute } from "../chain/simulate.ts";
import type { StoreOps } from "../store.ts";

/** A swap-and-pay's swap, checked, with its route. */
export interface CheckedSwapLeg {
  swap: SwapRequest;
  intentHash: Hex;
  snapshot: PolicySnapshot;
  route: SwapRoute;
}

/** The payment's swap as a swap request of its own (same vault, chain and bot), or undefined for a plain payment. */
export function swapLegOf(request: PaymentRequest): SwapRequest | undefined {
  if (!request.swap) return undefined;
  return {
    kind: "swap",
    intent: request.swap.intent,
    signature: request.swap.signature,
    chainId: request.chainId,
    vaultAddress: request.vaultAddress,
    idempotencyKey: request.idempotencyKey,
  };
}

/** Whether `request` is a swap-and-pay. */
export function isSwapAndPay(request: { kind: string; swap?: unknown }): request is PaymentRequest & { swap: NonNullable<PaymentRequest["swap"]> } {
  return request.kind === "payment" && request.swap !== undefined;
}

/**
 * Every check of the swap, in the spine's order, at `blockNumber`; then its route (422
 * NO_SWAP_ROUTE, 422 SWAP_SLIPPAGE_EXCEEDED). Throws the first failure.
 */
export async function checkSwapLeg(
  chain: ChainRuntime,
  request: PaymentRequest,
  blockNumber: bigint,
  limits: { nowSeconds: bigint; maxDeadlineSeconds: number },
): Promise<CheckedSwapLeg> {
  const swap = swapLegOf(request)!;
  const intentHash = intentHashOf(swap, await chain.domainOf(request.vaultAddress));
  checkSignature(swap, intentHash);
  const snapshot = await chain.snapshot(snapshotQuery(swap, intentHash), blockNumber);
  checkDeadline(swap, limits.nowSeconds, snapshot, limits.maxDeadlineSeconds);
  checkBotAndVault(swap, snapshot);
  checkPolicy(swap, snapshot);
  checkBalance([swap.intent.fromToken], [swap.intent.maxFromAmount], snapshot);
  const route = await chooseRoute(chain, swap, blockNumber, snapshot.swapFloor);
  return { swap, intentHash, snapshot, route };
}

/**
 * Reserves the swap's value in the bot's swap volume window, as a plain swap of its size would be
 * (the swap kind's reserve: 403 EXCEEDS_REBALANCE_LIMIT), in the request's record transaction. The
 * ledger holds one reservation per key, so the swap's has its own: the request's id with `#swap`.
 */
export function reserveSwapLeg(tx: StoreOps, leg: CheckedSwapLeg, requestId: string, nowSeconds?: bigint): Promise<{ burst: boolean }> {
  return kindOf(leg.swap).reserve(tx, leg.swap, leg.snapshot, `${requestId}#swap`, nowSeconds);
}

/**
 * The path of a swap-and-pay from its payment's and its swap's, each chosen as for a plain request
 * of its kind (choosePath): the stricter of the two (review, then scan, then fast); two scans join
 * their reasons. A hold that only the swap needs says so.
 */
export function swapAndPayPath(payment: Path, swap: Path): Path {
  if (payment.path === "review") return payment;
  if (swap.path === "review") return { path: "review", heldBecause: `its swap: ${swap.heldBecause}` };
  if (payment.path === "fast") return swap;
  if (swap.path === "fast") return payment;
  return { path: "scan", reasons: [...new Set([...payment.reasons, ...swap.reasons])] };
}

/** What the agents and the scan's words value a request at: a swap-and-pay at the larger of its payment and its swap. */
export function scannedValue(snapshot: PolicySnapshot, leg: CheckedSwapLeg | undefined): bigint {
  return leg && leg.snapshot.usdValue > snapshot.usdValue ? leg.snapshot.usdValue : snapshot.usdValue;
}
