// JSON Schemas (draft 2020-12, as OpenAPI 3.1 uses) of every response body the relayer sends: the
// wire shapes of packages/client/src/types.ts, and the `{error, code, details?}` envelope of every error.
// They are the `components.schemas` of the OpenAPI document; `ref(name)` points at one of them.
import { errorCodes, maxDetailsLength } from "../errors.ts";

type Schema = Record<string, unknown>;

/** A reference to one of `responseSchemas` (by its key) inside the OpenAPI document. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const address = (description: string): Schema => ({ type: "string", pattern: "^0x[0-9a-fA-F]{40}$", description });
const hash = (description: string): Schema => ({ type: "string", pattern: "^0x[0-9a-fA-F]{64}$", description });
const baseUnits = (description: string): Schema => ({ type: "string", pattern: "^[0-9]{1,78}$", description });
const text = (description: string): Schema => ({ type: "string", description });
const bool = (description: string): Schema => ({ type: "boolean", description });

/** An object whose listed properties are all required unless named in `optional`. */
function object(properties: Record<string, Schema>, optional: readonly string[] = [], extra: Schema = {}): Schema {
  return {
    type: "object",
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    ...extra,
  };
}

const requestStatus: Schema = {
  type: "string",
  enum: ["approved", "pending_review", "rejected"],
  description: "approved: executed (txHash). pending_review: held, poll pollUrl. rejected: see reason.",
};
const requestId = text("Identifier of the request, for status polling");
/**
 * Why a request was rejected, in every 200 `rejected` answer (`errorCode`); see
 * src/relayer/submit/responses.ts for how each is decided.
 */
export const rejectionCodes = ["SWAP_REQUIRED", "OWNER_REJECTED", "REVIEW_EXPIRED", "EXECUTION_FAILED"] as const;
export type RejectionCode = (typeof rejectionCodes)[number];

const rejectionCode: Schema = {
  type: "string",
  enum: [...rejectionCodes],
  description:
    "Why the request was rejected; present when rejected. SWAP_REQUIRED: the vault holds too little of the payment token, " +
    "and a swap from another token would cover it (see swapOptions; re-send the payment with a signed swap). " +
    "OWNER_REJECTED: the vault's owner rejected it in review. REVIEW_EXPIRED: the review window lapsed undecided. " +
    "EXECUTION_FAILED: sent for execution but did not execute (reverted on-chain, refused by the node, or dropped).",
};
const rebalanceSource: Schema = {
  type: "string",
  enum: ["default", "on_chain"],
  description: "default: the relayer's list for the chain (USDC, WETH, USDT). on_chain: the owner's list.",
};
const timestamp = (description: string): Schema => ({
  type: ["string", "integer"],
  description: `${description}: an RFC 3339 date-time string or unix seconds`,
});
const metadata: Schema = { type: "object", additionalProperties: { type: "string" }, description: "Off-chain notes of the request" };

