// Which of a 402's requirements a vault pays: the `exact` scheme by EIP-3009 on the vault's chain,
// in a token the vault holds enough of, at a price within the caller's maximum (inclusive). The
// offered order is the paywall's preference and is kept. Nothing here signs anything.
import type { Address } from "viem";
import { X402NoPayableRequirementError, X402PriceAboveMaxError } from "./x402-errors.ts";
import { evmChainId, requirementAddress, type X402PaymentRequirements } from "./x402-wire.ts";

/** A requirement this vault can pay, with its fields read. */
export interface PayableRequirement {
  requirement: X402PaymentRequirements;
  price: bigint;
  asset: Address;
  payTo: Address;
  /** The asset's EIP-712 domain name and version (from `extra`), for the EIP-3009 authorization. */
  name: string;
  version: string;
}

export interface ChooseOptions {
  chainId: number;
  /** The vault's balance of a token, in base units. */
  vaultBalance: (asset: Address) => Promise<bigint>;
  /** The most the caller pays in this asset, in its base units; undefined: no maximum. */
  max?: (asset: Address) => Promise<bigint | undefined>;
}

/**
 * @throws X402NoPayableRequirementError when none can be paid from the vault.
 * @throws X402PriceAboveMaxError when every payable one costs more than the maximum (naming the cheapest).
 */
export async function chooseRequirement(accepts: readonly X402PaymentRequirements[], options: ChooseOptions): Promise<PayableRequirement> {
  const reasons: string[] = [];
  const payable: PayableRequirement[] = [];
  for (const requirement of accepts) {
    const what = `${requirement.scheme} on ${requirement.network}`;
    const method = requirement.extra?.assetTransferMethod;
    const name = requirement.extra?.name;
    const version = requirement.extra?.version;
    if (requirement.scheme !== "exact") reasons.push(`${what}: only the exact scheme is paid`);
    else if (evmChainId(requirement.network) !== options.chainId) reasons.push(`${what}: the vault is on eip155:${options.chainId}`);
    else if (method !== undefined && method !== "eip3009") reasons.push(`${what}: transfer method ${String(method)} (only EIP-3009 is paid)`);
    else if (typeof name !== "string" || typeof version !== "string") reasons.push(`${what}: no EIP-712 name and version for ${requirement.asset}`);
    else {
      const asset = requirementAddress(requirement.asset);
      const price = BigInt(requirement.amount);
      const held = await options.vaultBalance(asset);
      if (price === 0n) reasons.push(`${what}: a price of 0`);
      else if (held < price) reasons.push(`${what}: the vault holds ${held} of ${asset}, the price is ${price}`);
      else payable.push({ requirement, price, asset, payTo: requirementAddress(requirement.payTo), name, version });
    }
  }
  if (payable.length === 0) throw new X402NoPayableRequirementError(reasons);
  let cheapest: { candidate: PayableRequirement; max: bigint } | undefined;
  for (const candidate of payable) {
    const max = options.max === undefined ? undefined : await options.max(candidate.asset);
    if (max === undefined || candidate.price <= max) return candidate;
    if (cheapest === undefined || candidate.price < cheapest.candidate.price) cheapest = { candidate, max };
  }
  throw new X402PriceAboveMaxError(cheapest!.candidate.requirement, cheapest!.max);
}
