// The devnet's roles, each a fixed account of the well-known test mnemonic, so that every start has
// the same addresses. The first two match the EIP-712 vectors in shared/vectors (owner #0, bot #1).
import { pbkdf2Sync } from "node:crypto";
import { HDKey, privateKeyToAddress } from "viem/accounts";
import { bytesToHex, type Address, type Hex } from "viem";
import { DEV_ACCOUNT_COUNT, TEST_MNEMONIC } from "../chain/hardhat.ts";
import { PUBLISHED_ACCOUNTS } from "../chain/published-accounts.ts";

export const ROLE_INDEX = {
  owner: 0,
  defaultBot: 1,
  reviewedBot: 2,
  operator: 3,
  relayer: 4,
  deployer: 5,
} as const;

export type Role = keyof typeof ROLE_INDEX;

export interface KeyPair {
  address: Address;
  privateKey: Hex;
}

/**
 * The test mnemonic's key at m/44'/60'/0'/0, the parent of every account, derived once and with
 * node's native PBKDF2: the BIP-39 seed is 2,048 rounds of HMAC-SHA512, about 20 ms in JavaScript,
 * and a relayer's start compares its keys with all 20 accounts.
 */
let accountsParent: HDKey | undefined;

const keyPairs = new Map<number, KeyPair>();


/** Account #`index` of the test mnemonic (m/44'/60'/0'/0/`index`), as every devnet funds it. */
export function devKeyPair(index: number): KeyPair {
  const published = PUBLISHED_ACCOUNTS[index];
  if (published !== undefined) return { address: published[0], privateKey: published[1] };
  let pair = keyPairs.get(index);
  if (pair) return { ...pair };
  accountsParent ??= HDKey.fromMasterSeed(pbkdf2Sync(TEST_MNEMONIC.normalize("NFKD"), "mnemonic", 2048, 64, "sha512")).derive("m/44'/60'/0'/0");
  const key = accountsParent.deriveChild(index).privateKey;
  if (key === null) throw new Error(`no private key for dev account #${index}`);
  const privateKey = bytesToHex(key);
  pair = { address: privateKeyToAddress(privateKey), privateKey };
  keyPairs.set(index, pair);
  return { ...pair };
}

/**
 * The devnet's AI panel keys, one per agent (safety, behavioral, reasoning): the devnet's vault
 * registers them as its scanners (setScanners) and a relayer serving only devnets signs verdicts
 * with them. The last three accounts, apart from every role's.
 */
export function devScannerKeys(): KeyPair[] {
  return [17, 18, 19].map(devKeyPair);
}

export function devRoles(): Record<Role, KeyPair> {
  const entries = Object.entries(ROLE_INDEX).map(([role, index]) => [role, devKeyPair(index)]);
  return Object.fromEntries(entries) as Record<Role, KeyPair>;
}

/**
 * Whether `privateKey` is one of the well-known test mnemonic's accounts (every devnet's funded
 * accounts). Such a key is public: on a real network anyone can spend from it.
 */
export function isDevKey(privateKey: Hex): boolean {
  return devKeyOf(privateKeyToAddress(privateKey)) !== undefined;
}

let devKeysByAddress: Map<string, Hex> | undefined;

/** The private key of `address` when it is one of the well-known test mnemonic's accounts. */
export function devKeyOf(address: Address): Hex | undefined {
  devKeysByAddress ??= new Map(Array.from({ length: DEV_ACCOUNT_COUNT }, (_, index) => {
    const pair = devKeyPair(index);
    return [pair.address.toLowerCase(), pair.privateKey] as const;
  }));
  return devKeysByAddress.get(address.toLowerCase());
}
