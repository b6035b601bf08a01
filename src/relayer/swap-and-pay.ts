// Swap-and-pay (DESIGN.md §10): a payment that carries the same bot's signed swap, whose output
// pays it. The payment is checked as any payment (its USD value fills the payment windows); the
// swap as any swap — signature, deadline, on-chain replay and cancellation, rebalance whitelist and
// cap, the vault's balance of the from-token, the route and the slippage floor — over its own
// policy snapshot read at the payment's block. Its value is not added to the bot's swap volume
// window: the request is a payment, counted in the payment windows, which bound what the swap's
// output can pay out. Both execute in one vault call, executeSwapAndPayment (its calldata:
// intents.ts); its swap hash is linked to the request in the ledger so duplicate, refusal and
// replay checks see it too.
import type { Hex } from "viem";
import type { PaymentRequest, SwapRequest } from "../api/validate.ts";
import type { ChainRuntime, PolicySnapshot } from "./chain-runtime.ts";
import { checkBalance, checkBotAndVault, checkDeadline, checkSignature, intentHashOf } from "./checks.ts";
import { checkPolicy } from "./policy/index.ts";
import type { SwapRoute } from "./intents.ts";
import { snapshotQuery } from "./kinds/index.ts";
import { chooseRoute } from "./simulate.ts";

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
