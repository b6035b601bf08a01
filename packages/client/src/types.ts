// Wire shapes of the relay HTTP API (SPEC.md, DESIGN.md section 6): request bodies and responses.
// Amounts and deadlines travel as decimal strings; chain ids as numbers.
import type { Address, Hex } from "viem";
import type { IntentKind } from "./intent-types.ts";

/** The three states every payment, execute, swap and x402 request is in. */
export type RequestStatus = "approved" | "pending_review" | "rejected";

/** Off-chain metadata: at most 10 keys, each value at most 500 characters (SPEC.md Limits). */
export type Metadata = Record<string, string>;

/**
 * The x402 payment a request funds: `true`, or the requirement, e.g. `{scheme, network, asset, amount,
 * payTo, resource}`, a JSON object of at most 2048 bytes whose `payTo` (the merchant), when present, is
 * an address the vault's destination rules must allow as they would a payee.
 */
export type X402Funding = true | Record<string, unknown>;

/**
 * Off-chain fields shown to the owner besides memo and metadata; not signed, never on-chain. Limits:
 * invoiceId and orderId 128 characters, recipientLabel 200, resourceUrl an http(s) URL of at most 2048
 * characters without credentials, x402Funding at most 2048 bytes as JSON and nested 4 levels.
 */
export interface OffChainFields {
  invoiceId?: string;
  orderId?: string;
  recipientLabel?: string;
  resourceUrl?: string;
  x402Funding?: X402Funding;
}

/** Body of `POST /v1/payments`. */
export interface PaymentRequestBody extends OffChainFields {
  chainId: number;
  vaultAddress: Address;
  bot: Address;
  to: Address;
  token: Address;
  amount: string;
  deadline: string;
  ref: Hex;
  signature: Hex;
  idempotencyKey: string;
  memo?: string;
  metadata?: Metadata;
}

/**
 * The swap fields of a swap-and-pay body: the same bot's SwapIntent (its toToken is the payment's
 * token, its minToAmount at least the payment's amount) and its signature; all of them or none.
 */
export interface SwapAndPayFields {
  swapSignature: Hex;
  swapFromToken: Address;
  swapMaxFromAmount: string;
  swapToToken: Address;
  swapMinToAmount: string;
  swapDeadline: string;
  swapRef: Hex;
}

/** Body of `POST /v1/payments` carrying the bot's signed swap (swap-and-pay). */
export type SwapAndPayRequestBody = PaymentRequestBody & SwapAndPayFields;

/** Body of `POST /v1/execute`. */
export interface ExecuteRequestBody extends OffChainFields {
  chainId: number;
  vaultAddress: Address;
  bot: Address;
  protocol: Address;
  callData: Hex;
  calldataHash: Hex;
  tokens: Address[];
  amounts: string[];
  value: string;
  deadline: string;
  ref: Hex;
  signature: Hex;
  idempotencyKey: string;
  protocolName?: string;
  memo?: string;
  metadata?: Metadata;
}

/** Body of `POST /v1/swap`. */
export interface SwapRequestBody extends OffChainFields {
  chainId: number;
  vaultAddress: Address;
  bot: Address;
  fromToken: Address;
  maxFromAmount: string;
  toToken: Address;
  minToAmount: string;
  deadline: string;
  ref: Hex;
  signature: Hex;
  idempotencyKey: string;
  memo?: string;
  metadata?: Metadata;
}

/**
 * An x402 payment requirement as the paywall stated it (x402 v2 `accepts[]` entry, plus the resource
 * it pays for): shown to the owner; its `payTo`, `amount` and `asset` must equal the signed ones.
 */
export interface X402Requirement {
  resource: string;
  description?: string;
  mimeType?: string;
  scheme: string;
  network: string;
  payTo: Address;
  /** Base units, as a decimal string. */
  amount: string;
  asset: Address;
  maxTimeoutSeconds?: number;
  extra?: Record<string, unknown>;
}

/**
 * Body of `POST /v1/x402`: the bot's signed X402Intent (the vault pays an x402 paywall itself). Once
 * approved, the vault answers ERC-1271 for the EIP-3009 authorization {from: vault, to: payTo, value:
 * amount, validAfter, validBefore, nonce}, which a facilitator then settles from the vault.
 */
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
  x402?: X402Requirement;
}

