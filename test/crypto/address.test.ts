import fc from "fast-check";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import {
  checksumAddressFromBytes,
  parseAddress,
  toChecksumAddress,
} from "../../src/crypto/address.ts";

describe("addresses", () => {
  it("checksums like viem", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        const lower = `0x${Buffer.from(bytes).toString("hex")}`;
        const expected = getAddress(lower);
        expect(checksumAddressFromBytes(bytes)).toBe(expected);
        expect(toChecksumAddress(lower)).toBe(expected);
        expect(toChecksumAddress(lower.toUpperCase().replace("0X", "0x"))).toBe(expected);
        // Again, now from the cache, and from bytes at an offset.
        expect(checksumAddressFromBytes(bytes)).toBe(expected);
        expect(checksumAddressFromBytes(Uint8Array.of(9, 9, ...bytes), 2)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("accepts checksummed, all-lowercase and all-uppercase; refuses a bad checksum", () => {
    const good = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(parseAddress(good)).toEqual({ ok: true, address: good });
    expect(parseAddress(good.toLowerCase())).toEqual({ ok: true, address: good });
    expect(parseAddress("0x" + good.slice(2).toUpperCase())).toEqual({ ok: true, address: good });
    expect(parseAddress("0x70997970c51812dc3A010C7d01b50e0d17dc79C8")).toEqual({ ok: false, reason: "checksum" });
    expect(parseAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C")).toEqual({ ok: false, reason: "format" });
    expect(parseAddress("0X70997970C51812dc3A010C7d01b50e0d17dc79C8")).toEqual({ ok: false, reason: "format" });
    expect(parseAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79CG")).toEqual({ ok: false, reason: "format" });
    expect(() => toChecksumAddress("nope")).toThrow(TypeError);
  });
});
