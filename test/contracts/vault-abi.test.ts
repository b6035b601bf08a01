// The vault's ABI as callers see it (its own plus what its fallback serves from VaultExtension,
// src/chain/artifacts.ts) is pinned in vault-abi.expected.txt: the relayer, the CLI, relay-client
// and the production SDK's readers call these by name, wherever in the vault's code they live.
// Moving a function between the vault and its extension changes nothing here; removing or
// changing one fails until every reader is updated, then this list.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { abiLines } from "./abi-lines.ts";

const EXPECTED_FILE = path.join(import.meta.dirname, "vault-abi.expected.txt");

describe("the vault's ABI as callers see it", () => {
  it("is the pinned one (test/contracts/vault-abi.expected.txt)", () => {
    const actual = abiLines(readArtifact("ServiceVault").abi);
    const expected = readFileSync(EXPECTED_FILE, "utf8").split("\n").filter((line) => line !== "");
    const removed = expected.filter((line) => !actual.includes(line));
    const added = actual.filter((line) => !expected.includes(line));
    expect(
      { removed, added },
      "The vault's ABI changed. Readers call it by name (src/relayer/chain/, the CLI, relay-client, the lenses, the production SDK): " +
        "update each for what was removed, then vault-abi.expected.txt.",
    ).toEqual({ removed: [], added: [] });
  });
});
