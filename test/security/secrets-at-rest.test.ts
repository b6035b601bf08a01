// Secrets at rest (issue 12, item 7), with the real CLI, real files and a real devnet. The state
// directory holds the devnet's keys (manifests), profiles' keys (cli.json), the owner-session secret
// (auth-secret) and the ledger (bot signatures, signed raw transactions): the directory is 0700 and
// every file in it 0600, also when an earlier run (or a restore) left them looser. A profile keeps
// an owner key only when asked to by name.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { randomBytes } from "node:crypto";
import { runMain, type InProcessRun } from "../helpers/cli.ts";

const dirs: string[] = [];
const tmp = (name: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), `relay-secrets-${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const mode = (file: string) => statSync(file).mode & 0o777;

async function finished(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = runMain(argv);
  const code = await run.done;
  return { code, ...run.output };
}

/** Every entry of `dir`: the directory 0700, each file 0600 (nothing readable by group or others). */
function expectPrivate(dir: string, mustExist: string[]): void {
  expect(mode(dir)).toBe(0o700);
  for (const name of mustExist) expect(existsSync(path.join(dir, name)), name).toBe(true);
  const modes = Object.fromEntries(readdirSync(dir).map((name) => [name, mode(path.join(dir, name))]));
  expect(modes).toEqual(Object.fromEntries(Object.keys(modes).map((name) => [name, 0o600])));
}

/** Loosens the directory to 0755 and every file in it to 0644, as an older version left them. */
function loosen(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o644);
}

async function serveUntilReady(argv: string[], check: () => void): Promise<void> {
  const serve = runMain(argv);
  try {
    await serve.waitFor(/relay: ready/, 120_000);
    check();
  } finally {
    serve.stop();
    expect(await serve.done).toBe(0);
  }
}

const LEDGER = ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"];

describe("relay serve (devnet mode)", () => {
  it("writes its manifests, ledger and auth secret 0600 in a 0700 state directory, and the --manifest copy 0600", async () => {
    const stateDir = path.join(tmp("serve"), "state");
    const copyDir = tmp("copy");
    chmodSync(copyDir, 0o755);
    const copy = path.join(copyDir, "devnet-copy.json");
    await serveUntilReady(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--manifest", copy], () => {
      expectPrivate(stateDir, ["devnet.json", "devnet-84532.json", "auth-secret", ...LEDGER]);
      expect(mode(copy)).toBe(0o600);
      // The copy's directory is the user's: left as it was.
      expect(mode(copyDir)).toBe(0o755);
    });
  }, 180_000);
});

describe("relay devnet, then relay serve --rpc-url on the same state directory", () => {
  let stateDir: string;
  let devnet: InProcessRun;
  let rpcUrl: string;

  beforeAll(async () => {
    stateDir = path.join(tmp("devnet"), "state");
    // An existing, world-readable state directory: relay devnet tightens it.
    mkdirSync(stateDir, { mode: 0o755 });
    chmodSync(stateDir, 0o755);
    devnet = runMain(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
    await devnet.waitFor(/relay: ready/, 120_000);
    rpcUrl = (JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as { rpcUrl: string }).rpcUrl;
  }, 180_000);
  afterAll(async () => {
    devnet?.stop();
    await devnet?.done;
  });

  it("relay devnet: the directory is 0700 and its manifests 0600", () => {
    expectPrivate(stateDir, ["devnet.json", "devnet-84532.json"]);
  });

  it("relay serve --rpc-url adds the ledger and the auth secret, 0600", async () => {
    await serveUntilReady(["serve", "--rpc-url", rpcUrl, "--port", "0", "--state-dir", stateDir], () => {
      expectPrivate(stateDir, ["devnet.json", "auth-secret", ...LEDGER]);
    });
  }, 120_000);

  it("files and the directory left 0644/0755 by an earlier run are tightened when opened again", async () => {
    // A cli.json from an older version, holding a profile with a key.
    writeFileSync(path.join(stateDir, "cli.json"), JSON.stringify({ recent: [], profiles: { old: { botKey: generatePrivateKey() } } }), { mode: 0o644 });
    expect(existsSync(path.join(stateDir, "ledger.sqlite"))).toBe(true);
    // The checkpoint at close may have removed the log files: recreate them as an older run left them.
    for (const name of LEDGER) if (!existsSync(path.join(stateDir, name))) writeFileSync(path.join(stateDir, name), "");
    loosen(stateDir);
    expect(mode(path.join(stateDir, "auth-secret"))).toBe(0o644);
    expect(mode(stateDir)).toBe(0o755);

    await serveUntilReady(["serve", "--rpc-url", rpcUrl, "--port", "0", "--state-dir", stateDir], () => {
      expect(mode(stateDir)).toBe(0o700);
      for (const name of ["devnet.json", "devnet-84532.json", "auth-secret", "cli.json", ...LEDGER]) expect(mode(path.join(stateDir, name)), name).toBe(0o600);
    });

    // The CLI's own state, loosened again: a command that only reads it tightens it on open.
    loosen(stateDir);
    const listed = await finished(["profile", "list", "--json", "--state-dir", stateDir]);
    expect(listed.code).toBe(0);
    expect(Object.keys(JSON.parse(listed.stdout) as object)).toEqual(["old"]);
    expectPrivate(stateDir, ["cli.json", "devnet.json", "auth-secret", "ledger.sqlite"]);
  }, 120_000);

  it("an auth-secret left 0644 keeps its value (owner sessions survive) and becomes 0600", async () => {
    const file = path.join(stateDir, "auth-secret");
    const before = readFileSync(file);
    chmodSync(file, 0o644);
    await serveUntilReady(["serve", "--rpc-url", rpcUrl, "--port", "0", "--state-dir", stateDir], () => {
      expect(mode(file)).toBe(0o600);
    });
    expect(readFileSync(file).equals(before)).toBe(true);
  }, 120_000);
});

describe("relay profile save", () => {
  const botKey = generatePrivateKey();
  const ownerKey = generatePrivateKey();
  const keyText = (key: string) => key.slice(2).toLowerCase();

  it("without --store-owner-key keeps the bot key but not the owner key, says so on stderr, and writes cli.json 0600 in a 0700 directory", async () => {
    const stateDir = path.join(tmp("profile"), "state");
    const saved = await finished(["profile", "save", "prod", "--bot-key", botKey, "--owner-key", ownerKey, "--chain-id", "84532", "--state-dir", stateDir]);
    expect(saved.code).toBe(0);
    expect(saved.stderr).toBe("relay: the owner key was not stored in profile prod; pass it with each owner command (or RELAY_OWNER_KEY), or save it with --store-owner-key\n");
    const text = readFileSync(path.join(stateDir, "cli.json"), "utf8");
    expect(text.toLowerCase()).not.toContain(keyText(ownerKey));
    expect((JSON.parse(text) as { profiles: Record<string, object> }).profiles.prod).toEqual({ botKey, chainId: 84532 });
    expect(saved.stdout).not.toContain(privateKeyToAddress(ownerKey));
    expectPrivate(stateDir, ["cli.json"]);
  });

  it("with --store-owner-key keeps the owner key, without the warning, still 0600", async () => {
    const stateDir = path.join(tmp("profile"), "state");
    const saved = await finished(["profile", "save", "owner", "--owner-key", ownerKey, "--store-owner-key", "--state-dir", stateDir]);
    expect(saved).toMatchObject({ code: 0, stderr: "" });
    expect(readFileSync(path.join(stateDir, "cli.json"), "utf8").toLowerCase()).toContain(keyText(ownerKey));
    expectPrivate(stateDir, ["cli.json"]);
  });

  it("a cli.json and state directory left 0644/0755 are tightened by the next save", async () => {
    const stateDir = path.join(tmp("profile"), "state");
    mkdirSync(stateDir);
    writeFileSync(path.join(stateDir, "cli.json"), JSON.stringify({ recent: [], profiles: {} }));
    loosen(stateDir);
    const saved = await finished(["profile", "save", "bot", "--bot-key", botKey, "--state-dir", stateDir]);
    expect(saved.code).toBe(0);
    expectPrivate(stateDir, ["cli.json"]);
  });
});

describe("loadOrCreateAuthSecret", () => {
  it("a secret of the right size left 0644 is kept and tightened", async () => {
    const { loadOrCreateAuthSecret } = await import("../../src/server/auth/secret.ts");
    const stateDir = tmp("secret");
    const secret = randomBytes(32);
    writeFileSync(path.join(stateDir, "auth-secret"), secret, { mode: 0o644 });
    loosen(stateDir);
    expect(Buffer.from(loadOrCreateAuthSecret(stateDir)).equals(secret)).toBe(true);
    expectPrivate(stateDir, ["auth-secret"]);
  });
});
