// An EIP-712 signer over native libsecp256k1, for the CLI's bots. viem's privateKeyToAccount derives
// the address with the pure-JS curve, whose first use builds its precomputed tables: ~90 ms of CPU
// and several MB on every `relay pay`, more than the rest of the signing. libsecp256k1 signs the same
// digest (viem's hashTypedData's, typed-data-digest.ts) with the same RFC 6979 nonce and low s, so the
// signature is byte for byte viem's (test/crypto/typed-data-signer.test.ts). A key libsecp256k1
// refuses, or a machine where the add-on cannot load, gets viem's account: its errors, its result.
// That fallback, and viem's pure-JS curve with it, is loaded only then (viem/accounts through
// require, which the CLI's bundle leaves to Node): evaluating the curve's code is a few ms of every
// `relay pay`.
import { createRequire } from "node:module";
import { bytesToHex, hexToBytes, type Hex, type TypedDataDefinition } from "viem";
import type { TypedDataSigner } from "../../packages/client/src/sign.ts";
import { checksumAddressFromBytes } from "./address.ts";
import { keccak256 } from "./keccak.ts";
import { typedDataDigest } from "./typed-data-digest.ts";

const privateKeyToAccount = (privateKey: Hex): TypedDataSigner =>
  (createRequire(import.meta.url)("viem/accounts") as typeof import("viem/accounts")).privateKeyToAccount(privateKey);

interface Secp256k1Api {
  privateKeyVerify(seckey: Uint8Array): boolean;
  publicKeyCreate(seckey: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadSecp256k1(): Secp256k1Api | undefined {
  try {
    return createRequire(import.meta.url)("secp256k1") as Secp256k1Api;
  } catch {
    return undefined;
  }
}

/** A signer of EIP-712 typed data for `privateKey`, as `privateKeyToAccount(privateKey)` signs. */
export function typedDataSigner(privateKey: Hex): TypedDataSigner {
  const secp256k1 = loadSecp256k1();
  const key = /^0x[0-9a-fA-F]{64}$/.test(privateKey) ? hexToBytes(privateKey) : undefined;
  if (secp256k1 === undefined || key === undefined || !secp256k1.privateKeyVerify(key)) return privateKeyToAccount(privateKey);
  // The address: the last 20 bytes of keccak256 of the uncompressed public key without its 0x04.
  const publicKey = secp256k1.publicKeyCreate(key, false);
  const address = checksumAddressFromBytes(keccak256(Buffer.from(publicKey.subarray(1))), 12);
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
