// The synchronous checks of a request, in DESIGN.md §7's order, over the policy snapshot read at
// one block. Each throws the one RelayError that describes the first failure.
import { toFunctionSelector, type Address } from "viem";
import type { ExecuteRequest, RelayRequest } from "../api/validate.ts";
import { isEth } from "../chain/eth.ts";
import { relayError } from "../errors.ts";
import { recoverSigner } from "../eip712/recover.ts";
import { hashIntent } from "../eip712/hash.ts";
import type { VaultDomain } from "../../packages/client/src/intent-types.ts";
import type { PolicySnapshot } from "./chain-runtime.ts";
import { formatUsd } from "./usd.ts";
import { selectorOf } from "./path.ts";
import { transferRecipient } from "./token-transfer.ts";

/** `approve(address,uint256)`: the one call a registry default token allows without approval. */
const APPROVE_SELECTOR = toFunctionSelector("approve(address,uint256)");

/** The intent's EIP-712 digest on the vault's domain (the key of the vault's `usedIntents`). */
export function intentHashOf(request: RelayRequest, domain: VaultDomain) {
  return hashIntent(request.kind, domain, request.intent as never);
}

export function checkVaultExists(request: RelayRequest, snapshot: PolicySnapshot): void {
  if (!snapshot.isVault) {
    throw relayError("VAULT_NOT_FOUND", `no vault at ${request.vaultAddress} on chain ${request.chainId}`);
  }
}

/** The recovered signer must equal `bot` (high-s, 64-byte and bad-v signatures never recover). */
export function checkSignature(request: RelayRequest, digest: string): void {
  let signer: Address;
  try {
    signer = recoverSigner(digest as `0x${string}`, request.signature);
  } catch (error) {
    throw relayError("INVALID_SIGNATURE", `signature: ${(error as Error).message}`);
  }
  if (signer.toLowerCase() !== request.intent.bot.toLowerCase()) {
    throw relayError("INVALID_SIGNATURE", "the recovered signer is not bot");
  }
}

/**
 * The deadline must be in the future, by the wall clock and by the chain's clock, and at most
 * `horizonSeconds` ahead of the later of the two.
 */
export function checkDeadline(request: RelayRequest, nowSeconds: bigint, snapshot: PolicySnapshot, horizonSeconds: number): void {
  const now = snapshot.timestamp > nowSeconds ? snapshot.timestamp : nowSeconds;
  if (request.intent.deadline <= now) {
    throw relayError("DEADLINE_EXPIRED", `deadline ${request.intent.deadline} is not after ${now}`);
  }
  if (request.intent.deadline > now + BigInt(horizonSeconds)) {
    throw relayError("DEADLINE_TOO_FAR", `deadline ${request.intent.deadline} is more than ${horizonSeconds} s after ${now}; sign a shorter one`);
  }
}

/** Bot active → vault not paused → intent neither executed nor cancelled on-chain. */
export function checkBotAndVault(request: RelayRequest, snapshot: PolicySnapshot): void {
  if (!snapshot.botActive) throw relayError("BOT_NOT_ACTIVE", `bot ${request.intent.bot} is not active on vault ${request.vaultAddress}`);
  if (snapshot.paused) throw relayError("VAULT_PAUSED", `vault ${request.vaultAddress} is paused`);
  if (snapshot.intentUsed) throw relayError("DUPLICATE_INTENT", "this intent was already executed on-chain");
  if (snapshot.intentCancelled) throw relayError("INTENT_REJECTED", "the vault's owner cancelled this intent on-chain; sign a new intent");
}

/**
 * The vault's static policy (the rolling windows are checked when spend is reserved): usable price
 * feeds; per-tx cap; destination rule and blacklist (payments, never to the vault itself, and the
 * token transfers an execute makes); protocol approval with the default-token rule (execute);
 * rebalance whitelist and rebalance cap (swaps).
 */
