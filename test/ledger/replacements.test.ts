// Fee-bump replacements in the ledger: filed under the hash first recorded, listed oldest first,
// kept across a reopen, and a replacement recorded twice is filed once.
import { describe, expect, it } from "vitest";
import { ledgerPath } from "../../src/ledger/index.ts";
import { manualClock, open, tempDir } from "./support.ts";

const hash = (n: number) => "0x" + n.toString(16).padStart(64, "0");

describe("replacements", () => {
  it("files replacements under the original hash, oldest first, and keeps them across a reopen", () => {
    const file = ledgerPath(tempDir());
    const clock = manualClock();
    const ledger = open(file, clock.now);
    expect(ledger.replacementsOf(hash(1))).toEqual([]);
    ledger.recordReplacement(hash(1), hash(2), "0xAA02");
    clock.advance(1_000);
    ledger.recordReplacement(hash(1), hash(3).toUpperCase().replace("0X", "0x"), "0xaa03");
    ledger.recordReplacement(hash(9), hash(10), "0xaa10");
    const expected = [
      { txHash: hash(2), rawTx: "0xaa02", createdAt: clock.now() - 1_000 },
      { txHash: hash(3), rawTx: "0xaa03", createdAt: clock.now() },
    ];
    expect(ledger.replacementsOf(hash(1))).toEqual(expected);
    expect(ledger.replacementsOf(hash(1).toUpperCase().replace("0X", "0x"))).toEqual(expected);
    ledger.close();
    expect(open(file).replacementsOf(hash(1))).toEqual(expected);
  });

  it("a replacement recorded twice is filed once", () => {
    const ledger = open(ledgerPath(tempDir()));
    ledger.recordReplacement(hash(1), hash(2), "0xaa02");
    ledger.recordReplacement(hash(1), hash(2), "0xaa02");
    expect(ledger.replacementsOf(hash(1))).toHaveLength(1);
  });
});
