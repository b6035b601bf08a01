// POST /v1/swap: the vault swaps up to `maxFromAmount` of `fromToken` into at least `minToAmount` of
// `toToken` through a router the relayer chooses after the checks (simulate.ts chooseRoute). Its
// value counts in the bot's swap volume window, apart from payments and executes.
import { encodeFunctionData } from "viem";
import { intentPaths } from "../../../packages/client/src/intent-types.ts";
import type { SwapRequest } from "../../api/validate.ts";
import { vaultAbi } from "../chain/intents.ts";
import { chooseRoute } from "../chain/simulate.ts";
import { reserveSwapVolume } from "../policy/spend-windows.ts";
import type { KindDescriptor } from "./kind.ts";

export const swap: KindDescriptor<SwapRequest> = {
  kind: "swap",
  path: intentPaths.swap,
  errors: ["EXCEEDS_REBALANCE_LIMIT", "SWAP_SLIPPAGE_EXCEEDED", "NO_SWAP_ROUTE"],
  carries: [],
  answerExtras: true,

  movedFunds: (request) => ({ tokens: [request.intent.fromToken], amounts: [request.intent.maxFromAmount] }),
  lensFields: (request) => ({ toToken: request.intent.toToken }),
  counterparty: (request) => request.intent.toToken,
  calldata(request, route, approval) {
    if (!route) throw new Error("a swap needs a route");
    return approval
      ? encodeFunctionData({ abi: vaultAbi, functionName: "executeReviewedSwap", args: [request.intent, request.signature, route.router, route.swapCalldata, approval.deadline, approval.signature] })
      : encodeFunctionData({ abi: vaultAbi, functionName: "executeSwap", args: [request.intent, request.signature, route.router, route.swapCalldata] });
  },
  simulatesEarly: false,
  route: (chain, request, blockNumber, snapshot) => chooseRoute(chain, request, blockNumber, snapshot.swapFloor),
  reserve: reserveSwapVolume,
  summary: (request, usd, human) =>
    `swap up to ${human(request.intent.fromToken, request.intent.maxFromAmount)} (${usd}) for at least ${human(request.intent.toToken, request.intent.minToAmount)}`,
  reviewAmounts: (intent) => [[intent.fromToken as string, intent.maxFromAmount as string]],
};
