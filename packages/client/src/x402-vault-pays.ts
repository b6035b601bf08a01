// x402 `vault` mode: the vault itself is the payer. The bot signs an X402Intent for exactly the
// chosen payment (token, merchant, amount, the authorization's window and nonce); the relayer checks
// it against the vault's policy (the merchant is the destination), holds it for review where the
// policy says so, and executes it: the vault records that one EIP-3009 digest as approved, which its
// ERC-1271 `isValidSignature` then accepts. The paid retry carries the authorization from the vault;
// the merchant's facilitator settles it from the vault. No money passes through the bot's key.
import type { Address, Hex } from "viem";
import { RelayApiError } from "./errors.ts";
import type { ModeContext, ModePayment } from "./paying-fetch.ts";
import type { CallOptions, RelayClient } from "./relay-client.ts";
import { DEFAULT_DEADLINE_WINDOW_SECONDS, normalizeSignature, randomRef, type TypedDataSigner } from "./sign.ts";
import type { VaultDomain } from "./intent-types.ts";
import type { Metadata, RequestStatus } from "./types.ts";
import { authorizationFor, offChainFields, waitOptions } from "./x402-shared.ts";

/** Thrown before anything is recorded when this relayer or vault does not pay x402 itself: `funding` is used instead. */
export class VaultCannotPay extends Error {
  override name = "VaultCannotPay";
}

/** The bot's intent for one x402 payment from the vault (EIP-712 `X402Intent` on the vault's domain). */
export interface X402Intent {
  bot: Address;
  token: Address;
  payTo: Address;
  amount: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  deadline: bigint;
}

export const x402IntentTypes = {
  X402Intent: [
    { name: "bot", type: "address" },
    { name: "token", type: "address" },
    { name: "payTo", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** Body of `POST /v1/x402`. */
export interface X402RequestBody {
  chainId: number;
  vaultAddress: Address;
  bot: Address;
  token: Address;
  payTo: Address;
  amount: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
  deadline: string;
  signature: Hex;
  idempotencyKey: string;
  memo?: string;
  metadata?: Metadata;
  x402?: Record<string, unknown>;
}

/** Answer of `POST /v1/x402` and `GET /v1/x402/:id`: a payment's, plus the recorded digest once executed. */
export interface X402Response {
  requestId: string;
  status: RequestStatus;
  txHash?: Hex;
  digest?: Hex;
  reason?: string;
  errorCode?: string;
  estimatedResolutionMs?: number;
}

interface X402Relay {
  submitX402(body: X402RequestBody, options?: CallOptions): Promise<X402Response>;
  getX402(requestId: string, options?: CallOptions): Promise<X402Response>;
  waitForResolution(kind: "x402", requestId: string, options?: object): Promise<X402Response>;
}

export async function payFromVault(context: ModeContext): Promise<ModePayment> {
  const { options, domain, chosen, url, required } = context;
  const relay = options.relay as RelayClient & Partial<X402Relay>;
  if (typeof relay.submitX402 !== "function" || typeof relay.getX402 !== "function") throw new VaultCannotPay("this client has no x402 route");
  const x402Relay = relay as unknown as X402Relay;
  const deadline = await context.deadline(options.deadlineSeconds ?? DEFAULT_DEADLINE_WINDOW_SECONDS);
  // The authorization outlives the intent by the merchant's timeout: the intent may execute up to its
  // deadline (after a review), and the merchant then has its usual time to settle.
  const intent: X402Intent = {
    bot: options.bot.address,
    token: chosen.asset,
    payTo: chosen.payTo,
    amount: chosen.price,
    validAfter: 0n,
    validBefore: deadline + BigInt(chosen.requirement.maxTimeoutSeconds),
    nonce: randomRef(),
    deadline,
  };
  const { resourceUrl: _shown, ...extras } = offChainFields(context);
  const body: X402RequestBody = {
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
    signature: await signX402Intent(options.bot, domain, intent),
    idempotencyKey: crypto.randomUUID(),
    ...extras,
    x402: {
      resource: required.resource?.url ?? url,
      ...(required.resource?.description ? { description: required.resource.description } : {}),
      ...(required.resource?.mimeType ? { mimeType: required.resource.mimeType } : {}),
      ...chosen.requirement,
    },
  };
  let submitted: X402Response;
  try {
    submitted = await x402Relay.submitX402(body);
  } catch (error) {
    // A relayer without the route answers 404 for it: nothing was recorded.
    if (error instanceof RelayApiError && error.status === 404) throw new VaultCannotPay(error.message);
    throw error;
  }
  const executed = await context.executed(
    submitted,
    (id) => x402Relay.getX402(id),
    (held) => (held.status === "pending_review" ? x402Relay.waitForResolution("x402", held.requestId, { aiWindowMs: held.estimatedResolutionMs ?? 0, ...waitOptions(options.wait) }) : Promise.resolve(held)),
  );
  const { authorization } = await authorizationFor(context, domain.verifyingContract, { validBefore: intent.validBefore, nonce: intent.nonce });
  // The vault's ERC-1271 check reads only whether it recorded the digest; it signs nothing itself.
  return { requestId: executed.requestId, status: executed.status, txHash: executed.txHash, authorization, signature: "0x" };
}

/** Sign an `X402Intent` as the bot, on the vault's domain. */
export async function signX402Intent(account: TypedDataSigner, domain: VaultDomain, intent: X402Intent): Promise<Hex> {
  return normalizeSignature(await account.signTypedData({ domain, types: x402IntentTypes, primaryType: "X402Intent", message: { ...intent } }));
}
