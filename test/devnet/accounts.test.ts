// The devnet's accounts are the well-known test mnemonic's (BIP-39 seed, BIP-44 path m/44'/60'/0'/0/i):
// the addresses every Hardhat and anvil node funds, and that isDevKey must recognise.
import { describe, expect, it } from "vitest";
import { mnemonicToAccount, generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { bytesToHex } from "viem";
import { DEV_ACCOUNT_COUNT, TEST_MNEMONIC } from "../../src/chain/hardhat.ts";
import { devKeyOf, devKeyPair, devRoles, isDevKey, ROLE_INDEX } from "../../src/devnet/accounts.ts";

describe("devnet accounts", () => {
  it("are the published accounts of the test mnemonic", () => {
    // As Hardhat and anvil print them at start.
    expect(devKeyPair(0)).toEqual({
      address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    });
    expect(devKeyPair(1).address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(devKeyPair(19).address).toBe("0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199");
  });

  it("match viem's derivation from the mnemonic, every index", () => {
    for (let index = 0; index < DEV_ACCOUNT_COUNT; index++) {
      const account = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index });
      expect(devKeyPair(index)).toEqual({ address: account.address, privateKey: bytesToHex(account.getHdKey().privateKey!) });
    }
  });

  it("give each role its own fixed index", () => {
    const roles = devRoles();
    for (const [role, index] of Object.entries(ROLE_INDEX)) expect(roles[role as keyof typeof ROLE_INDEX]).toEqual(devKeyPair(index));
  });

  it("are recognised as development keys, and only they", () => {
    for (let index = 0; index < DEV_ACCOUNT_COUNT; index++) {
      const { address, privateKey } = devKeyPair(index);
      expect(isDevKey(privateKey)).toBe(true);
      expect(devKeyOf(address)).toBe(privateKey);
      expect(devKeyOf(address.toLowerCase() as typeof address)).toBe(privateKey);
    }
    const stranger = generatePrivateKey();
    expect(isDevKey(stranger)).toBe(false);
    expect(devKeyOf(privateKeyToAddress(stranger))).toBeUndefined();
    // Beyond the funded accounts: the mnemonic's next key is not one a node funds.
    expect(isDevKey(bytesToHex(mnemonicToAccount(TEST_MNEMONIC, { addressIndex: DEV_ACCOUNT_COUNT }).getHdKey().privateKey!))).toBe(false);
  });
});
