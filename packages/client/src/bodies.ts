// Builders of the complete JSON bodies of POST /v1/payments, /v1/execute, /v1/swap and /v1/x402.
//
// A body is the signed intent (bigints as decimal strings) plus routing fields taken from the vault
// domain the intent was signed on (chainId, vaultAddress), a fresh UUID v4 idempotency key unless one
// is given, and the optional off-chain fields (memo, metadata, invoiceId, orderId, recipientLabel,
// resourceUrl, x402Funding). The `sign*Request` helpers sign and build in one go.
import { keccak256, type Address, type Hex } from "viem";
import type { ExecuteIntent, PaymentIntent, SwapIntent, VaultDomain, X402Intent } from "./intent-types.ts";
import { signExecuteIntent, signPaymentIntent, signSwapIntent, signX402Intent, type TypedDataSigner } from "./sign.ts";
import type {
  ExecuteRequestBody,
  Metadata,
  OffChainFields,
  PaymentRequestBody,
  SwapAndPayFields,
  SwapAndPayRequestBody,
  SwapRequestBody,
  X402RequestBody,
  X402Requirement,
} from "./types.ts";

/** Unsigned, off-chain extras of a request body. */
export interface BodyExtras extends OffChainFields {
  /** Reuse a key only to resend the exact same request; defaults to a fresh UUID v4. */
  idempotencyKey?: string;
  memo?: string;
  metadata?: Metadata;
}

/** Extras of an execute body. */
export interface ExecuteBodyExtras extends BodyExtras {
  /** Human-readable label of the protocol, shown to the owner. */
  protocolName?: string;
}

/** Body of `POST /v1/payments` for an intent signed on `domain`. */
export function paymentRequestBody(domain: VaultDomain, intent: PaymentIntent, signature: Hex, extras: BodyExtras = {}): PaymentRequestBody {
  return {
    chainId: domain.chainId,
    vaultAddress: domain.verifyingContract,
    bot: intent.bot,
    to: intent.to,
    token: intent.token,
    amount: intent.amount.toString(),
    deadline: intent.deadline.toString(),
    ref: intent.ref,
    signature,
    ...common(extras),
  };
}

/**
 * Body of a swap-and-pay `POST /v1/payments`: the payment's body plus the swap fields of `swap`,
 * the same bot's SwapIntent (toToken = the payment's token, minToAmount ≥ its amount) signed on `domain`.
 */
export function swapAndPayRequestBody(
  domain: VaultDomain,
  payment: PaymentIntent,
  paymentSignature: Hex,
  swap: SwapIntent,
  swapSignature: Hex,
  extras: BodyExtras = {},
): SwapAndPayRequestBody {
  return { ...paymentRequestBody(domain, payment, paymentSignature, extras), ...swapFields(swap, swapSignature) };
}

/** The seven swap fields a swap-and-pay adds to a payment's body: `swap` and its signature, on the wire. */
export function swapFields(swap: SwapIntent, swapSignature: Hex): SwapAndPayFields {
  return {
    swapSignature,
    swapFromToken: swap.fromToken,
    swapMaxFromAmount: swap.maxFromAmount.toString(),
    swapToToken: swap.toToken,
    swapMinToAmount: swap.minToAmount.toString(),
    swapDeadline: swap.deadline.toString(),
    swapRef: swap.ref,
  };
}

/**
 * The swap a swap-and-pay signs for `payment`: spend at most `maxFromAmount` of `fromToken` for at
 * least the payment's amount of its token, by the payment's deadline.
 */
export function swapForPayment(payment: PaymentIntent, fromToken: Address, maxFromAmount: bigint, ref: Hex): SwapIntent {
  return { bot: payment.bot, toToken: payment.token, minToAmount: payment.amount, fromToken, maxFromAmount, deadline: payment.deadline, ref };
}

/**
 * Body of `POST /v1/execute` for an intent signed on `domain`.
 * @throws Error when `intent.calldataHash` is not keccak256(callData).
 */
export function executeRequestBody(
  domain: VaultDomain,
  intent: ExecuteIntent,
  callData: Hex,
  signature: Hex,
  extras: ExecuteBodyExtras = {},
): ExecuteRequestBody {
  const calldataHash = keccak256(callData);
  if (calldataHash.toLowerCase() !== intent.calldataHash.toLowerCase()) {
    throw new Error(`intent.calldataHash ${intent.calldataHash} is not keccak256(callData) ${calldataHash}`);
  }
  return {
    chainId: domain.chainId,
    vaultAddress: domain.verifyingContract,
    bot: intent.bot,
    protocol: intent.protocol,
    callData,
    calldataHash,
    tokens: [...intent.tokens],
    amounts: intent.amounts.map((amount) => amount.toString()),
    value: intent.value.toString(),
    deadline: intent.deadline.toString(),
    ref: intent.ref,
    signature,
    ...(extras.protocolName === undefined ? {} : { protocolName: extras.protocolName }),
    ...common(extras),
  };
}

