// The vault's storage layout is pinned: the vault and its extension (reached by delegatecall) must
// agree on every slot, and a reader using extsload is only as good as the slot map it computed its
// slots from. solc's storageLayout output is compared with the committed
// storage-layout.expected.json, variable by variable.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { storageLayouts, type SlotEntry } from "./storage-layout.ts";

const EXPECTED_FILE = path.join(import.meta.dirname, "storage-layout.expected.json");
const VAULT = "contracts/ServiceVault.sol:ServiceVault";
const EXTENSION = "contracts/vault/VaultExtension.sol:VaultExtension";

const show = (v: SlotEntry | undefined) => (v === undefined ? "nothing" : `${v.name} (${v.type}) at slot ${v.slot}, offset ${v.offset}`);

/** One line per variable that differs, or [] when the layouts are the same. */
function differences(actual: SlotEntry[], expected: SlotEntry[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    const [a, e] = [actual[i], expected[i]];
    if (JSON.stringify(a) !== JSON.stringify(e)) lines.push(`  variable #${i}: expected ${show(e)}, found ${show(a)}`);
  }
  return lines;
}

describe("the vault's storage layout", () => {
  const layouts = storageLayouts([
    { file: "contracts/ServiceVault.sol", contract: "ServiceVault" },
    { file: "contracts/vault/VaultExtension.sol", contract: "VaultExtension" },
  ]);
  const expected = JSON.parse(readFileSync(EXPECTED_FILE, "utf8")) as SlotEntry[];

  it("is the pinned one (test/contracts/storage-layout.expected.json)", () => {
    const diff = differences(layouts.get(VAULT)!, expected);
    expect(
      diff,
      `ServiceVault's storage layout changed:\n${diff.join("\n")}\n` +
        "A variable that moves reads another's value, and extsload readers compute slots from the pin. " +
        "Append new variables at the end of VaultStorage; if the change is meant, update storage-layout.expected.json with it.",
    ).toEqual([]);
  });

  it("is the extension's too: the vault's fallback runs the extension's code on the vault's storage", () => {
    const diff = differences(layouts.get(EXTENSION)!, layouts.get(VAULT)!);
    expect(
      diff,
      `VaultExtension's storage layout differs from ServiceVault's (expected: the vault's):\n${diff.join("\n")}\n` +
        "Both must inherit VaultStorage first and EIP712 after, and declare no state of their own.",
    ).toEqual([]);
  });

  it("names every variable once, slots in order", () => {
    expect(new Set(expected.map((v) => v.name)).size).toBe(expected.length);
    const slots = expected.map((v) => Number(v.slot));
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
  });
});
