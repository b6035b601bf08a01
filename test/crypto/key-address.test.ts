import { describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { addressOfKey } from "../../src/crypto/key-address.ts";
import { PUBLISHED_ACCOUNTS } from "../../src/chain/published-accounts.ts";

describe("addressOfKey", () => {
  it("gives viem's address for the dev accounts and for random keys", () => {
    for (const [address, key] of PUBLISHED_ACCOUNTS) expect(addressOfKey(key as `0x${string}`)).toBe(address);
    for (let i = 0; i < 50; i++) {
      const key = generatePrivateKey();
      expect(addressOfKey(key)).toBe(privateKeyToAddress(key));
    }
  });

  it("throws viem's errors for a key that is not one", () => {
    for (const key of [`0x${"0".repeat(64)}`, "0x1234"] as const) {
      let viemError: unknown;
      try {
        privateKeyToAddress(key);
      } catch (error) {
        viemError = error;
      }
      expect(viemError).toBeInstanceOf(Error);
      expect(() => addressOfKey(key)).toThrow((viemError as Error).message);
    }
  });
});
