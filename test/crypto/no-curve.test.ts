// Where Node's OpenSSL lacks secp256k1 (a Node linked against Fedora's or RHEL's OpenSSL), the key's
// address and the CLI's signatures come from viem's curve instead, and are the same. node:crypto is
// made to refuse the curve as such an OpenSSL does; nothing of relay is replaced.
import { describe, expect, it, vi } from "vitest";
import { privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import type { Hex } from "viem";

vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  const createECDH: typeof crypto.createECDH = (curve) => {
    if (curve === "secp256k1") throw new TypeError("Invalid EC curve name");
    return crypto.createECDH(curve);
  };
  return { ...crypto, default: { ...crypto, createECDH }, createECDH };
});

const { hasSecp256k1 } = await import("../../src/crypto/ecdsa.ts");
const { addressOfKey, keyAndAddress } = await import("../../src/crypto/key-address.ts");
const { typedDataSigner } = await import("../../src/crypto/typed-data-signer.ts");

const KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

describe("without secp256k1 in OpenSSL", () => {
  it("says so, and keys, addresses and signatures come from viem", async () => {
    expect(hasSecp256k1()).toBe(false);
    expect(keyAndAddress(KEY)).toBeUndefined();
    expect(addressOfKey(KEY)).toBe(privateKeyToAddress(KEY));
    const signer = typedDataSigner(KEY);
    const viem = privateKeyToAccount(KEY);
    expect(signer.address).toBe(viem.address);
    const definition = {
      domain: { name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Hex },
      types: { Ping: [{ name: "n", type: "uint256" }] },
      primaryType: "Ping" as const,
      message: { n: 7n },
    };
    expect(await signer.signTypedData(definition as never)).toBe(await viem.signTypedData(definition));
  });
});