export const responseSchemas = {
  Error: object(
    {
      error: text("Human-readable message"),
      code: { type: "string", enum: [...errorCodes], description: "Machine-readable code" },
      details: { type: "string", maxLength: maxDetailsLength, description: "Extra context: the failing field, a revert reason" },
    },
    ["details"],
    { additionalProperties: false, description: "Body of every error response" },
  ),
  SimulationResult: object(
    { success: bool("Whether eth_call succeeded"), gasEstimate: baseUnits("Estimated gas"), error: text("Revert reason") },
    ["gasEstimate", "error"],
  ),
  PaymentResponse: object(
    {
      requestId,
      status: requestStatus,
      txHash: hash("On-chain transaction hash; present when approved"),
      pollUrl: text("Relative path of the status endpoint, when resolution is asynchronous"),
      estimatedResolutionMs: { type: "integer", minimum: 0, description: "On the AI scan path, about 30000" },
      reason: text("Why the request was rejected; present when rejected"),
      errorCode: rejectionCode,
      swapOptions: {
        type: "array",
        items: ref("SwapOption"),
        description: "With SWAP_REQUIRED: the swaps that would cover the payment, best quote first",
      },
      simulationResult: ref("SimulationResult"),
      digest: hash("x402 only, present when approved: the EIP-3009 TransferWithAuthorization digest the vault recorded and answers ERC-1271 for until validBefore"),
    },
    ["txHash", "pollUrl", "estimatedResolutionMs", "reason", "errorCode", "swapOptions", "simulationResult", "digest"],
    { description: "Answer for a payment, swap or x402 authorization (submit and status)" },
  ),
  SwapOption: object(
    {
      fromToken: address("swapFromToken: a token the vault holds"),
      symbol: text("The from-token's symbol"),
      maxFromAmount: baseUnits("swapMaxFromAmount: covers the payment at the current quote, plus a 1% margin"),
      quotedOut: baseUnits("The best router quote for maxFromAmount when the payment was read"),
      toToken: address("swapToToken: the payment token"),
      minToAmount: baseUnits("swapMinToAmount: the payment amount"),
    },
    [],
    { description: "A swap that would cover a payment (SWAP_REQUIRED): the fields of the bot's signed swap" },
  ),
  ExecuteResponse: object(
    {
      requestId,
      status: requestStatus,
      txHash: hash("On-chain transaction hash; present when approved"),
      reason: text("Why the request was rejected"),
      errorCode: rejectionCode,
    },
    ["txHash", "reason", "errorCode"],
    { description: "Answer for a protocol execution (submit and status)" },
  ),
  VaultTokenValue: object({
    token: address("Token contract"),
    symbol: text("Token symbol"),
    balance: baseUnits("Raw base units"),
    decimals: { type: "integer", minimum: 0, maximum: 255 },
    priceUsd: { type: "number", description: "Price from on-chain oracles" },
    valueUsd: { type: "number", description: "Value of the holding" },
  }),
  VaultValue: object({
    vault: address("Vault address"),
    chainId: { type: "integer" },
    totalValueUsd: { type: "number" },
    tokens: { type: "array", items: ref("VaultTokenValue"), description: "Holdings with a non-zero balance" },
  }),
  RebalanceTokens: object({
    source: rebalanceSource,
    tokens: { type: "array", items: address("Token"), description: "Effective whitelist" },
    rebalanceTokenCount: { type: "integer", minimum: 0, description: "Tokens the owner set on-chain; > 0 replaces the defaults" },
  }),
  RebalanceTokenCheck: object({ allowed: bool("Whether the token may be swapped into"), source: rebalanceSource }),
  TokenBalance: object({ balance: baseUnits("Raw base units held by the vault") }),
  TokenBalances: object({
    balances: {
      type: "object",
      propertyNames: { pattern: "^0x[0-9a-fA-F]{40}$" },
      additionalProperties: baseUnits("Raw base units"),
      description: "Base units by token address",
    },
  }),
  BotStatus: object({ isActive: bool("Whether the bot is active on the vault") }),
  VaultInfo: object({
    owner: address("Vault owner"),
    operator: address("Vault operator"),
    paused: bool("Whether the owner paused the vault"),
    version: text("Vault contract version"),
    trackUsedIntents: bool("Whether the vault records executed intent hashes"),
  }),
  DestinationCheck: object(
    { allowed: bool("Whether the bot may pay this address"), reason: text("Why not (blacklist, whitelists)") },
    ["reason"],
  ),
  ProtocolStatus: object({ approved: bool("Whether the vault may call this contract") }),
  AuthNonce: object({
    nonce: text("Nonce for the Sign-In with Ethereum message; single use"),
    expiresAt: { type: "string", format: "date-time", description: "When the nonce stops being accepted" },
  }),
  LoginResult: object({
    token: text("Bearer token for the owner routes"),
    address: address("The signed-in owner"),
    expiresAt: { type: "string", format: "date-time", description: "When the token stops being accepted" },
  }),
  ReviewItem: object(
    {
      requestId,
      kind: { type: "string", enum: ["payment", "execute", "swap", "x402"] },
      status: requestStatus,
      chainId: { type: "integer" },
      vault: address("Vault"),
      bot: address("Bot that signed the intent"),
      intentHash: hash("EIP-712 digest of the intent on the vault's domain; signed in the ReviewApproval"),
      createdAt: timestamp("When the request arrived"),
      deadline: timestamp("Last moment the request can be approved"),
      heldBecause: text("Why the request is held for review"),
      memo: text("The bot's memo"),
      metadata,
      invoiceId: text("The merchant's invoice id, as the bot sent it"),
      orderId: text("The merchant's order id, as the bot sent it"),
      recipientLabel: text("Who the bot says the recipient is; a label, never checked against the address"),
      resourceUrl: text("The http(s) URL of what is paid for, as the bot sent it"),
      x402Funding: { type: ["object", "boolean"], additionalProperties: true, description: "The x402 payment the request funds (true or the requirement), as the bot sent it" },
      x402: {
        type: "object",
        additionalProperties: false,
        properties: { resource: { type: "string" }, description: { type: "string" }, payTo: { type: "string" }, amount: { type: "string" }, asset: { type: "string" }, scheme: { type: "string" } },
        description: "What is bought: an x402 request's requirement (its payTo, amount and asset the signed ones), or a funding payment's x402Funding requirement",
      },
      callData: { type: "string", pattern: "^0x([0-9a-fA-F]{2})*$", description: "Execute only: the calldata the intent's calldataHash commits to, for the owner's side to check and decode itself" },
      call: ref("ReviewCall"),
      outflows: {
        type: "array",
        items: ref("ReviewOutflow"),
        description: "Execute only, when the relayer simulated it: every token amount the call moves out of the vault",
      },
    },
    ["memo", "metadata", "invoiceId", "orderId", "recipientLabel", "resourceUrl", "x402Funding", "x402", "callData", "call", "outflows"],
    {
      additionalProperties: true,
      description: "A held request. The relayer adds the intent in base and human units, its USD value and the agents' verdicts.",
    },
  ),
  ReviewCallArgument: object(
    {
      name: text("Parameter name: spender, operator, to, amount, tokenId…"),
      type: text("Solidity type"),
      value: {
        type: ["string", "boolean", "array"],
        items: { type: "string" },
        description: "Exact value: a checksummed address, decimal base units, a boolean, or a list of decimals",
      },
      text: text('For reading: "20,000 USDC (20000000000 base units)", "unlimited USDC (2^256−1: no limit at all)"'),
      token: address("For a token amount: the token it is counted in"),
      symbol: text("The token's symbol, when the relayer knows the token"),
      decimals: { type: "integer", minimum: 0, maximum: 255 },
      human: text("The amount in human units, when the relayer knows the token"),
      unlimited: { type: "boolean", const: true, description: "An allowance of 2^256−1" },
    },
    ["token", "symbol", "decimals", "human", "unlimited"],
  ),
  ReviewCall: object(
    {
      decoded: bool("Whether the calldata was decoded; when false only the selector and length are known"),
      target: address("The contract called"),
      targetSymbol: text("The target's symbol, when it is a token the relayer knows"),
      selector: { type: "string", pattern: "^0x[0-9a-f]{8}$", description: "First 4 bytes of the calldata; absent when shorter" },
      function: text("Function name (decoded only)"),
      signature: text("Function signature, e.g. approve(address,uint256) (decoded only)"),
      arguments: { type: "array", items: ref("ReviewCallArgument"), description: "Each argument, labelled (decoded only)" },
      calldataBytes: { type: "integer", minimum: 0, description: "Length of the calldata (not decoded only)" },
      summary: text('One line: "approve(spender 0x7099…79C8, amount 20,000 USDC)" or "not decoded: unknown function 0x… (68 bytes of calldata)"'),
    },
    ["targetSymbol", "selector", "function", "signature", "arguments", "calldataBytes"],
    { description: "Execute only: what the call asks the vault to do" },
  ),
  ReviewOutflow: object(
    {
      token: address("Token leaving the vault (the zero address for ETH)"),
      amount: baseUnits("Base units"),
      symbol: text("The token's symbol, when known"),
      decimals: { type: "integer", minimum: 0, maximum: 255 },
      human: text("Amount in human units, when the token is known"),
      usdValue: { type: "number", description: "USD value, priced by the feeds" },
      text: text('For reading: "20,000 USDC ($20,000.00)"'),
    },
    ["symbol", "decimals", "human"],
  ),
  ReviewList: object({ reviews: { type: "array", items: ref("ReviewItem") } }),
  ReviewDecision: {
    anyOf: [ref("PaymentResponse"), ref("ExecuteResponse")],
    description: "The decided request's own response shape",
  },
  Health: object({ status: text("ok while the process serves") }, [], { additionalProperties: true }),
  ChainToken: object(
    {
      address: address("Token contract"),
      symbol: text("Token symbol, e.g. USDC"),
      decimals: { type: "integer", minimum: 0, description: "Token decimals" },
    },
    ["symbol", "decimals"],
  ),
  ChainInfo: object(
    {
      chainId: { type: "integer", minimum: 1, description: "Chain id" },
      name: text('The network\'s name, e.g. "Base Sepolia"'),
      factoryAddress: address("Vault factory: deployVault() deploys a vault owned by the caller"),
      registryAddress: address("Service registry: relayers, default tokens, protocols, routers, price feeds"),
      routers: { type: "array", items: address("Swap router"), description: "Swap routers the relayer routes through" },
      devnet: bool("A development chain: metadata.scenario overrides are honoured there"),
      tokens: { type: "array", items: ref("ChainToken"), description: "Tokens the relayer knows on this chain" },
      defaultRebalanceTokens: { type: "array", items: ref("ChainToken"), description: "Rebalance whitelist of a vault that sets none: the registry's, which the vaults enforce; absent while the chain does not answer" },
      domain: object(
        { name: text("EIP-712 domain name of the factory's vaults"), version: text('EIP-712 domain version ("1")') },
        [],
        { description: "The vaults' EIP-712 domain (chainId: this chain; verifyingContract: the vault); absent while the chain does not answer" },
      ),
    },
    ["defaultRebalanceTokens", "domain"],
  ),
  ChainList: object({ chains: { type: "array", items: ref("ChainInfo"), description: "Every chain the relayer serves" } }),
} as const satisfies Record<string, Schema>;

export type ResponseSchemaName = keyof typeof responseSchemas;
