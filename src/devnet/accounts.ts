// The devnet's roles, each a fixed account of the well-known test mnemonic, so that every start has
// the same addresses. The first two match the EIP-712 vectors in shared/vectors (owner #0, bot #1).
import { mnemonicToAccount, privateKeyToAddress, type HDAccount } from "viem/accounts";
import { bytesToHex, type Address, type Hex } from "viem";
import { DEV_ACCOUNT_COUNT, TEST_MNEMONIC } from "../chain/hardhat.ts";

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

export function devAccount(index: number): HDAccount {
  return mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index });
}

export function devKeyPair(index: number): KeyPair {
  const account = devAccount(index);
  const key = account.getHdKey().privateKey;
  if (key === null) throw new Error(`no private key for dev account #${index}`);
  return { address: account.address, privateKey: bytesToHex(key) };
}

export function devRoles(): Record<Role, KeyPair> {
  const entries = Object.entries(ROLE_INDEX).map(([role, index]) => [role, devKeyPair(index)]);
  return Object.fromEntries(entries) as Record<Role, KeyPair>;
}

let devAddresses: Set<string> | undefined;

/**
 * Whether `privateKey` is one of the well-known test mnemonic's accounts (every devnet's funded
 * accounts). Such a key is public: on a real network anyone can spend from it.
 */
export function isDevKey(privateKey: Hex): boolean {
  devAddresses ??= new Set(Array.from({ length: DEV_ACCOUNT_COUNT }, (_, index) => devAccount(index).address.toLowerCase()));
  return devAddresses.has(privateKeyToAddress(privateKey).toLowerCase());
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
