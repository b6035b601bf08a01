// Private keys kept in a file of their own (0600), made on first use: the in-process AI panel's
// scanner keys (app/scanner-keys.ts) and `relay agents`' keys (cli/commands/agents.ts).
import { readFileSync } from "node:fs";
import { generatePrivateKey } from "viem/accounts";
import type { Hex } from "viem";
import { tightenFile, writePrivateFile } from "../private-files.ts";

const KEY = /^0x[0-9a-fA-F]{64}$/;

/**
 * The three private keys kept in `file` (0600, JSON `{keys}`), made on first use: the in-process
 * panel's scanner-keys and `relay agents`' keys. A file that holds anything else is refused with
 * "`file` does not hold `what`", never replaced.
 */
export function threeKeysIn(file: string, what: string): Hex[] {
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
  let keys: unknown;
  try {
    keys = (JSON.parse(text) as { keys?: unknown }).keys;
  } catch {
    keys = undefined;
  }
  if (!Array.isArray(keys) || keys.length !== 3 || !keys.every((k) => typeof k === "string" && KEY.test(k))) {
    throw new Error(`${file} does not hold ${what}`);
  }
  return keys as Hex[];
}
