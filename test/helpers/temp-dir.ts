// Temporary directories for tests, removed when the test file ends: a test file (or a harness it
// imports) that makes one with `tempDir` leaves nothing behind in the system's temporary folder,
// whether its tests pass or fail.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

const made = new Set<string>();

/** A new directory `<tmp>/<prefix>XXXXXX`, removed after the current test file's last test. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes `dir` now (a harness's close()), instead of at the end of the file. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}

// Registered once per test file (each file imports this module afresh). A bench imports the test
// harnesses outside vitest, where there is no test file to hook into: it removes its own dirs.
if (process.env.VITEST) {
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
    made.clear();
  });
}
