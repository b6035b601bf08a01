// The AI panel's verdict: AiVerdict(bytes32 intentHash,uint256 deadline), EIP-712 typed data on the
// vault's domain, signed by a scanner key the vault's owner registered (setScanners). The vault
// executes a request the AI scan holds with 2 or 3 of them, concatenated in ascending order of
// signer, in the reviewed entry points' approval argument (docs/design.md, "AI holds").
import { concat, hashTypedData, type Address, type Hex } from "viem";
import type { VaultDomain } from "../../packages/client/src/intent-types.ts";

export const verdictTypes = {
  AiVerdict: [
    { name: "intentHash", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The digest a scanner signs for `intentHash` until `deadline` (seconds) on the vault's domain. */
export function verdictDigest(domain: VaultDomain, intentHash: Hex, deadline: bigint): Hex {
  return hashTypedData({ domain, types: verdictTypes, primaryType: "AiVerdict", message: { intentHash, deadline } });
}

/** One scanner's signature. */
export interface SignedVerdict {
  signer: Address;
  signature: Hex;
}

/** The vault's form of the verdicts: their signatures concatenated in ascending order of signer. */
export function packVerdicts(verdicts: readonly SignedVerdict[]): Hex {
  const sorted = [...verdicts].sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : BigInt(a.signer) > BigInt(b.signer) ? 1 : 0));
  return concat(sorted.map((v) => v.signature));
}
