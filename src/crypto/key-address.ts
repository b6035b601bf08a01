// A private key as native libsecp256k1 holds it, and its address. viem's privateKeyToAddress and
// privateKeyToAccount use the pure-JS curve, whose first use builds its precomputed tables: ~100-200
// ms of CPU, which a relayer paid at every start for its keys' addresses (src/relayer/chain/
// chain-runtime.ts) and `relay pay` for its bot's (typed-data-signer.ts). A key libsecp256k1 refuses,
// or a machine where the add-on cannot load, gets viem's answer (and its errors). viem/accounts, and
// its curve with it, is loaded only then (through require, which the CLI's bundle leaves to Node).
import { createRequire } from "node:module";
import { hexToBytes, type Address, type Hex } from "viem";
import { checksumAddressFromBytes } from "./address.ts";
import { keccak256 } from "./keccak.ts";

interface Secp256k1Api {
  privateKeyVerify(seckey: Uint8Array): boolean;
  publicKeyCreate(seckey: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}

/** A key libsecp256k1 accepts: the add-on, the key's bytes and its EIP-55 address. */
export interface NativeKey {
  secp256k1: Secp256k1Api;
  key: Uint8Array;
  address: Address;
}

/** viem's accounts module, loaded on first use (the fallback for a key libsecp256k1 does not take). */
export function viemAccounts(): typeof import("viem/accounts") {
  return createRequire(import.meta.url)("viem/accounts") as typeof import("viem/accounts");
}

/** The native add-on (loaded once by Node's module cache), or undefined where it cannot load. */
function loadSecp256k1(): Secp256k1Api | undefined {
  try {
    return createRequire(import.meta.url)("secp256k1") as Secp256k1Api;
  } catch {
    return undefined;
  }
}

/** `privateKey` as libsecp256k1 holds it, or undefined where the add-on cannot load or refuses the key. */
export function nativeKey(privateKey: Hex): NativeKey | undefined {
  const secp256k1 = loadSecp256k1();
  const key = /^0x[0-9a-fA-F]{64}$/.test(privateKey) ? hexToBytes(privateKey) : undefined;
  if (secp256k1 === undefined || key === undefined || !secp256k1.privateKeyVerify(key)) return undefined;
  // The last 20 bytes of keccak256 of the uncompressed public key without its 0x04 prefix.
  const publicKey = secp256k1.publicKeyCreate(key, false);
  return { secp256k1, key, address: checksumAddressFromBytes(keccak256(Buffer.from(publicKey.subarray(1))), 12) };
}

/** The EIP-55 address of `privateKey`, as viem's privateKeyToAddress gives it. */
export function addressOfKey(privateKey: Hex): Address {
  return nativeKey(privateKey)?.address ?? viemAccounts().privateKeyToAddress(privateKey);
}
