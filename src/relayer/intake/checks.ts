// The synchronous checks of a request, in DESIGN.md §7's order, over the policy snapshot read at
// one block. Each throws the one RelayError that describes the first failure. The vault's static
// policy, checked after these and before the balance, is a list of rules: policy/index.ts.
import type { Address } from "viem";
import type { RelayRequest } from "../../api/validate.ts";
import { isEth } from "../../chain/eth.ts";
import { relayError } from "../../errors.ts";
import { recoverSigner } from "../../eip712/recover.ts";
import { hashIntent } from "../../eip712/hash.ts";
import type { VaultDomain } from "../../../packages/client/src/intent-types.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";

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
  // Cancelled by the owner or the operator, or by the relayer making a rejection final (cancels.ts).
  if (snapshot.intentCancelled) throw relayError("INTENT_REJECTED", "this intent was cancelled on-chain: its owner refused it; sign a new intent");
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
