// POST /v1/x402: the vault pays an x402 paywall itself. The bot signs an X402Intent for one exact
// EIP-3009 TransferWithAuthorization from the vault to `payTo`; the vault's executeX402 checks it as
// a payment of `amount` of `token` to `payTo` (every destination rule, the blacklist, the per-tx cap,
// the spend buckets, the AI hold, the review) and records its digest, which its ERC-1271
// isValidSignature then accepts until validBefore: the merchant's facilitator settles from the vault.
// The policy rules of payments apply with payTo as the destination (policy/destination.ts, per-tx.ts).
import { encodeFunctionData, type Hex } from "viem";
import { intentPaths } from "../../../packages/client/src/intent-types.ts";
import type { X402Request } from "../../api/validate.ts";
import { vaultAbi } from "../chain/intents.ts";
import { reservePaymentWindows } from "../policy/spend-windows.ts";
import { checkX402Authorization } from "../policy/x402-authorization.ts";
import type { KindDescriptor } from "./kind.ts";
import { x402ReviewOf } from "./x402-review.ts";

/** No owner approval: the bot's signature alone (executeX402's empty `approval.signature`). */
const UNREVIEWED = { deadline: 0n, signature: "0x" as Hex };

export const x402: KindDescriptor<X402Request> = {
  kind: "x402",
  path: intentPaths.x402,
  errors: ["EXCEEDS_DAILY_LIMIT", "EXCEEDS_VELOCITY_LIMIT", "INVALID_X402_REQUIREMENT", "X402_AUTHORIZATION_EXPIRED", "X402_NONCE_USED"],
  carries: [],
  answerExtras: true,

  movedFunds: (request) => ({ tokens: [request.intent.token], amounts: [request.intent.amount] }),
  lensFields: (request) => ({ to: request.intent.payTo }),
  counterparty: (request) => request.intent.payTo,
  calldata(request, _route, approval) {
    return encodeFunctionData({ abi: vaultAbi, functionName: "executeX402", args: [request.intent, request.signature, approval ?? UNREVIEWED] });
  },
  // Its window and nonce, as the token will see them, and its digest (policy/x402-authorization.ts).
  chainChecks: (chain, request, snapshot, _blockNumber, nowSeconds) => checkX402Authorization(chain, request, snapshot, nowSeconds),
  simulatesEarly: false,
  reserve: reservePaymentWindows,
  summary: (request, usd, human) => `authorize an x402 payment of ${human(request.intent.token, request.intent.amount)} (${usd}) to ${request.intent.payTo}`,
  reviewAmounts: (intent) => [[intent.token as string, intent.amount as string]],
  reviewExtras(stored) {
    const intent = stored.intent as Record<string, string>;
    return { x402: x402ReviewOf(stored.x402, { payTo: intent.payTo!, amount: intent.amount!, token: intent.token! }) };
  },
};
