import fc from "fast-check";
import { keccak256 as viemKeccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { keccak256, keccak256Hex, keccakBackend } from "../../src/crypto/keccak.ts";

describe("keccak256", () => {
  it("uses the native add-on here", () => {
    expect(keccakBackend).toBe("native");
  });

  it("hashes known values", () => {
    expect(keccak256(Buffer.alloc(0)).toString("hex")).toBe(
      "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
    expect(keccak256Hex("0x")).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  });

  it("agrees with viem on random inputs of every length around the rate", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const buf = Buffer.from(bytes);
        expect(`0x${keccak256(buf).toString("hex")}`).toBe(viemKeccak256(bytes));
      }),
      { numRuns: 500 },
    );
  });
});
