import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatUnits, parseUnits } from "../../packages/client/src/units.ts";

describe("parseUnits", () => {
  it("parses plain decimals", () => {
    expect(parseUnits("5", 6)).toBe(5_000_000n);
    expect(parseUnits("0.25", 6)).toBe(250_000n);
    expect(parseUnits(".5", 6)).toBe(500_000n);
    expect(parseUnits("5.", 6)).toBe(5_000_000n);
    expect(parseUnits("0", 18)).toBe(0n);
    expect(parseUnits("007", 0)).toBe(7n);
    expect(parseUnits("1.000001", 6)).toBe(1_000_001n);
    expect(parseUnits("123456789012345678901234567890", 18)).toBe(123456789012345678901234567890n * 10n ** 18n);
  });

  it("accepts extra decimal places only when they are zeros", () => {
    expect(parseUnits("1.5000000000", 6)).toBe(1_500_000n);
    expect(parseUnits("2.0", 0)).toBe(2n);
  });

  it("refuses more decimal places than the token supports, naming amount and decimals", () => {
    expect(() => parseUnits("1.1234567", 6)).toThrow('amount "1.1234567" has more than 6 decimal places');
    expect(() => parseUnits("0.5", 0)).toThrow('amount "0.5" has more than 0 decimal places');
  });

  it.each(["", ".", "-1", "+1", "1e3", "1E3", "1,000", "1_000", " 1", "1 ", "0x10", "1.2.3", "abc", "Infinity", "NaN"])(
    "refuses %j",
    (input) => {
      expect(() => parseUnits(input, 6)).toThrow(`amount "${input}"`);
    },
  );

  it("refuses invalid decimals", () => {
    expect(() => parseUnits("1", -1)).toThrow(/decimals/);
    expect(() => parseUnits("1", 1.5)).toThrow(/decimals/);
    expect(() => formatUnits(1n, 256)).toThrow(/decimals/);
  });
});

describe("formatUnits", () => {
  it("formats without trailing zeros or exponent", () => {
    expect(formatUnits(5_000_000n, 6)).toBe("5");
    expect(formatUnits(250_000n, 6)).toBe("0.25");
    expect(formatUnits(1n, 18)).toBe("0.000000000000000001");
    expect(formatUnits(0n, 6)).toBe("0");
    expect(formatUnits(10n ** 30n, 0)).toBe("1000000000000000000000000000000");
    expect(formatUnits(-1_500_000n, 6)).toBe("-1.5");
  });
});

describe("round trips", () => {
  const decimals = fc.integer({ min: 0, max: 36 });

  it("parse(format(x)) === x for any non-negative base amount", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), decimals, (base, d) => {
        expect(parseUnits(formatUnits(base, d), d)).toBe(base);
      }),
    );
  });

  it("format(parse(s)) is the canonical form of s", () => {
    const human = fc
      .tuple(fc.stringMatching(/^[0-9]{1,30}$/), fc.stringMatching(/^[0-9]{0,18}$/))
      .map(([whole, fraction]) => (fraction === "" ? whole : `${whole}.${fraction}`));
    fc.assert(
      fc.property(human, (s) => {
        const canonical = s.includes(".") ? s.replace(/\.?0+$/, "") : s;
        const expected = canonical.replace(/^0+(?=\d)/, "");
        expect(formatUnits(parseUnits(s, 18), 18)).toBe(expected);
      }),
    );
  });
});
