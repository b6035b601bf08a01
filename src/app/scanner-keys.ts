// The in-process AI panel's keys (docs/design.md, "AI holds"): one per agent, each signing the
// agent's verdicts. From the configuration (ai.scannerKeys); on a relayer serving devnets only, the
// devnet's panel keys (its vault registers them); otherwise kept in the state directory's
// `scanner-keys` (0600), made on first start. The vault's owner registers their addresses
// (setScanners) for verdicts to count.
import { readFileSync } from "node:fs";
import path from "node:path";
import { generatePrivateKey } from "viem/accounts";
import type { Hex } from "viem";
import { devScannerKeys } from "../devnet/accounts.ts";
import { tightenFile, writePrivateFile } from "../private-files.ts";

const FILE = "scanner-keys";
const KEY = /^0x[0-9a-fA-F]{64}$/;

export function scannerKeysFor(options: { configured?: readonly Hex[]; devnetsOnly: boolean; stateDir: string }): Hex[] {
  if (options.configured) return [...options.configured];
  if (options.devnetsOnly) return devScannerKeys().map((k) => k.privateKey);
  const file = path.join(options.stateDir, FILE);
  let text: string | undefined;
  try {
    tightenFile(file);
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (text === undefined) {
    const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()];
    writePrivateFile(file, `${JSON.stringify({ keys })}\n`);
    return keys;
  }
  const keys = (JSON.parse(text) as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length !== 3 || !keys.every((k) => typeof k === "string" && KEY.test(k))) {
    throw new Error(`${file} does not hold three scanner keys`);
  }
  return keys as Hex[];
}
