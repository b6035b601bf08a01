// The text a wallet signs to accept the relayer's terms: its exact form, the URL line only when the
// relayer names one, and the issue time read back out of it.
import { describe, expect, it } from "vitest";
import { issuedAtOf, termsMessage } from "../../packages/client/src/terms-message.ts";

const wallet = "0xabcdef0123456789abcdef0123456789abcdef01";

describe("terms message", () => {
  it("is the fixed text with the checksummed wallet, the version and the issue time", () => {
    expect(termsMessage({ wallet, version: "2026-11", issuedAt: "2026-11-02T09:30:00.000Z" })).toBe(
      [
        "Relay terms of service",
        "",
        "I accept the terms of service of this relayer for the vaults this wallet owns.",
        "",
        "Wallet: 0xabCDeF0123456789AbcdEf0123456789aBCDEF01",
        "Terms version: 2026-11",
        "Issued At: 2026-11-02T09:30:00.000Z",
      ].join("\n"),
    );
  });

  it("names the terms URL when there is one", () => {
    const text = termsMessage({ wallet, version: "v2", url: "https://example.com/terms", issuedAt: "2026-11-02T09:30:00Z" });
    expect(text.split("\n").slice(4)).toEqual([
      "Wallet: 0xabCDeF0123456789AbcdEf0123456789aBCDEF01",
      "Terms version: v2",
      "Terms URL: https://example.com/terms",
      "Issued At: 2026-11-02T09:30:00Z",
    ]);
  });

  it("differs for another version or another wallet", () => {
    const base = { wallet, version: "2026-11", issuedAt: "2026-11-02T09:30:00.000Z" } as const;
    expect(termsMessage({ ...base, version: "2026-12" })).not.toBe(termsMessage(base));
    expect(termsMessage({ ...base, wallet: "0x" + "1".repeat(40) as `0x${string}` })).not.toBe(termsMessage(base));
  });

  it("reads the issue time back, and nothing from a text without a valid one", () => {
    expect(issuedAtOf(termsMessage({ wallet, version: "v", issuedAt: "2026-11-02T09:30:00.123Z" }))).toBe("2026-11-02T09:30:00.123Z");
    expect(issuedAtOf("Issued At: yesterday")).toBeUndefined();
    expect(issuedAtOf("Issued At: 2026-13-45T99:99:99Z")).toBeUndefined();
    expect(issuedAtOf("no time here")).toBeUndefined();
  });
});
