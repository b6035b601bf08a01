// stringifyWithBigints writes the text JSON.stringify writes with a bigint-to-string replacer.
import { describe, expect, it } from "vitest";
import { stringifyWithBigints } from "../../src/api/bigint-json.ts";

const withReplacer = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));

describe("stringifyWithBigints", () => {
  const values: unknown[] = [
    1n,
    "x",
    null,
    undefined,
    [1n, [2n, "a"], { b: 3n }],
    { kind: "payment", intent: { amount: 1000n, deadline: 1_900_000_000n, to: "0xab" }, skipped: undefined, chainId: 1, n: null },
    { outflows: [{ token: "0x1", amount: (1n << 255n) + 7n }], unpriced: [], nested: { deeper: { value: 0n, list: [undefined, 5n] } } },
    { at: new Date(0), withToJson: { toJSON: () => ({ big: 9n }) }, fn: () => 1 },
    Object.assign(Object.create({ inherited: 1n }), { own: 2n }),
    [, 1n] as unknown[],
  ];

  it.each(values.map((value) => [value]))("matches the replacer's text for %o", (value) => {
    expect(stringifyWithBigints(value)).toBe(withReplacer(value));
  });

  it("leaves the value it is given unchanged", () => {
    const value = { intent: { amount: 5n }, list: [6n] };
    stringifyWithBigints(value);
    expect(value).toEqual({ intent: { amount: 5n }, list: [6n] });
  });
});
