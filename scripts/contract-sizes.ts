// The room left in the contracts whose code size is at a limit: EIP-170 caps a contract's runtime
// code at 24,576 bytes, EIP-3860 an init code at 49,152. The vault's runtime is the tight one (issue
// 32 adds spend windows and attestation checks to it; see docs/design.md, "Room in the vault"); the
// factory's init code embeds the vault's and the extension's, which the vault's constructor builds.
// Printed by `npm run compile` (from compiled/) and `npm run bench:gas` (from the devnet's code).
//   node scripts/contract-sizes.ts [compiled dir]
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const EIP170_RUNTIME_LIMIT = 24_576;
export const EIP3860_INIT_LIMIT = 49_152;

/** The contracts whose sizes matter, as compiled/ names them, with what each is. */
export const SIZED_CONTRACTS = [
  ["ServiceVault", "ServiceVault (implementation)"],
  ["vault/VaultExtension", "VaultExtension"],
  ["ServiceVaultFactory", "ServiceVaultFactory"],
] as const;

export interface CodeSize {
  label: string;
  runtime: number;
  init?: number;
}

/** Bytes of a 0x-prefixed hex string. */
export const bytesOf = (hex: string): number => (hex.length - 2) / 2;

/** "ServiceVault (implementation): 17153 bytes of runtime code, 7423 left under EIP-170's 24576 …" */
export function sizeLine({ label, runtime, init }: CodeSize): string {
  const runtimeLeft = `${runtime} bytes of runtime code, ${EIP170_RUNTIME_LIMIT - runtime} left under EIP-170's ${EIP170_RUNTIME_LIMIT}`;
  if (init === undefined) return `${label}: ${runtimeLeft}`;
  return `${label}: ${runtimeLeft}; init code ${init} bytes, ${EIP3860_INIT_LIMIT - init} left under EIP-3860's ${EIP3860_INIT_LIMIT}`;
}

/** The sizes of SIZED_CONTRACTS as compiled into `compiledDir`. */
export function compiledSizes(compiledDir: string): CodeSize[] {
  return SIZED_CONTRACTS.map(([name, label]) => {
    const artifact = JSON.parse(readFileSync(path.join(compiledDir, `${name}.json`), "utf8")) as { bytecode: string; deployedBytecode: string };
    return { label, runtime: bytesOf(artifact.deployedBytecode), init: bytesOf(artifact.bytecode) };
  });
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "compiled");
  for (const size of compiledSizes(dir)) console.log(sizeLine(size));
}
