// Terms acceptances in the ledger: one per wallet and version, the first one standing, addresses
// compared case-insensitively, the latest version found, and all of it kept across a reopen.
import { describe, expect, it } from "vitest";
import { ledgerPath } from "../../src/ledger/index.ts";
import { manualClock, open, tempDir } from "./support.ts";

const WALLET = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01";

describe("terms acceptances", () => {
  it("records an acceptance per wallet and version, finds it under any case, and keeps it across a reopen", () => {
    const file = ledgerPath(tempDir());
    const clock = manualClock();
    const ledger = open(file, clock.now);
    expect(ledger.findTermsAcceptance(WALLET, "2026-11")).toBeUndefined();
    expect(ledger.latestTermsAcceptance(WALLET)).toBeUndefined();

    const first = ledger.recordTermsAcceptance({ wallet: WALLET, version: "2026-11", signature: "0xs1", message: "m1" });
    const expected = { wallet: WALLET.toLowerCase(), version: "2026-11", signature: "0xs1", message: "m1", at: clock.now() };
    expect(first).toEqual(expected);
    expect(ledger.findTermsAcceptance(WALLET.toLowerCase(), "2026-11")).toEqual(expected);
    expect(ledger.findTermsAcceptance(WALLET, "2026-12")).toBeUndefined();
    expect(ledger.findTermsAcceptance("0x" + "1".repeat(40), "2026-11")).toBeUndefined();
    ledger.close();
    expect(open(file).findTermsAcceptance(WALLET, "2026-11")).toEqual(expected);
  });

  it("accepting the same version again keeps the first acceptance", () => {
    const clock = manualClock();
    const ledger = open(ledgerPath(tempDir()), clock.now);
    const first = ledger.recordTermsAcceptance({ wallet: WALLET, version: "v1", signature: "0xs1", message: "m1" });
    clock.advance(60_000);
    const again = ledger.recordTermsAcceptance({ wallet: WALLET, version: "v1", signature: "0xs2", message: "m2" });
    expect(again).toEqual(first);
    expect(ledger.findTermsAcceptance(WALLET, "v1")).toEqual(first);
  });

  it("the latest acceptance is the most recent version accepted", () => {
    const clock = manualClock();
    const ledger = open(ledgerPath(tempDir()), clock.now);
    ledger.recordTermsAcceptance({ wallet: WALLET, version: "v1", signature: "0xs1", message: "m1" });
    clock.advance(1_000);
    ledger.recordTermsAcceptance({ wallet: WALLET, version: "v2", signature: "0xs2", message: "m2" });
    expect(ledger.latestTermsAcceptance(WALLET)).toMatchObject({ version: "v2", at: clock.now() });
  });
});
