// The in-process panel's keys (src/app/scanner-keys.ts): configured keys win; a relayer serving only
// devnets uses the devnet's panel keys (the ones its vault registers); otherwise three keys are made
// once in the state directory, 0600, and reused; a file that is not three keys is refused.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePrivateKey } from "viem/accounts";
import { scannerKeysFor } from "../../src/app/scanner-keys.ts";
import { devScannerKeys } from "../../src/devnet/accounts.ts";
import { removeTempDir, tempDir } from "../helpers/temp-dir.ts";

describe("the in-process panel's scanner keys", () => {
  const dir = tempDir("relay-scanner-keys-");
  afterAll(() => removeTempDir(dir));

  it("configured keys are used as given; on devnets only, the devnet's panel keys", () => {
    const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()];
    expect(scannerKeysFor({ configured: keys, devnetsOnly: true, stateDir: dir })).toEqual(keys);
    expect(scannerKeysFor({ devnetsOnly: true, stateDir: dir })).toEqual(devScannerKeys().map((k) => k.privateKey));
  });

  it("otherwise made once in the state directory (0600) and reused", () => {
    const made = scannerKeysFor({ devnetsOnly: false, stateDir: dir });
    expect(made).toHaveLength(3);
    expect(new Set(made).size).toBe(3);
    const file = path.join(dir, "scanner-keys");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(scannerKeysFor({ devnetsOnly: false, stateDir: dir })).toEqual(made);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ keys: made });
  });

  it("a file that is not three keys is refused, naming it", () => {
    const other = tempDir("relay-scanner-keys-bad-");
    try {
      writeFileSync(path.join(other, "scanner-keys"), JSON.stringify({ keys: ["0x01"] }), { mode: 0o600 });
      expect(() => scannerKeysFor({ devnetsOnly: false, stateDir: other })).toThrow(/scanner-keys does not hold three scanner keys/);
    } finally {
      removeTempDir(other);
    }
  });
});
