// The in-process AI panel's keys (docs/design.md, "AI holds"): one per agent, each signing the
// agent's verdicts. From the configuration (ai.scannerKeys); on a relayer serving devnets only, the
// devnet's panel keys (its vault registers them); otherwise kept in the state directory's
// `scanner-keys` (0600), made on first start. The vault's owner registers their addresses
// (setScanners) for verdicts to count.
import path from "node:path";
import type { Hex } from "viem";
import { devScannerKeys } from "../devnet/accounts.ts";
import { threeKeysIn } from "../crypto/key-file.ts";

const FILE = "scanner-keys";

export function scannerKeysFor(options: { configured?: readonly Hex[]; devnetsOnly: boolean; stateDir: string }): Hex[] {
  if (options.configured) return [...options.configured];
  if (options.devnetsOnly) return devScannerKeys().map((k) => k.privateKey);
  return threeKeysIn(path.join(options.stateDir, FILE), "three scanner keys");
}