export function checkPolicy(request: RelayRequest, snapshot: PolicySnapshot, defaultRebalanceTokens: readonly Address[]): void {
  const { config } = snapshot;
  checkPrices(snapshot);
  if (request.kind === "swap") {
    const toToken = request.intent.toToken;
    const allowed = snapshot.rebalanceTokenCount > 0n
      ? snapshot.toTokenOnVaultList
      : defaultRebalanceTokens.some((t) => t.toLowerCase() === toToken.toLowerCase());
    if (!allowed) {
      throw relayError("REBALANCE_TOKEN_NOT_ALLOWED", `toToken ${toToken} is not on the vault's ${snapshot.rebalanceTokenCount > 0n ? "on-chain" : "default"} rebalance whitelist`);
    }
    if (config.maxRebalanceAmount > 0n && snapshot.usdValue > config.maxRebalanceAmount) {
      throw relayError("EXCEEDS_REBALANCE_LIMIT", `swap worth ${formatUsd(snapshot.usdValue)} USD exceeds the bot's maxRebalanceAmount of ${formatUsd(config.maxRebalanceAmount)} USD`);
    }
    return;
  }
  checkPerTx(snapshot);
  if (request.kind === "payment" && request.intent.to.toLowerCase() === request.vaultAddress.toLowerCase()) {
    throw relayError("DESTINATION_NOT_ALLOWED", "to is the vault itself");
  }
  if (request.kind === "payment" && !snapshot.destinationAllowed) {
    throw relayError("DESTINATION_NOT_ALLOWED", `to ${request.intent.to} ${whyRefused(snapshot)}`);
  }
  if (request.kind === "execute") checkTransferDestination(request, snapshot);
  if (request.kind === "execute" && !snapshot.protocolApproved) {
    // The vault's rule: a registry default token takes `approve` calls without being approved.
    if (!snapshot.protocolIsDefaultToken) {
      throw relayError("PROTOCOL_NOT_APPROVED", `protocol ${request.intent.protocol} is not approved for this vault`);
    }
    if (selectorOf(request.callData) !== APPROVE_SELECTOR) {
      throw relayError("PROTOCOL_NOT_APPROVED", `protocol ${request.intent.protocol} is a registry default token: only approve calls on it are allowed without the vault's approval`);
    }
  }
}

/**
 * The checks that depend on a request's USD value, run again when an execute's value is raised to
 * what its simulation moves out of the vault (outflows.ts).
 */
export function checkValue(snapshot: PolicySnapshot): void {
  checkPrices(snapshot);
  checkPerTx(snapshot);
}

/** A stale or non-positive feed values nothing: the vault refuses it too. */
function checkPrices(snapshot: PolicySnapshot): void {
  if (snapshot.priceStale) throw relayError("PRICE_FEED_STALE", "a token's price feed is stale or reports no positive price; the request cannot be valued");
}

function checkPerTx({ config, usdValue }: PolicySnapshot): void {
  if (config.maxPerTxAmount > 0n && usdValue > config.maxPerTxAmount) {
    throw relayError("EXCEEDS_PER_TX_LIMIT", `amount worth ${formatUsd(usdValue)} USD exceeds the bot's maxPerTxAmount of ${formatUsd(config.maxPerTxAmount)} USD`);
  }
}

/** A token transfer made by an execute goes only where a payment could (see token-transfer.ts). */
function checkTransferDestination(request: ExecuteRequest, snapshot: PolicySnapshot): void {
  const recipient = transferRecipient(request.callData);
  if (recipient === undefined) return;
  if (/^0x0{40}$/.test(recipient)) throw relayError("DESTINATION_NOT_ALLOWED", "the call transfers tokens to the zero address");
  if (!snapshot.destinationAllowed) {
    throw relayError("DESTINATION_NOT_ALLOWED", `the call transfers tokens to ${recipient}, which ${whyRefused(snapshot)}`);
  }
}

/** Why the snapshot's destination was refused, as the end of a sentence. */
function whyRefused(snapshot: PolicySnapshot): string {
  return snapshot.destinationReason === "blacklisted" ? "is blacklisted" : "is not on the vault's or the bot's destination whitelist";
}

/** The vault must hold every amount the request moves. */
export function checkBalance(tokens: readonly Address[], amounts: readonly bigint[], snapshot: PolicySnapshot): void {
  for (let i = 0; i < tokens.length; i++) {
    if (snapshot.balances[i]! < amounts[i]!) {
      const what = isEth(tokens[i]!) ? "ETH" : `token ${tokens[i]}`;
      throw relayError("INSUFFICIENT_BALANCE", `vault holds ${snapshot.balances[i]} of ${what}, needs ${amounts[i]}`);
    }
  }
}
