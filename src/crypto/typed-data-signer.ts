// An EIP-712 signer for the CLI's bots. viem's privateKeyToAccount derives the address with the
// pure-JS curve, whose first use builds its precomputed tables: ~90 ms of CPU and several MB on every
// `relay pay`, more than the rest of the signing. ecdsa.ts signs the same digest (viem's
// hashTypedData's, typed-data-digest.ts) with the same RFC 6979 nonce and low s, so the signature is
// byte for byte viem's (test/crypto/typed-data-signer.test.ts). A key that is not valid gets viem's
// account, that is its error, as does every key where OpenSSL lacks the curve (key-address.ts).
import { bytesToHex, type Hex, type TypedDataDefinition } from "viem";
import type { TypedDataSigner } from "../../packages/client/src/sign.ts";
import { ecdsaSign } from "./ecdsa.ts";
import { keyAndAddress, viemAccounts } from "./key-address.ts";
import { typedDataDigest } from "./typed-data-digest.ts";

/** A signer of EIP-712 typed data for `privateKey`, as `privateKeyToAccount(privateKey)` signs. */
export function typedDataSigner(privateKey: Hex): TypedDataSigner {
  const valid = keyAndAddress(privateKey);
  if (valid === undefined) return viemAccounts().privateKeyToAccount(privateKey);
  const { key, address } = valid;
  return {
    address,
    async signTypedData(definition) {
      const digest = typedDataDigest(definition as TypedDataDefinition);
      const { signature, recid } = ecdsaSign(digest, key);
      // r ‖ s ‖ v with v = 27 + the recovery id: viem's serializeSignature of a yParity.
      return `${bytesToHex(signature)}${(27 + recid).toString(16)}` as Hex;
    },
  };
}
