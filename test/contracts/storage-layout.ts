// Reads solc's storageLayout output for contracts of contracts/, with the pinned solc-js and no
// code generation (layout only: a few seconds, not a full compile).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { projectRoot } from "../../src/paths.ts";

const require = createRequire(import.meta.url);

/** One state variable as the layout pin records it: where it lives and what it is. */
export interface SlotEntry {
  slot: string;
  offset: number;
  type: string;
  name: string;
}

interface SolcStorage {
  storage: { slot: string; offset: number; type: string; label: string }[];
  types: Record<string, { label: string }> | null;
}

/** `contracts/<file>` : `<contract>` → its state variables in slot order, with readable type labels. */
export function storageLayouts(targets: { file: string; contract: string }[]): Map<string, SlotEntry[]> {
  const solc = require("solc") as { compile(input: string, callbacks: unknown): string };
  const sources: Record<string, { content: string }> = {};
  const outputSelection: Record<string, Record<string, string[]>> = {};
  for (const { file, contract } of targets) {
    sources[file] = { content: readFileSync(path.join(projectRoot, file), "utf8") };
    (outputSelection[file] ??= {})[contract] = ["storageLayout"];
  }
  const findImports = (name: string) => {
    const local = path.join(projectRoot, name);
    try {
      return { contents: readFileSync(name.startsWith("@") ? require.resolve(name) : local, "utf8") };
    } catch {
      return { error: `not found: ${name}` };
    }
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: "Solidity", sources, settings: { outputSelection } }), { import: findImports }),
  ) as { errors?: { severity: string; formattedMessage: string }[]; contracts: Record<string, Record<string, { storageLayout: SolcStorage }>> };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const layouts = new Map<string, SlotEntry[]>();
  for (const { file, contract } of targets) {
    const { storage, types } = output.contracts[file]![contract]!.storageLayout;
    layouts.set(
      `${file}:${contract}`,
      storage.map((v) => ({ slot: v.slot, offset: v.offset, type: types?.[v.type]?.label ?? v.type, name: v.label })),
    );
  }
  return layouts;
}