/** Body of `POST /v1/swap` for an intent signed on `domain`. */
export function swapRequestBody(domain: VaultDomain, intent: SwapIntent, signature: Hex, extras: BodyExtras = {}): SwapRequestBody {
  return {
    chainId: domain.chainId,
    vaultAddress: domain.verifyingContract,
    bot: intent.bot,
    fromToken: intent.fromToken,
    maxFromAmount: intent.maxFromAmount.toString(),
    toToken: intent.toToken,
    minToAmount: intent.minToAmount.toString(),
    deadline: intent.deadline.toString(),
    ref: intent.ref,
    signature,
    ...common(extras),
  };
}

/** Extras of an x402 body: the requirement as the paywall stated it (shown to the owner). */
export interface X402BodyExtras {
  idempotencyKey?: string;
  memo?: string;
  metadata?: Metadata;
  x402?: X402Requirement;
}

/** Body of `POST /v1/x402` for an intent signed on `domain`. */
export function x402RequestBody(domain: VaultDomain, intent: X402Intent, signature: Hex, extras: X402BodyExtras = {}): X402RequestBody {
  return {
    chainId: domain.chainId,
    vaultAddress: domain.verifyingContract,
    bot: intent.bot,
    token: intent.token,
    payTo: intent.payTo,
    amount: intent.amount.toString(),
    validAfter: intent.validAfter.toString(),
    validBefore: intent.validBefore.toString(),
    nonce: intent.nonce,
    deadline: intent.deadline.toString(),
    signature,
    idempotencyKey: extras.idempotencyKey ?? crypto.randomUUID(),
    ...(extras.memo === undefined ? {} : { memo: extras.memo }),
    ...(extras.metadata === undefined ? {} : { metadata: { ...extras.metadata } }),
    ...(extras.x402 === undefined ? {} : { x402: structuredClone(extras.x402) }),
  };
}

/** Sign an x402 intent and build its request body. */
export async function signX402Request(account: TypedDataSigner, domain: VaultDomain, intent: X402Intent, extras?: X402BodyExtras): Promise<X402RequestBody> {
  return x402RequestBody(domain, intent, await signX402Intent(account, domain, intent), extras);
}

/** Sign a payment intent and build its request body. */
export async function signPaymentRequest(
  account: TypedDataSigner,
  domain: VaultDomain,
  intent: PaymentIntent,
  extras?: BodyExtras,
): Promise<PaymentRequestBody> {
  return paymentRequestBody(domain, intent, await signPaymentIntent(account, domain, intent), extras);
}

/** Sign a payment and its swap (swap-and-pay) and build the request body. */
export async function signSwapAndPayRequest(
  account: TypedDataSigner,
  domain: VaultDomain,
  payment: PaymentIntent,
  swap: SwapIntent,
  extras?: BodyExtras,
): Promise<SwapAndPayRequestBody> {
  const paymentSignature = await signPaymentIntent(account, domain, payment);
  const swapSignature = await signSwapIntent(account, domain, swap);
  return swapAndPayRequestBody(domain, payment, paymentSignature, swap, swapSignature, extras);
}

/** Sign an execute intent and build its request body (checks calldataHash against callData). */
export async function signExecuteRequest(
  account: TypedDataSigner,
  domain: VaultDomain,
  intent: ExecuteIntent,
  callData: Hex,
  extras?: ExecuteBodyExtras,
): Promise<ExecuteRequestBody> {
  const signature = await signExecuteIntent(account, domain, intent);
  return executeRequestBody(domain, intent, callData, signature, extras);
}

/** Sign a swap intent and build its request body. */
export async function signSwapRequest(
  account: TypedDataSigner,
  domain: VaultDomain,
  intent: SwapIntent,
  extras?: BodyExtras,
): Promise<SwapRequestBody> {
  return swapRequestBody(domain, intent, await signSwapIntent(account, domain, intent), extras);
}

function common(extras: BodyExtras): { idempotencyKey: string; memo?: string; metadata?: Metadata } & OffChainFields {
  return {
    idempotencyKey: extras.idempotencyKey ?? crypto.randomUUID(),
    ...(extras.memo === undefined ? {} : { memo: extras.memo }),
    ...(extras.metadata === undefined ? {} : { metadata: { ...extras.metadata } }),
    ...(extras.invoiceId === undefined ? {} : { invoiceId: extras.invoiceId }),
    ...(extras.orderId === undefined ? {} : { orderId: extras.orderId }),
    ...(extras.recipientLabel === undefined ? {} : { recipientLabel: extras.recipientLabel }),
    ...(extras.resourceUrl === undefined ? {} : { resourceUrl: extras.resourceUrl }),
    ...(extras.x402Funding === undefined ? {} : { x402Funding: structuredClone(extras.x402Funding) }),
  };
}
