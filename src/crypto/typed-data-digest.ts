// The EIP-712 digest the CLI's signer signs (typed-data-signer.ts). viem's hashTypedData hashes with
// its pure-JS keccak, which in a command that runs once is still interpreted code: ~20 ms of a
// `relay pay`'s CPU went to it. relay's own encoder (src/eip712/hash.ts, the relayer's, over the
// native keccak) gives the same digest for relay's four types. It is used only where viem's
// hashTypedData could not have failed: relay's types as they are, a domain of the four fields
// relay's vaults have, addresses viem accepts and 32-byte hex where bytes32 goes; and any error of
// the encoder sends the definition to viem. So the digest, or the error, is always viem's.
import { hashTypedData, type TypedDataDefinition } from "viem";
import { intentTypes, type VaultDomain } from "../../packages/client/src/intent-types.ts";
import { hashIntentBytes, primaryTypeOf, type HashKind } from "../eip712/hash.ts";
import { isHexAddress, toChecksumAddress } from "./address.ts";

const kindOf = Object.fromEntries(Object.entries(primaryTypeOf).map(([kind, type]) => [type, kind])) as Record<string, HashKind | undefined>;
const DOMAIN_FIELDS = ["chainId", "name", "verifyingContract", "version"];
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** The digest of `definition`, as viem's hashTypedData computes it. */
export function typedDataDigest(definition: TypedDataDefinition): Uint8Array {
  const kind = relayKind(definition);
  if (kind !== undefined) {
    try {
      return hashIntentBytes(kind, definition.domain as VaultDomain, definition.message as never);
    } catch {
      // A value the encoder refuses: viem's verdict below.
    }
  }
  return Buffer.from(hashTypedData(definition).slice(2), "hex");
}

// The intent kind when `definition` is one of relay's types with values viem would accept as they are.
function relayKind(definition: TypedDataDefinition): HashKind | undefined {
  const { domain, types, primaryType, message } = definition as { domain?: Record<string, unknown>; types: unknown; primaryType: string; message: Record<string, unknown> };
  const kind = kindOf[primaryType];
  if (kind === undefined || types !== intentTypes || domain === undefined) return undefined;
  if (Object.keys(domain).sort().join() !== DOMAIN_FIELDS.join() || !viemAddress(domain.verifyingContract)) return undefined;
  for (const member of intentTypes[primaryTypeOf[kind]]) {
    const value = message[member.name];
    const fine =
      member.type === "address" ? viemAddress(value)
      : member.type === "address[]" ? Array.isArray(value) && value.every(viemAddress)
      : member.type === "bytes32" ? typeof value === "string" && BYTES32.test(value)
      : true; // uint256 and uint256[]: the encoder takes bigints in range only, and throws otherwise
    if (!fine) return undefined;
  }
  return kind;
}

// viem's isAddress (strict): 0x and 40 hex digits, all lowercase or checksummed.
function viemAddress(value: unknown): boolean {
  return typeof value === "string" && isHexAddress(value) && (value === value.toLowerCase() || toChecksumAddress(value) === value);
}
