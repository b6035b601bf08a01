// A private key's bytes and its address. viem's privateKeyToAddress and privateKeyToAccount use the
// pure-JS curve, whose first use builds its precomputed tables: ~100-200 ms of CPU, which a relayer
// paid at every start for its keys' addresses (src/relayer/chain/chain-runtime.ts) and `relay pay`
// for its bot's (typed-data-signer.ts). The public key here is OpenSSL's (ecdsa.ts), ~0.6 ms. A key
// that is not 32 bytes in [1, N - 1] gets viem's answer, that is its error, as does every key where
// OpenSSL lacks the curve; viem/accounts, and its curve with it, is loaded only then (through require,
// which the CLI's bundle leaves to Node).
import { createRequire } from "node:module";
import { hexToBytes, type Address, type Hex } from "viem";
import { checksumAddressFromBytes } from "./address.ts";
import { hasSecp256k1, isPrivateKey, publicKeyOf } from "./ecdsa.ts";
import { keccak256 } from "./keccak.ts";

/** A valid private key: its bytes and its EIP-55 address. */
export interface KeyAndAddress {
  key: Uint8Array;
  address: Address;
}

/** viem's accounts module, loaded on first use (for a key that is not valid: its error). */
export function viemAccounts(): typeof import("viem/accounts") {
  return createRequire(import.meta.url)("viem/accounts") as typeof import("viem/accounts");
}

/**
 * `privateKey`'s bytes and address, or undefined when it is not 32 bytes of hex in [1, N - 1] or
 * this Node's OpenSSL lacks the curve.
 */
export function keyAndAddress(privateKey: Hex): KeyAndAddress | undefined {
  const key = /^0x[0-9a-fA-F]{64}$/.test(privateKey) ? hexToBytes(privateKey) : undefined;
  if (!hasSecp256k1() || key === undefined || !isPrivateKey(key)) return undefined;
  // The last 20 bytes of keccak256 of the uncompressed public key without its 0x04 prefix.
  const publicKey = publicKeyOf(key);
  return { key, address: checksumAddressFromBytes(keccak256(publicKey.subarray(1)), 12) };
}

/** The EIP-55 address of `privateKey`, as viem's privateKeyToAddress gives it. */
export function addressOfKey(privateKey: Hex): Address {
  return keyAndAddress(privateKey)?.address ?? viemAccounts().privateKeyToAddress(privateKey);
}
