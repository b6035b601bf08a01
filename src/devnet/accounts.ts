// The devnet's roles, each a fixed account of the well-known test mnemonic, so that every start has
// the same addresses. The first two match the EIP-712 vectors in shared/vectors (owner #0, bot #1).
import { mnemonicToAccount, type HDAccount } from "viem/accounts";
import { bytesToHex, type Address, type Hex } from "viem";
import { TEST_MNEMONIC } from "../chain/hardhat.ts";

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