/** `simulationResult` of a payment response. */
export interface SimulationResult {
  success: boolean;
  gasEstimate?: string;
  error?: string;
}

/** Answer of `POST /v1/payments`, `GET /v1/payments/:id`, and the swap equivalents. */
export interface PaymentResponse {
  requestId: string;
  status: RequestStatus;
  /** Present when `approved`. */
  txHash?: Hex;
  /** Relative path of the status endpoint, when resolution is asynchronous. */
  pollUrl?: string;
  /** On the AI scan path, about 30000. */
  estimatedResolutionMs?: number;
  /** Present when `rejected`. */
  reason?: string;
  /** Present when `rejected` (answers stored before it existed may lack it on a replay). */
  errorCode?: RejectionCode;
  /** With `SWAP_REQUIRED`: the swaps that would cover the payment, best quote first. */
  swapOptions?: SwapOption[];
  simulationResult?: SimulationResult;
}

/**
 * Why a request was rejected. SWAP_REQUIRED: re-send the payment with a signed swap built from one
 * of `swapOptions`. OWNER_REJECTED, REVIEW_EXPIRED: the owner refused it (sign a new intent).
 * EXECUTION_FAILED: sent for execution but it did not execute.
 */
export type RejectionCode = "SWAP_REQUIRED" | "OWNER_REJECTED" | "REVIEW_EXPIRED" | "EXECUTION_FAILED";

/** A swap that would cover a payment: the fields of the signed swap to re-send it with. Amounts in base units. */
export interface SwapOption {
  /** `swapFromToken`. */
  fromToken: Address;
  symbol: string;
  /** `swapMaxFromAmount`: covers the payment at the quote when it was read, plus a margin. */
  maxFromAmount: string;
  /** The best router quote for `maxFromAmount` when the payment was read. */
  quotedOut: string;
  /** `swapToToken`: the payment token. */
  toToken: Address;
  /** `swapMinToAmount`: the payment amount. */
  minToAmount: string;
}

/** Answer of `POST /v1/x402` and `GET /v1/x402/:id`: a payment's shape, plus the recorded digest once approved. */
export interface X402Response extends PaymentResponse {
  /** Present when `approved`: the EIP-3009 TransferWithAuthorization digest the vault recorded (and answers ERC-1271 for). */
  digest?: Hex;
}

/** A swap answers with the payment response shape. */
export type SwapResponse = PaymentResponse;

/** Answer of `POST /v1/execute` and `GET /v1/execute/:id`. */
export interface ExecuteResponse {
  requestId: string;
  status: RequestStatus;
  txHash?: Hex;
  reason?: string;
  /** Present when `rejected`. */
  errorCode?: RejectionCode;
}

/** One holding of `GET /v1/vault/:v/value`. */
export interface VaultTokenValue {
  token: Address;
  symbol: string;
  /** Raw base units. */
  balance: string;
  decimals: number;
  priceUsd: number;
  valueUsd: number;
}

/** Answer of `GET /v1/vault/:v/value`. */
export interface VaultValue {
  vault: Address;
  chainId: number;
  totalValueUsd: number;
  tokens: VaultTokenValue[];
}

/** Where a rebalance whitelist comes from: the relayer's defaults or the owner's on-chain list. */
export type RebalanceSource = "default" | "on_chain";

/** Answer of `GET /v1/vault/:v/rebalance-tokens`. */
export interface RebalanceTokens {
  source: RebalanceSource;
  tokens: Address[];
  rebalanceTokenCount: number;
}

/** Answer of `GET /v1/vault/:v/rebalance-token/:token`. */
export interface RebalanceTokenCheck {
  allowed: boolean;
  source: RebalanceSource;
}

/** Answer of `GET /v1/vault/:v/balance/:token`. */
export interface TokenBalance {
  /** Raw base units. */
  balance: string;
}

/** Answer of `GET /v1/vault/:v/balances?tokens=…`: base units by token address. */
export interface TokenBalances {
  balances: Record<Address, string>;
}

/** Answer of `GET /v1/vault/:v/bot/:bot/status`. */
export interface BotStatus {
  isActive: boolean;
}

/** A token of a chain, as `GET /v1/chains` lists it. */
export interface ChainToken {
  address: Address;
  /** Absent for a default rebalance token the relayer's configuration does not list (the registry names it by address only). */
  symbol?: string;
  decimals?: number;
}

