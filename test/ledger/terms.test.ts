// Terms acceptances in the ledger: one per wallet and version, the first one standing, addresses
// compared case-insensitively, the latest version found, and all of it kept across a reopen.
import { describe, expect, it } from "vitest";
import { freshStore } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const WALLET = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01";

describe.each(storeFactories)("terms acceptances ($name)", (factory) => {
  it("records an acceptance per wallet and version, finds it under any case, and keeps it across a reopen", async () => {
    const { store, clock, connect } = await freshStore(factory);
    expect(await store.findTermsAcceptance(WALLET, "2026-11")).toBeUndefined();
    expect(await store.latestTermsAcceptance(WALLET)).toBeUndefined();

    const first = await store.recordTermsAcceptance({ wallet: WALLET, version: "2026-11", signature: "0xs1", message: "m1" });
    const expected = { wallet: WALLET.toLowerCase(), version: "2026-11", signature: "0xs1", message: "m1", at: clock.now() };
    expect(first).toEqual(expected);
    expect(await store.findTermsAcceptance(WALLET.toLowerCase(), "2026-11")).toEqual(expected);
    expect(await store.findTermsAcceptance(WALLET, "2026-12")).toBeUndefined();
    expect(await store.findTermsAcceptance("0x" + "1".repeat(40), "2026-11")).toBeUndefined();
    await store.close();
    expect(await (await connect()).findTermsAcceptance(WALLET, "2026-11")).toEqual(expected);
  });

  it("accepting the same version again keeps the first acceptance", async () => {
    const { store, clock } = await freshStore(factory);
    const first = await store.recordTermsAcceptance({ wallet: WALLET, version: "v1", signature: "0xs1", message: "m1" });
    clock.advance(60_000);
    const again = await store.recordTermsAcceptance({ wallet: WALLET, version: "v1", signature: "0xs2", message: "m2" });
    expect(again).toEqual(first);
    expect(await store.findTermsAcceptance(WALLET, "v1")).toEqual(first);
  });

  it("the latest acceptance is the most recent version accepted", async () => {
    const { store, clock } = await freshStore(factory);
    await store.recordTermsAcceptance({ wallet: WALLET, version: "v1", signature: "0xs1", message: "m1" });
    clock.advance(1_000);
    await store.recordTermsAcceptance({ wallet: WALLET, version: "v2", signature: "0xs2", message: "m2" });
    expect(await store.latestTermsAcceptance(WALLET)).toMatchObject({ version: "v2", at: clock.now() });
  });
});
