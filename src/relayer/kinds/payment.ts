// POST /v1/payments: the vault pays `amount` of `token` (address(0) = ETH) to `to`. A plain payment
// is simulated with the policy read and may be batched with others; a swap-and-pay carries the same
// bot's signed swap whose output pays it (swap-and-pay.ts); a payment the vault holds too little of,
// but could cover through a swap, is answered SWAP_REQUIRED (swap-required.ts).
import { encodeFunctionData, type Hex } from "viem";
import { intentPaths } from "../../../packages/client/src/intent-types.ts";
import type { PaymentRequest } from "../../api/validate.ts";
import { vaultAbi, type OwnerApproval, type SwapRoute } from "../chain/intents.ts";
import { paymentCalldata } from "../chain/payment-calldata.ts";
import { reservePaymentWindows } from "../policy/spend-windows.ts";
import { checkFundingMerchant } from "../policy/x402-merchant.ts";
import { findSwapOptions, swapRequiredReason } from "./swap-required.ts";
import type { KindDescriptor } from "./kind.ts";
import { x402ReviewOf } from "./x402-review.ts";

export const payment: KindDescriptor<PaymentRequest> = {
  kind: "payment",
  path: intentPaths.payment,
  // A swap-and-pay's swap is routed; its policy rules come with `carries`.
  errors: ["EXCEEDS_DAILY_LIMIT", "EXCEEDS_VELOCITY_LIMIT", "SWAP_SLIPPAGE_EXCEEDED", "NO_SWAP_ROUTE"],
  carries: ["swap"],
  answerExtras: true,

  // A swap-and-pay's are its payment's (what leaves the vault, valued for the payment's limits);
  // its swap is checked apart (swap-and-pay.ts).
  movedFunds: (request) => ({ tokens: [request.intent.token], amounts: [request.intent.amount] }),
  lensFields: (request) => ({ to: request.intent.to }),
  counterparty: (request) => request.intent.to,
  calldata(request, route, approval) {
    if (request.swap) return swapAndPayCalldata(request, route, approval);
    return approval
      ? encodeFunctionData({ abi: vaultAbi, functionName: "executeReviewedPayment", args: [request.intent, request.signature, approval.deadline, approval.signature] })
      : paymentCalldata(request.intent, request.signature);
  },
  // A swap-and-pay needs its route first; it is never batched with plain payments: it is its own vault call.
  batched: (request) => (request.swap ? undefined : request),
  // A funding payment's merchant, as a payee (policy/x402-merchant.ts): one read, only with a payTo.
  chainChecks: (chain, request, _snapshot, blockNumber) => checkFundingMerchant(chain, request, blockNumber),
  simulatesEarly: false,
  async coverShortfall(chain, request, snapshot, blockNumber) {
    const options = await findSwapOptions(chain, request, blockNumber);
    if (options.length === 0) return undefined;
    return { options, reason: swapRequiredReason(request, snapshot.balances[0]!, options) };
  },
  reserve: reservePaymentWindows,
  summary: (request, usd, human) => `pay ${human(request.intent.token, request.intent.amount)} (${usd}) to ${request.intent.to}`,
  reviewAmounts: (intent) => [[intent.token as string, intent.amount as string]],
  // A swap-and-pay: the owner's approval of the payment's hash authorizes its swap too, so the
  // swap is shown — what it may spend, the least it must bring in, and its own hash.
  // A funding payment whose x402Funding is the requirement: what the bot will buy (x402-review.ts).
  reviewExtras(stored, view) {
    const funding = stored.x402Funding;
    const x402 = typeof funding === "object" && funding !== null ? { x402: x402ReviewOf(funding) } : {};
    const swap = (stored as { swap?: { intent: Record<string, string> } }).swap;
    if (!swap) return x402;
    return {
      ...x402,
      swap: {
        intent: swap.intent,
        spends: view.human(swap.intent.fromToken!, swap.intent.maxFromAmount!),
        receivesAtLeast: view.human(swap.intent.toToken!, swap.intent.minToAmount!),
      },
    };
  },
};

/** executeSwapAndPayment: with the bot's signatures, or with the owner's approval of the payment's hash. */
function swapAndPayCalldata(request: PaymentRequest, route: SwapRoute | undefined, approval?: OwnerApproval): Hex {
  if (!request.swap || !route) throw new Error("a swap-and-pay needs its swap and a route");
  const ownerApproval = approval ?? { deadline: 0n, signature: "0x" as Hex }; // empty: the bot's signatures alone
  return encodeFunctionData({
    abi: vaultAbi,
    functionName: "executeSwapAndPayment",
    args: [request.swap.intent, request.swap.signature, request.intent, request.signature, route.router, route.swapCalldata, { deadline: ownerApproval.deadline, signature: ownerApproval.signature }],
  });
}
