// Secrets at rest: the state directory holds keys (manifests, profiles), the owner-session secret and
// the ledger (bot signatures, raw transactions). Its directory is 0700 and those files 0600, and
// modes found looser (an older version, a restored backup, a generous umask) are tightened on open.
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) readable by its owner only, or tightens it to 0700. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * A state directory: 0700, and every file directly in it 0600. Everything relay keeps there is a
 * secret or holds one (manifests with keys, cli.json, auth-secret, the ledger, a relayer config).
 */
export function privateStateDir(dir: string): void {
  privateDir(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) tightenFile(path.join(dir, entry.name));
  }
}

/** Tightens an existing file to 0600 when group or others may read it; nothing when it does not exist. */
export function tightenFile(file: string): void {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if ((mode & 0o077) !== 0) chmodSync(file, PRIVATE_FILE_MODE);
}

/**
 * Writes `text` to `file` atomically (a 0600 temporary file renamed over it), so the file is never
 * readable by others, not even while written, and a reader never sees half of it. The parent
 * directory is created 0700 when missing; an existing one is left as it is (a `--manifest` copy may
 * go to any directory the user names).
 */
export function writePrivateFile(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  const tmp = `${file}.${process.pid}.tmp`;
  // A leftover temporary file from a crash would keep its old mode through `writeFileSync`.
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode: PRIVATE_FILE_MODE, flag: "wx" });
  renameSync(tmp, file);
}
