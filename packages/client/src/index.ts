// relay-client: what bots and tools import. Sign intents, build request bodies, talk to a relayer.
// Runs on Node >= 20, Bun and browsers: its only dependency is viem, and it talks HTTP with `fetch`.
//
//   const account = privateKeyToAccount(botKey);
//   const domain = await readVaultDomain(publicClient, vault);
//   const body = await signPaymentRequest(account, domain, {
//     bot: account.address, to, token, amount: parseUnits("5", 6), deadline: defaultDeadline(), ref: randomRef(),
//   });
//   const relay = new RelayClient({ baseUrl: "http://127.0.0.1:8787" });
//   const final = await relay.resolve("payment", await relay.submitPayment(body));
export { formatUnits, parseUnits } from "./units.ts";
export {
  DEFAULT_DEADLINE_WINDOW_SECONDS,
  defaultDeadline,
  intentDigest,
  normalizeSignature,
  randomRef,
  readVaultDomain,
  refFromString,
  signExecuteIntent,
  signPaymentIntent,
  signReviewApproval,
  signSwapIntent,
  signX402Intent,
  type SignableTypes,
  type TypedDataSigner,
} from "./sign.ts";
export {
  executeRequestBody,
  paymentRequestBody,
  signExecuteRequest,
  signPaymentRequest,
  signSwapAndPayRequest,
  signSwapRequest,
  swapAndPayRequestBody,
  swapFields,
  swapForPayment,
  swapRequestBody,
  signX402Request,
  x402RequestBody,
  type BodyExtras,
  type ExecuteBodyExtras,
  type X402BodyExtras,
} from "./bodies.ts";
export {
  DEFAULT_TIMEOUT_MS,
  RelayClient,
  type CallOptions,
  type RelayClientOptions,
  type ResponseOfKind,
  type WaitOptions,
} from "./relay-client.ts";
export type { FetchFunction } from "./http.ts";
export { RelayApiError, RelayUnreachableError, StillPendingError, type RelayApiErrorInit } from "./errors.ts";
export { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryEvent, type RetryPolicy } from "./retry.ts";
export { signInWithEthereum, type SignInOptions } from "./siwe.ts";
export { acceptTerms } from "./terms.ts";
export { termsMessage, type TermsMessageFields } from "./terms-message.ts";
export { buildSiweMessage, parseSiweMessage, siweTarget, type SiweMessage, type SiweMessageFields } from "./siwe-message.ts";
export { DEFAULT_POLL_OPTIONS, pollUntilResolved, type PollOptions } from "./poll.ts";
export type * from "./types.ts";
export {
  payingFetch,
  type PaidResponse,
  type PayingFetchCallOptions,
  type PayingFetchOptions,
  type X402Event,
  type X402Payment,
} from "./paying-fetch.ts";
export {
  X402Error,
  X402NoPayableRequirementError,
  X402PaymentHeldError,
  X402PaymentRejectedError,
  X402PriceAboveMaxError,
  X402RequestError,
  X402ProtocolError,
  X402SettlementError,
  type X402Mode,
} from "./x402-errors.ts";
export {
  decodeBase64Json,
  encodeBase64Json,
  readPaymentRequired,
  readSettlement,
  type X402Authorization,
  type X402PaymentRequired,
  type X402PaymentRequirements,
  type X402Settlement,
} from "./x402-wire.ts";
export {
  intentKinds,
  intentTypes,
  type ExecuteIntent,
  type IntentKind,
  type PaymentIntent,
  type ReviewApproval,
  type SwapIntent,
  type VaultDomain,
  type X402Intent,
} from "./intent-types.ts";
export {
  NATIVE_ETH,
  VaultOwner,
  botPolicyParams,
  deployVault,
  predictVaultAddress,
  readVaultState,
  type BotPolicy,
  type BotPolicyInput,
  type OperatorCeilingsInput,
  type OwnerWallet,
  type SpendingLimitInput,
  type TokenAmount,
  type VaultState,
} from "./owner.ts";
export { ownerFactoryAbi, ownerVaultAbi } from "./owner-abi.ts";
