// Limits and intent options parsed from flags.
import { describe, expect, it } from "vitest";
import { applyLimitFlags, parseDuration, parseLimit, UNLIMITED } from "../../src/cli/commands/limits.ts";
import { deadlineFrom, metadataFrom, refFrom } from "../../src/cli/commands/intents.ts";
import { refFromString } from "../../packages/client/src/sign.ts";

describe("limits from flags", () => {
  it("parses USD amounts with 6 decimals and windows with units", () => {
    expect(parseLimit("1000/1h")).toEqual({ amount: 1_000_000_000n, windowSeconds: 3600n, maxCount: 0n });
    expect(parseLimit("0.5/90/3")).toEqual({ amount: 500_000n, windowSeconds: 90n, maxCount: 3n });
    expect(parseDuration("7d", "--limit")).toBe(604_800n);
    expect(() => parseLimit("1000")).toThrow(/<usd>\/<window>/);
    expect(() => parseLimit("1000/0")).toThrow(/window must be a duration/);
    expect(() => parseLimit("1.0000001/1h")).toThrow(/at most 6 decimals/);
  });

  it("applies only the flags given, over a base config", () => {
    const base = { ...UNLIMITED, maxPerTxAmount: 5n, requireHumanReview: true, spendingLimits: [{ amount: 1n, maxCount: 0n, windowSeconds: 60n }] };
    const updated = applyLimitFlags(base, { aiThreshold: "250", requireReview: false });
    expect(updated).toEqual({ ...base, aiTriggerThreshold: 250_000_000n, requireHumanReview: false });
    expect(applyLimitFlags(base, { dailyLimit: "2000" }).spendingLimits).toEqual([{ amount: 2_000_000_000n, maxCount: 0n, windowSeconds: 86_400n }]);
    expect(applyLimitFlags(base, { clearLimits: true }).spendingLimits).toEqual([]);
    expect(() => applyLimitFlags(base, { limit: ["1/1h", "1/2h", "1/3h", "1/4h", "1/5h", "1/6h"] })).toThrow(/at most 5 spending limits/);
  });
});

describe("intent options", () => {
  it("takes a bytes32 ref as is and hashes any other text", () => {
    const hex = `0x${"ab".repeat(32)}`;
    expect(refFrom(hex)).toBe(hex);
    expect(refFrom("invoice 42")).toBe(refFromString("invoice 42"));
    expect(refFrom(undefined)).toMatch(/^0x[0-9a-f]{64}$/);
    expect(refFrom(undefined)).not.toBe(refFrom(undefined));
  });

  it("counts the deadline in seconds from now, 300 by default", () => {
    expect(deadlineFrom(undefined, 1_000)).toBe(1_300n);
    expect(deadlineFrom("60", 1_000)).toBe(1_060n);
    expect(() => deadlineFrom("-5", 1_000)).toThrow(/--deadline is the intent.s lifetime in seconds from now: a whole number from 1 up to the relayer.s --max-deadline/);
  });

  it("reads metadata as key=value pairs, values may contain '='", () => {
    expect(metadataFrom(["scenario=ai-approve", "note=a=b"])).toEqual({ scenario: "ai-approve", note: "a=b" });
    expect(metadataFrom(undefined)).toBeUndefined();
    expect(() => metadataFrom(["=x"])).toThrow(/key=value/);
  });
});
