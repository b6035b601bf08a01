// The address of a private key, derived with native libsecp256k1. viem's privateKeyToAddress uses the
// pure-JS curve, whose first use builds its precomputed tables: ~100-200 ms of CPU, which a relayer
// paid at every start for its keys' addresses (src/relayer/chain/chain-runtime.ts). A key libsecp256k1
// refuses, or a machine where the add-on cannot load, gets viem's answer (and its errors).
import { createRequire } from "node:module";
import { hexToBytes, type Address, type Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { checksumAddressFromBytes } from "./address.ts";
import { keccak256 } from "./keccak.ts";

interface Secp256k1Keys {
  privateKeyVerify(seckey: Uint8Array): boolean;
  publicKeyCreate(seckey: Uint8Array, compressed: boolean): Uint8Array;
}

/** The native add-on (loaded once; the relayer's signer has it loaded already), or undefined where it cannot load. */
function loadSecp256k1(): Secp256k1Keys | undefined {
  try {
    return createRequire(import.meta.url)("secp256k1") as Secp256k1Keys;
  } catch {
    return undefined;
  }
}

/** The EIP-55 address of `privateKey`, as viem's privateKeyToAddress gives it. */
export function addressOfKey(privateKey: Hex): Address {
  const secp256k1 = loadSecp256k1();
  const key = /^0x[0-9a-fA-F]{64}$/.test(privateKey) ? hexToBytes(privateKey) : undefined;
  if (secp256k1 === undefined || key === undefined || !secp256k1.privateKeyVerify(key)) return privateKeyToAddress(privateKey);
  // The last 20 bytes of keccak256 of the uncompressed public key without its 0x04 prefix.
  const publicKey = secp256k1.publicKeyCreate(key, false);
  return checksumAddressFromBytes(keccak256(Buffer.from(publicKey.subarray(1))), 12);
}