/** One chain of `GET /v1/chains`. */
export interface ChainInfo {
  chainId: number;
  /** The network's name, e.g. "Base Sepolia". */
  name: string;
  /** The vault factory: `deployVault()` deploys a vault owned by the caller. */
  factoryAddress: Address;
  registryAddress: Address;
  /** Swap routers the relayer routes swaps through. */
  routers: Address[];
  /** A development chain (a devnet): `metadata.scenario` overrides are honoured there. */
  devnet: boolean;
  /** The tokens the relayer knows on this chain, by symbol. */
  tokens: ChainToken[];
  /** The rebalance whitelist of a vault that sets none of its own (the registry's, which the vaults enforce); absent while the chain does not answer. */
  defaultRebalanceTokens?: ChainToken[];
  /** The vaults' EIP-712 domain name and version (chainId and verifyingContract are the chain's and the vault's); absent while the chain does not answer. */
  domain?: { name: string; version: string };
}

/** Answer of `GET /v1/chains`: every chain the relayer serves. */
export interface ChainList {
  chains: ChainInfo[];
}

/** Answer of `GET /v1/vault/:v/info`. */
export interface VaultInfo {
  owner: Address;
  operator: Address;
  paused: boolean;
  version: string;
  trackUsedIntents: boolean;
}

/** Answer of `GET /v1/vault/:v/bot/:bot/destination/:to`. */
export interface DestinationCheck {
  allowed: boolean;
  reason?: string;
}

/** Answer of `GET /v1/vault/:v/protocol/:p`. */
export interface ProtocolStatus {
  approved: boolean;
}

/** Answer of `POST /v1/auth/nonce`. */
export interface AuthNonce {
  nonce: string;
  /** When the nonce stops being accepted (RFC 3339); sign and log in before then. */
  expiresAt: string;
}

/** Answer of `POST /v1/auth/login`. */
export interface LoginResult {
  token: string;
  address: Address;
  expiresAt: string | number;
}

/** Answer of `GET /v1/tos/status?wallet=`. `accepted` is true when nothing blocks the wallet's vaults. */
export interface TosStatus {
  wallet: Address;
  /** Whether the relayer requires an accepted terms version. */
  required: boolean;
  /** The version a vault's owner must accept; null when none is required. */
  version: string | null;
  url?: string;
  accepted: boolean;
  /** The version this wallet accepted last, and when (ISO 8601). */
  acceptedVersion?: string;
  acceptedAt?: string;
  /** When not yet accepted: the exact text to sign (personal_sign) and send to `POST /v1/tos/accept`. */
  message?: string;
}

/** Body of `POST /v1/tos/accept`: the wallet's personal_sign signature of the relayer's terms text. */
export interface TosAcceptBody {
  wallet: Address;
  version: string;
  message: string;
  signature: Hex;
}

/** Answer of `POST /v1/tos/accept`. */
export interface TosAcceptance {
  wallet: Address;
  version: string;
  acceptedAt: string;
}

/** Kinds of request that can be held for review. */
export type RequestKind = IntentKind;

/** One held request in the owner's review queue. The relayer may add fields beyond these. */
export interface ReviewItem extends OffChainFields {
  requestId: string;
  kind: RequestKind;
  status: RequestStatus;
  chainId: number;
  vault: Address;
  bot: Address;
  intentHash: Hex;
  createdAt: string | number;
  deadline: string | number;
  heldBecause: string;
  memo?: string;
  metadata?: Metadata;
  /** What an x402 request (or a funding payment naming its requirement) buys; an x402 request's payTo, amount and asset are the signed ones. */
  x402?: { resource?: string; description?: string; payTo?: string; amount?: string; asset?: string; scheme?: string };
  [field: string]: unknown;
}

/** Answer of `GET /v1/reviews`. */
export interface ReviewList {
  reviews: ReviewItem[];
}

/** The owner's approval sent to `POST /v1/reviews/:id/approve`. */
export interface ReviewApprovalBody {
  /** Unix seconds until which the approval is valid on-chain, as signed in the `ReviewApproval` (sent as a string). */
  deadline: string | bigint;
  signature: Hex;
}

/** A decision answers with the request's own response shape. */
export type ReviewDecisionResponse = PaymentResponse | ExecuteResponse | X402Response;

/** Answer of `GET /healthz`; its fields are not part of the contract. */
export type HealthStatus = Record<string, unknown>;
