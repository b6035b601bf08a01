// The session secret on disk: created once (32 bytes, owner-only), read back unchanged, shared by
// processes that start together, and what lets sessions survive a relayer restart.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { loadOrCreateAuthSecret, OwnerAuth } from "../../../src/server/auth/owner-auth.ts";
import { buildSiweMessage } from "../../../packages/client/src/siwe-message.ts";

const run = promisify(execFile);
const secretModule = path.resolve(import.meta.dirname, "../../../src/server/auth/secret.ts");

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "relay-auth-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("loadOrCreateAuthSecret", () => {
  it("creates <stateDir>/auth-secret (and the directory) with 32 bytes readable by the owner only", () => {
    const stateDir = path.join(dir, "nested", ".relay");
    const secret = loadOrCreateAuthSecret(stateDir);
    const file = path.join(stateDir, "auth-secret");
    expect(secret).toHaveLength(32);
    expect(new Uint8Array(fs.readFileSync(file))).toEqual(secret);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(stateDir)).toEqual(["auth-secret"]);
  });

  it("returns the same secret on every later call, and a different one in another directory", () => {
    const first = loadOrCreateAuthSecret(dir);
    expect(loadOrCreateAuthSecret(dir)).toEqual(first);
    expect(loadOrCreateAuthSecret(path.join(dir, "other"))).not.toEqual(first);
  });

  it("refuses a secret file of the wrong size instead of replacing it", () => {
    fs.writeFileSync(path.join(dir, "auth-secret"), "short");
    expect(() => loadOrCreateAuthSecret(dir)).toThrow(/holds 5 bytes, not 32; delete it/);
    expect(fs.readFileSync(path.join(dir, "auth-secret"), "utf8")).toBe("short");
  });

  it("gives processes that create it at the same moment one shared secret", async () => {
    const script = `import { loadOrCreateAuthSecret } from ${JSON.stringify(secretModule)}; process.stdout.write(Buffer.from(loadOrCreateAuthSecret(process.argv[1])).toString("hex"));`;
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () => run(process.execPath, ["--input-type=module", "-e", script, dir]).then((r) => r.stdout)),
    );
    const onDisk = fs.readFileSync(path.join(dir, "auth-secret")).toString("hex");
    expect(outputs).toEqual([onDisk, onDisk, onDisk, onDisk]);
    expect(fs.readdirSync(dir)).toEqual(["auth-secret"]);
  });
});

describe("sessions across a relayer restart", () => {
  it("a token issued before the restart is accepted after it", async () => {
    const owner = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    const options = { domain: "127.0.0.1:8787", uri: "http://127.0.0.1:8787", chainIds: [31337] };
    const before = new OwnerAuth({ ...options, secret: loadOrCreateAuthSecret(dir) });
    const message = buildSiweMessage({ ...options, address: owner.address, chainId: 31337, nonce: before.issueNonce().nonce, issuedAt: new Date() });
    const { token } = await before.login(message, await owner.signMessage({ message }));

    const after = new OwnerAuth({ ...options, secret: loadOrCreateAuthSecret(dir) });
    expect(after.authenticate(`Bearer ${token}`)).toBe(owner.address);
    const elsewhere = new OwnerAuth({ ...options, secret: loadOrCreateAuthSecret(path.join(dir, "elsewhere")) });
    expect(() => elsewhere.authenticate(`Bearer ${token}`)).toThrow(expect.objectContaining({ code: "UNAUTHORIZED" }));
  });
});
