// An EIP-712 signer over native libsecp256k1, for the CLI's bots. viem's privateKeyToAccount derives
// the address with the pure-JS curve, whose first use builds its precomputed tables: ~90 ms of CPU
// and several MB on every `relay pay`, more than the rest of the signing. libsecp256k1 signs the same
// digest (viem's hashTypedData's, typed-data-digest.ts) with the same RFC 6979 nonce and low s, so the
// signature is byte for byte viem's (test/crypto/typed-data-signer.test.ts). A key libsecp256k1
// refuses, or a machine where the add-on cannot load, gets viem's account: its errors, its result.
// The key and its address come from key-address.ts, which loads viem's curve only for that fallback:
// evaluating the curve's code is a few ms of every `relay pay`.
import { bytesToHex, type Hex, type TypedDataDefinition } from "viem";
import type { TypedDataSigner } from "../../packages/client/src/sign.ts";
import { nativeKey, viemAccounts } from "./key-address.ts";
import { typedDataDigest } from "./typed-data-digest.ts";

/** A signer of EIP-712 typed data for `privateKey`, as `privateKeyToAccount(privateKey)` signs. */
export function typedDataSigner(privateKey: Hex): TypedDataSigner {
  const native = nativeKey(privateKey);
  if (native === undefined) return viemAccounts().privateKeyToAccount(privateKey);
  const { secp256k1, key, address } = native;
  return {
    address,
    async signTypedData(definition) {
      const digest = typedDataDigest(definition as TypedDataDefinition);
      const { signature, recid } = secp256k1.ecdsaSign(digest, key);
      // r ‖ s ‖ v with v = 27 + the recovery id: viem's serializeSignature of a yParity.
      return `${bytesToHex(signature)}${(27 + recid).toString(16)}` as Hex;
    },
  };
}
