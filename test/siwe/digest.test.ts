// The EIP-191 personal_sign digest must be the one wallets sign: compared with viem's hashMessage.
import { describe, expect, it } from "vitest";
import { hashMessage } from "viem";
import { personalMessageDigest } from "../../src/siwe/digest.ts";

describe("personalMessageDigest", () => {
  it.each(["", "hello", "two\nlines", "naïve ✓ — 多字节", "x".repeat(1000)])("matches viem's hashMessage for %j", (message) => {
    expect(`0x${personalMessageDigest(message).toString("hex")}`).toBe(hashMessage(message));
  });
});
