// The hex pieces of the hand-written ABI encoders keep recent address words and small-number words
// (src/relayer/chain/abi-hex.ts): what they give is the word itself, whichever spelling of an
// address comes first, before and after the address cache is cleared, and nothing is kept for text
// that is not an address.
import { encodeAbiParameters, getAddress, type Address } from "viem";
import { describe, expect, it } from "vitest";
import { addressWord, arrayOf, bytesTail, concat, lower, word } from "../../src/relayer/chain/abi-hex.ts";

const reference = (address: Address) => encodeAbiParameters([{ type: "address" }], [address]).slice(2);
const nthAddress = (i: number) => `0x${(BigInt(i) * 0x9e3779b97f4a7c15n + 0xabcdefn).toString(16).padStart(40, "0").slice(-40)}` as Address;

describe("abi-hex", () => {
  it("gives an address's word for either spelling, across more addresses than it keeps", () => {
    for (let i = 0; i < 9000; i++) {
      const lower = nthAddress(i);
      const checksummed = getAddress(lower);
      const first = i % 2 === 0 ? checksummed : lower;
      const second = i % 2 === 0 ? lower : checksummed;
      expect(addressWord(first)).toBe(reference(lower));
      expect(addressWord(second)).toBe(reference(lower));
      expect(addressWord(first)).toBe(reference(lower));
    }
  });

  it("refuses text that is not an address, before and after a valid address was seen", () => {
    const valid = nthAddress(1);
    expect(addressWord(valid)).toBe(reference(valid));
    for (const bad of [valid.slice(0, 41), `${valid}0`, valid.slice(2), `0x${"g".repeat(40)}`, "", valid.toUpperCase()]) {
      expect(addressWord(bad)).toBeUndefined();
      expect(addressWord(bad)).toBeUndefined();
    }
  });

  it("writes a number's word the same whether it is small, large, a number or a bigint", () => {
    for (const n of [0, 1, 31, 32, 255, 256, 8191, 8192, 8193, 2 ** 32, 2 ** 53 - 1]) {
      const expected = n.toString(16).padStart(64, "0");
      expect(word(n)).toBe(expected);
      expect(word(n)).toBe(expected);
      expect(word(BigInt(n))).toBe(expected);
    }
    expect(word((1n << 256n) - 1n)).toBe("f".repeat(64));
  });

  it("lays out a dynamic array as the generic encoder does", () => {
    const elements = ["aa".repeat(32), "bb".repeat(64), "cc".repeat(32)];
    expect(arrayOf(elements)).toBe(
      word(3) + word(96) + word(128) + word(192) + elements.join(""),
    );
    expect(concat(elements)).toBe(elements.join(""));
    expect(arrayOf([])).toBe(word(0));
  });

  it("writes bytes and hex in lower case whatever case they came in", () => {
    expect(lower("00aBcDeF")).toBe("00abcdef");
    const mixed = `0x${"aB".repeat(33)}`;
    const tail = word(33) + "ab".repeat(33) + "0".repeat(62);
    expect(bytesTail(mixed)).toBe(tail);
    expect(bytesTail(mixed.toLowerCase())).toBe(tail);
    expect(bytesTail("0x")).toBe(word(0));
    expect(bytesTail("0xabc")).toBeUndefined();
  });
});
