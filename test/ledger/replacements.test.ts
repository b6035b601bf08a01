// Fee-bump replacements in the ledger: filed under the hash first recorded, listed oldest first,
// kept across a reopen, and a replacement recorded twice is filed once.
import { describe, expect, it } from "vitest";
import { freshStore } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const hash = (n: number) => "0x" + n.toString(16).padStart(64, "0");

describe.each(storeFactories)("replacements ($name)", (factory) => {
  it("files replacements under the original hash, oldest first, and keeps them across a reopen", async () => {
    const { store, clock, connect } = await freshStore(factory);
    expect(await store.replacementsOf(hash(1))).toEqual([]);
    expect(await store.recordReplacement(hash(1), hash(2), "0xAA02")).toEqual({ txHash: hash(2), rawTx: "0xaa02", createdAt: clock.now() });
    clock.advance(1_000);
    await store.recordReplacement(hash(1), hash(3).toUpperCase().replace("0X", "0x"), "0xaa03");
    await store.recordReplacement(hash(9), hash(10), "0xaa10");
    const expected = [
      { txHash: hash(2), rawTx: "0xaa02", createdAt: clock.now() - 1_000 },
      { txHash: hash(3), rawTx: "0xaa03", createdAt: clock.now() },
    ];
    expect(await store.replacementsOf(hash(1))).toEqual(expected);
    expect(await store.replacementsOf(hash(1).toUpperCase().replace("0X", "0x"))).toEqual(expected);
    await store.close();
    expect(await (await connect()).replacementsOf(hash(1))).toEqual(expected);
  });

  it("a replacement recorded twice, in any case, is filed once", async () => {
    const { store } = await freshStore(factory);
    await store.recordReplacement(hash(1), hash(2), "0xaa02");
    await store.recordReplacement(hash(1), hash(2), "0xaa02");
    await store.recordReplacement(hash(1), hash(2).toUpperCase().replace("0X", "0x"), "0xaa02");
    expect(await store.replacementsOf(hash(1))).toHaveLength(1);
  });
});
