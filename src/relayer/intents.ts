// What differs between the three kinds of request: which tokens and amounts they move, who the
// counterparty is, and the vault call that executes them (with the bot's signature, or with the
// owner's ReviewApproval after a review).
import { encodeFunctionData, type Address, type Hex } from "viem";
import { readArtifact } from "../chain/artifacts.ts";
import type { ExecuteRequest, PaymentRequest, RelayRequest, SwapRequest } from "../api/validate.ts";
import type { SnapshotQuery } from "./chain-runtime.ts";
import { transferRecipient } from "./token-transfer.ts";
import { paymentBatchCalldata, paymentCalldata } from "./payment-calldata.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const routerAbi = readArtifact("mocks/MockSwapRouter").abi;

/** The swap route the relayer chose: a router and the calldata the vault sends it. */
export interface SwapRoute {
  router: Address;
  swapCalldata: Hex;
  quotedOut: bigint;
}

/** The owner's approval of a held request. */
export interface OwnerApproval {
  deadline: bigint;
  signature: Hex;
}

/**
 * Tokens (address(0) = ETH) and amounts the request takes from the vault. A swap-and-pay's are its
 * payment's (what leaves the vault, valued for the payment's limits); its swap is checked apart
 * (swap-and-pay.ts).
 */
export function movedFunds(request: RelayRequest): { tokens: Address[]; amounts: bigint[] } {
  switch (request.kind) {
    case "payment":
      return { tokens: [request.intent.token], amounts: [request.intent.amount] };
    case "execute": {
      const tokens = [...request.intent.tokens];
      const amounts = [...request.intent.amounts];
      if (request.intent.value > 0n) {
        tokens.push("0x0000000000000000000000000000000000000000");
        amounts.push(request.intent.value);
      }
      return { tokens, amounts };
    }
    case "swap":
      return { tokens: [request.intent.fromToken], amounts: [request.intent.maxFromAmount] };
  }
}

/** The policy lens query of a request. */
export function snapshotQuery(request: RelayRequest, intentHash: Hex): SnapshotQuery {
  const funds = movedFunds(request);
  const base = { vault: request.vaultAddress, bot: request.intent.bot, intentHash, ...funds };
  switch (request.kind) {
    case "payment":
      return { ...base, to: request.intent.to };
    case "execute":
      return { ...base, protocol: request.intent.protocol, to: transferRecipient(request.callData) };
    case "swap":
      return { ...base, toToken: request.intent.toToken };
  }
}

/** Recipient (payment), called contract (execute) or output token (swap). */
export function counterparty(request: RelayRequest): Address {
  switch (request.kind) {
    case "payment":
      return request.intent.to;
    case "execute":
      return request.intent.protocol;
    case "swap":
      return request.intent.toToken;
  }
}

const paymentArgs = (r: PaymentRequest) => [r.intent] as const;

/**
 * Calldata of the vault call executing `request`: with the bot's signature, or—when `approval` is
 * given—the reviewed variant carrying the owner's ReviewApproval (valid after the bot's deadline).
 */
export function executionCalldata(request: RelayRequest, route?: SwapRoute, approval?: OwnerApproval): Hex {
  switch (request.kind) {
    case "payment":
      if (request.swap) return swapAndPayCalldata(request, route, approval);
      return approval
        ? encodeFunctionData({ abi: vaultAbi, functionName: "executeReviewedPayment", args: [...paymentArgs(request), request.signature, approval.deadline, approval.signature] })
        : paymentCalldata(request.intent, request.signature);
    case "execute":
      return executeCalldata(request, approval);
    case "swap":
      return swapCalldata(request, route, approval);
  }
}

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

function executeCalldata(request: ExecuteRequest, approval?: OwnerApproval): Hex {
  return approval
    ? encodeFunctionData({ abi: vaultAbi, functionName: "executeReviewedProtocol", args: [request.intent, request.signature, request.callData, approval.deadline, approval.signature] })
    : encodeFunctionData({ abi: vaultAbi, functionName: "executeProtocol", args: [request.intent, request.signature, request.callData] });
}

function swapCalldata(request: SwapRequest, route: SwapRoute | undefined, approval?: OwnerApproval): Hex {
  if (!route) throw new Error("a swap needs a route");
  return approval
    ? encodeFunctionData({ abi: vaultAbi, functionName: "executeReviewedSwap", args: [request.intent, request.signature, route.router, route.swapCalldata, approval.deadline, approval.signature] })
    : encodeFunctionData({ abi: vaultAbi, functionName: "executeSwap", args: [request.intent, request.signature, route.router, route.swapCalldata] });
}

/** Calldata of one `executePaymentBatch` carrying several fast-path payments. */
export function batchCalldata(requests: readonly PaymentRequest[]): Hex {
  return paymentBatchCalldata(requests);
}

/** The router call a swap executes: exact input, at least `minOut`, output to the vault itself. */
export function routerCalldata(request: SwapRequest, vault: Address, minOut: bigint): Hex {
  const i = request.intent;
  return encodeFunctionData({
    abi: routerAbi,
    functionName: "swapExactIn",
    args: [i.fromToken, i.toToken, i.maxFromAmount, minOut, vault],
  });
}

export { vaultAbi, routerAbi };
