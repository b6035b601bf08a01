// What the relayer needs to know about one kind of signed intent (payment, execute, swap), in one
// descriptor per kind (payment.ts, execute.ts, swap.ts), found through the registry (index.ts). The
// spine (relayer.ts) and the modules around it ask the descriptor instead of switching on the kind.
//
// Adding a kind: its EIP-712 type and body (packages/client/src, with its line in primaryTypeOf,
// src/eip712/hash.ts), its validation schema and builder (src/api/schemas.ts, src/api/validate.ts),
// its descriptor file here, one line in index.ts, and its tests; its vault function, of course. The
// routes, the OpenAPI operations, poll URLs and the ledger's kinds follow from the registry and the
// client's intentKinds. Its policy rules say which kinds they apply to (src/relayer/policy/).
import type { Address, Hex } from "viem";
import type { IntentKind } from "../../../packages/client/src/intent-types.ts";
import type { OffChainFields } from "../../api/off-chain.ts";
import type { PaymentRequest, RelayRequest } from "../../api/validate.ts";
import type { ErrorCode } from "../../errors.ts";
import type { ChainRuntime, SnapshotQuery } from "../chain/chain-runtime.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import type { TokenInfo } from "../chain/token-info.ts";
import type { OwnerApproval, SwapRoute } from "../chain/intents.ts";
import type { Valuation } from "../chain/outflows.ts";
import type { SwapOption } from "./swap-required.ts";
import type { StoreOps } from "../store.ts";

/** The request as stored by the relayer (bigints as decimal strings). */
export interface StoredBody extends OffChainFields {
  kind: RelayRequest["kind"];
  intent: Record<string, unknown>;
  signature: Hex;
  callData?: Hex;
  memo?: string;
  metadata?: Record<string, string>;
  protocolName?: string;
  counterparty: string;
  route?: { router: Address; swapCalldata: Hex; quotedOut: string };
  /** An execute's simulated outflows of the vault: `[{token, amount (base units), usd (6 decimals)}]`. */
  outflows?: unknown;
  [field: string]: unknown;
}

/** A payment the vault holds too little of, which a swap from another token would cover (SWAP_REQUIRED). */
export interface SwapRequired {
  options: SwapOption[];
  /** The rejected answer's reason. */
  reason: string;
}

/** A token amount, for the owner's review item (base units as a decimal string). */
export type StoredAmount = readonly [token: string, amount: string];

/** What the review item shows besides the common fields: decoded calls, a carried swap… */
export interface ReviewView {
  /** The chain's known tokens by lower-case address (dispatcher.tokenInfo). */
  tokens: ReadonlyMap<string, TokenInfo>;
  vault: Address;
  /** A token amount in base and human units. */
  human(token: string, amount: string): unknown;
}

/** Methods (not function properties), so that a descriptor of one request type serves as one of RelayRequest. */
export interface KindDescriptor<R extends RelayRequest = RelayRequest> {
  readonly kind: R["kind"];
  /** POST `path` submits, GET `path/:requestId` reads the status; a held request's pollUrl. */
  readonly path: string;
  /**
   * Codes its POST route answers besides the ones every intent route shares (openapi.ts) and those
   * of the policy rules for its kind (policy/index.ts): windows, routes, reservations.
   */
  readonly errors: readonly ErrorCode[];
  /** Kinds whose policy rules its requests may run too (a swap-and-pay carries a swap). */
  readonly carries: readonly IntentKind[];
  /** Whether its answers carry `estimatedResolutionMs` and `simulationResult` (SPEC.md: execute's do not). */
  readonly answerExtras: boolean;

  /**
   * Tokens (address(0) = ETH) and amounts the request takes from the vault: what is valued, checked
   * against the balance, and named to the agents.
   */
  movedFunds(request: R): { tokens: Address[]; amounts: bigint[] };
  /** The policy lens query's kind-specific fields: the destination, protocol or output token. */
  lensFields(request: R): Pick<SnapshotQuery, "to" | "protocol" | "toToken">;
  /** Recipient (payment), called contract (execute) or output token (swap): the bot's history is per counterparty. */
  counterparty(request: R): Address;
  /** The contract call it makes from the vault, if any (execute): its selector decides reviews and scans. */
  call?(request: R): { target: Address; data: Hex };
  /**
   * Calldata of the vault call executing the request: with the bot's signature, or—when `approval`
   * is given—the reviewed variant carrying the owner's ReviewApproval (valid after the bot's deadline).
   */
  calldata(request: R, route?: SwapRoute, approval?: OwnerApproval): Hex;
  /**
   * A plain payment: simulated with the pinned policy read together with other requests under way
   * (read-batcher.ts), sent in one executePaymentBatch with others (submitter.ts), its gas not
   * estimated. Undefined for every other request, which is simulated with a gas estimate.
   */
  batched?(request: R): PaymentRequest | undefined;
  /**
   * Checks of this kind that read the chain beyond the policy snapshot, at the pinned block, after the
   * policy rules (a funding payment's merchant, an x402 authorization's window, nonce and digest).
   */
  chainChecks?(chain: ChainRuntime, request: R, snapshot: PolicySnapshot, blockNumber: bigint, nowSeconds: bigint): Promise<void>;
  /** Simulated on its own as soon as the block is known (execute), rather than after the checks (once a swap's route is chosen). */
  readonly simulatesEarly: boolean;
  /** The swap route it needs, chosen after the checks (422 NO_SWAP_ROUTE, SWAP_SLIPPAGE_EXCEEDED). */
  route?(chain: ChainRuntime, request: R, blockNumber: bigint, snapshot: PolicySnapshot): Promise<SwapRoute>;
  /** Values it by what its simulation moves out of the vault (outflows.ts), when the node can tell. */
  valuation?(chain: ChainRuntime, from: Address, request: R, data: Hex, blockNumber: bigint): Promise<Valuation | undefined>;
  /** When the vault holds too little: swaps that would cover it (answered SWAP_REQUIRED), or undefined to refuse. */
  coverShortfall?(chain: ChainRuntime, request: R, snapshot: PolicySnapshot, blockNumber: bigint): Promise<SwapRequired | undefined>;
  /**
   * Reserves the request's USD value in its rolling windows (ledger transaction `tx`); throws the
   * limit's 403. `burst`: a window's maxCount was passed (scanned, not refused).
   */
  reserve(tx: StoreOps, request: R, snapshot: PolicySnapshot, requestId: string, nowSeconds?: bigint): Promise<{ burst: boolean }>;
  /** "pay 12000 USDC (12000 USD) to 0x…": the agents' one-line summary; `usd` is the formatted value. */
  summary(request: R, usd: string, human: (token: string, amount: bigint) => string): string;
  /** The amounts a stored (held) request moves, as the review item lists them. */
  reviewAmounts(intent: Record<string, unknown>): StoredAmount[];
  /** Fields the review item adds for this kind (an execute's decoded call, a swap-and-pay's swap). */
  reviewExtras?(stored: StoredBody, view: ReviewView): Record<string, unknown>;
}
