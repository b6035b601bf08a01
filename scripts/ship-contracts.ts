// The compiled contracts the repository ships (compiled/), so that a fresh clone needs no solc: from a
// Hardhat build's artifacts/ it keeps, for each contract named like its source file, only what relay
// reads (src/chain/artifacts.ts). `npm run compile` runs it after compiling; the toolchain copies the
// shipped files back into artifacts/ when contracts/ still hashes to what compiled/SOURCES records;
// test/contracts/shipped-artifacts.test.ts recompiles and compares, byte for byte.
//   node scripts/ship-contracts.ts <hardhat artifacts dir> <compiled dir>
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The fields of a Hardhat artifact that relay reads; the rest (build info ids, references) stays out. */
export const SHIPPED_FIELDS = ["contractName", "sourceName", "abi", "bytecode", "deployedBytecode"] as const;

/** The stamp beside the shipped files: the digest of the sources and compiler settings they come from. */
export const SOURCES_STAMP = "SOURCES";

/**
 * Every shipped file, as relative path → content: `mocks/MockERC20.json` from
 * `<artifactsDir>/contracts/mocks/MockERC20.sol/MockERC20.json`. Sorted, so that output is stable.
 */
export function shippedFiles(artifactsDir: string): Map<string, string> {
  const root = path.join(artifactsDir, "contracts");
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = path.join(dir, entry.name);
      if (!entry.isDirectory()) continue;
      if (!entry.name.endsWith(".sol")) {
        walk(full);
        continue;
      }
      // A source file's artifacts: only the contract named like the file is reachable by name.
      const base = entry.name.slice(0, -".sol".length);
      let text: string;
      try {
        text = readFileSync(path.join(full, `${base}.json`), "utf8");
      } catch {
        continue; // a file of types or libraries only (lib/VaultTypes.sol)
      }
      const artifact = JSON.parse(text) as Record<string, unknown>;
      const kept = Object.fromEntries(SHIPPED_FIELDS.map((field) => [field, artifact[field]]));
      const relative = path.relative(root, path.join(dir, `${base}.json`)).split(path.sep).join("/");
      files.set(relative, `${JSON.stringify(kept)}\n`);
    }
  };
  walk(root);
  if (files.size === 0) throw new Error(`no compiled contracts under ${root}`);
  return files;
}

/** Replaces `compiledDir`'s contract files with those of `artifactsDir` (the stamp is the caller's). */
export function shipContracts(artifactsDir: string, compiledDir: string): number {
  const files = shippedFiles(artifactsDir);
  for (const entry of readdirSync(compiledDir, { withFileTypes: true }).filter((e) => e.name !== SOURCES_STAMP)) {
    rmSync(path.join(compiledDir, entry.name), { recursive: true, force: true });
  }
  for (const [relative, content] of files) {
    const file = path.join(compiledDir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return files.size;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [from, to] = process.argv.slice(2);
  if (from === undefined || to === undefined) {
    console.error("usage: node scripts/ship-contracts.ts <hardhat artifacts dir> <compiled dir>");
    process.exit(2);
  }
  mkdirSync(to, { recursive: true });
  console.log(`shipped ${shipContracts(from, to)} contracts into ${to}`);
}
