// A state directory has one owner (DESIGN.md §11), with real processes: a second `relay serve` on
// the folder of a running one exits with `relay: already running here (pid N, <urls>)` before it
// touches a file (the first's ledger, its log and the manifest keep their bytes, inode and mtime,
// and the first still serves with its payment in the ledger); a relayer killed with -9 leaves a
// claim that the next start takes over, keeping the ledger; of two started at the same instant,
// exactly one serves.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { acquireStateLock, type StateLock } from "../../src/cli/state-lock.ts";
import { runMain, spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const spawned: SpawnedRelay[] = [];
function start(args: string[]): SpawnedRelay {
  const relay = spawnRelay(args);
  spawned.push(relay);
  return relay;
}
const running = (p: SpawnedRelay) => p.child.exitCode === null && p.child.signalCode === null;
afterAll(async () => {
  for (const p of spawned.reverse()) {
    if (!running(p)) continue;
    p.child.kill("SIGTERM");
    await p.exited;
  }
});

const readManifest = (stateDir: string): Manifest => JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
const relayerUrlOf = (relay: SpawnedRelay) => /relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(relay.output.stderr)![1]!;

/** Pays `amount` USDC base units from the manifest's vault to `to` through `relayerUrl`; the request id. */
async function pay(relayerUrl: string, manifest: Manifest, to: Address, amount: bigint): Promise<string> {
  const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex);
  const intent = { bot: bot.address, to, token: manifest.tokens.USDC!.address as Address, amount, deadline: defaultDeadline(), ref: randomRef() };
  const domain = manifest.domain as never;
  const body = paymentRequestBody(domain, intent, await signPaymentIntent(bot, domain, intent), { idempotencyKey: crypto.randomUUID() });
  const res = await fetch(`${relayerUrl}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const answer = (await res.json()) as { status: string; requestId: string };
  expect(res.status, JSON.stringify(answer)).toBe(200);
  expect(answer.status).toBe("approved");
  return answer.requestId;
}

async function paymentStatus(relayerUrl: string, requestId: string): Promise<{ status: number; body: { requestId?: string; status?: string } }> {
  const res = await fetch(`${relayerUrl}/v1/payments/${requestId}`);
  return { status: res.status, body: (await res.json()) as { requestId?: string; status?: string } };
}

const usdcBalance = (manifest: Manifest, holder: Address) =>
  clientsFor(manifest.rpcUrl, manifest.chainId).publicClient.readContract({
    address: manifest.tokens.USDC!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [holder],
  });

const fresh = (): Address => `0x${crypto.randomUUID().replaceAll("-", "").padEnd(40, "7")}` as Address;

/** Bytes (hash), inode and mtime of each file that exists; a missing one is recorded as missing. */
function fingerprint(stateDir: string, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => {
      const file = path.join(stateDir, name);
      if (!existsSync(file)) return [name, "missing"];
      const stat = statSync(file, { bigint: true });
      return [name, `${stat.ino}:${stat.mtimeNs}:${stat.size}:${createHash("sha256").update(readFileSync(file)).digest("hex")}`];
    }),
  );
}

/** The fingerprint once two readings 300 ms apart agree (the running relayer has settled its writes). */
async function quietFingerprint(stateDir: string, names: readonly string[]): Promise<Record<string, string>> {
  let last = fingerprint(stateDir, names);
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = fingerprint(stateDir, names);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error("the state directory never settled");
}

/** The claim files of `role` in `stateDir`. */
const claims = (stateDir: string, role: "devnet" | "relayer") => readdirSync(stateDir).filter((n) => n.startsWith(`${role}.lock.`)).sort();

const WATCHED = ["ledger.sqlite", "ledger.sqlite-wal", "devnet.json", "devnet-84532.json", "auth-secret"];

describe("relay devnet, relay serve --rpc-url, and a second relay serve on the same directory", () => {
  const stateDir = tempDir("relay-lock-");
  let devnet: SpawnedRelay;
  let manifest: Manifest;

  beforeAll(async () => {
    devnet = start(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
    await devnet.waitFor(/relay: ready/);
    manifest = readManifest(stateDir);
  });

  it("the second exits 1 naming the first, touching nothing; after kill -9 of the first a new one takes over with the ledger kept", async () => {
    const serveArgs = ["serve", "--rpc-url", manifest.rpcUrl, "--port", "0", "--state-dir", stateDir];
    const first = start(serveArgs);
    await first.waitFor(/relay: ready/);
    const url = relayerUrlOf(first);
    const to = fresh();
    const requestId = await pay(url, manifest, to, 3_000_000n);
    expect(await usdcBalance(manifest, to)).toBe(3_000_000n);

    const before = await quietFingerprint(stateDir, WATCHED);
    expect(before["ledger.sqlite"]).not.toBe("missing");
    expect(before["ledger.sqlite-wal"]).not.toBe("missing");
    const second = start(serveArgs);
    const ended = await second.exited;
    expect(ended.code).toBe(1);
    expect(second.output.stderr).toBe(`relay: already running here (pid ${first.child.pid}, ${url}, ${manifest.rpcUrl})\n`);
    expect(fingerprint(stateDir, WATCHED)).toEqual(before);

    // The first still serves, with its payment in the ledger, and takes a new one.
    expect(await paymentStatus(url, requestId)).toMatchObject({ status: 200, body: { requestId, status: "approved" } });
    const other = fresh();
    await pay(url, manifest, other, 1_000_000n);
    expect(await usdcBalance(manifest, other)).toBe(1_000_000n);
    // The refused one moved nothing.
    expect(await usdcBalance(manifest, to)).toBe(3_000_000n);

    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    // The dead process's claim is still there: kill -9 runs no clean-up.
    expect(claims(stateDir, "relayer")).toHaveLength(1);

    const third = start(serveArgs);
    await third.waitFor(/relay: ready/);
    const thirdUrl = relayerUrlOf(third);
    expect(await paymentStatus(thirdUrl, requestId)).toMatchObject({ status: 200, body: { requestId, status: "approved" } });
    expect(claims(stateDir, "relayer")).toHaveLength(1);

    // The devnet's own role was never in question: it still runs, and a second `relay devnet` is refused.
    const secondDevnet = start(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
    expect((await secondDevnet.exited).code).toBe(1);
    expect(secondDevnet.output.stderr).toBe(`relay: already running here (pid ${devnet.child.pid}, ${manifest.rpcUrl})\n`);

    third.child.kill("SIGTERM");
    expect((await third.exited).code).toBe(0);
    // A clean exit gives the role up.
    expect(claims(stateDir, "relayer")).toEqual([]);
  }, 240_000);

  it("two started at the same instant: exactly one serves, the other names it", async () => {
    const serveArgs = ["serve", "--rpc-url", manifest.rpcUrl, "--port", "0", "--state-dir", stateDir];
    const pair = [start(serveArgs), start(serveArgs)];
    const outcome = await Promise.all(
      pair.map((p) => Promise.race([p.waitFor(/relay: ready/).then(() => "ready" as const), p.exited.then(() => "exited" as const)])),
    );
    expect(outcome.filter((o) => o === "ready")).toHaveLength(1);
    const winner = pair[outcome.indexOf("ready")]!;
    const loser = pair[outcome.indexOf("exited")]!;
    expect((await loser.exited).code).toBe(1);
    expect(loser.output.stderr).toMatch(new RegExp(`^relay: already running here \\(pid ${winner.child.pid}, (serve still starting|http://127\\.0\\.0\\.1:\\d+, ${manifest.rpcUrl})\\)\\n$`));
    const to = fresh();
    await pay(relayerUrlOf(winner), manifest, to, 2_000_000n);
    expect(await usdcBalance(manifest, to)).toBe(2_000_000n);
    winner.child.kill("SIGTERM");
    expect((await winner.exited).code).toBe(0);
  }, 240_000);
});

describe("relay serve (devnet mode) twice in one folder", () => {
  const stateDir = tempDir("relay-lock-devnet-");

  it("the second is refused before it deletes the first's ledger; after kill -9 the folder is taken over", async () => {
    const serveArgs = ["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir];
    const first = start(serveArgs);
    await first.waitFor(/relay: ready/);
    const manifest = readManifest(stateDir);
    const url = manifest.relayerUrl!;
    const to = fresh();
    const requestId = await pay(url, manifest, to, 4_000_000n);

    const before = await quietFingerprint(stateDir, WATCHED);
    const second = start(serveArgs);
    expect((await second.exited).code).toBe(1);
    expect(second.output.stderr).toBe(`relay: already running here (pid ${first.child.pid}, ${url}, ${manifest.rpcUrl})\n`);
    expect(fingerprint(stateDir, WATCHED)).toEqual(before);
    expect(await paymentStatus(url, requestId)).toMatchObject({ status: 200, body: { requestId, status: "approved" } });
    expect(await usdcBalance(manifest, to)).toBe(4_000_000n);

    first.child.kill("SIGKILL");
    await first.exited;
    const again = start(serveArgs);
    await again.waitFor(/relay: ready/);
    const restarted = readManifest(stateDir);
    // A devnet start is a fresh chain, and its owner starts a fresh ledger for it (as before).
    const other = fresh();
    await pay(restarted.relayerUrl!, restarted, other, 1_000_000n);
    expect(await usdcBalance(restarted, other)).toBe(1_000_000n);
    again.child.kill("SIGTERM");
    expect((await again.exited).code).toBe(0);
  }, 240_000);
});

describe("claims", () => {
  const held: StateLock[] = [];
  afterEach(() => {
    for (const lock of held.splice(0)) lock.release();
  });
  const claim = (stateDir: string, role: "devnet" | "relayer", command = "test") => {
    const lock = acquireStateLock(stateDir, role, command);
    held.push(lock);
    return lock;
  };
  const writeClaim = (stateDir: string, name: string, record: object) => {
    writeFileSync(path.join(stateDir, name), JSON.stringify(record), { mode: 0o600 });
  };
  const ownStartTime = () => readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")[19]!;

  it("a live claim refuses a second one with the owner's pid and URLs; a released one is free again", () => {
    const stateDir = tempDir("relay-claims-");
    const lock = claim(stateDir, "relayer");
    lock.setUrls(["http://127.0.0.1:1", "http://127.0.0.1:2"]);
    expect(() => acquireStateLock(stateDir, "relayer", "test")).toThrow(`already running here (pid ${process.pid}, http://127.0.0.1:1, http://127.0.0.1:2)`);
    // The other role is another owner's.
    claim(stateDir, "devnet");
    lock.release();
    expect(claim(stateDir, "relayer").file).toBe(path.join(stateDir, "relayer.lock.1"));
  });

  it("a damaged or stray claim numbered above a live one neither hides the live owner nor blocks a start", () => {
    const stateDir = tempDir("relay-claims-");
    const lock = claim(stateDir, "relayer");
    lock.setUrls(["http://127.0.0.1:3"]);
    writeClaim(stateDir, "relayer.lock.9", { not: "a claim" });
    expect(() => acquireStateLock(stateDir, "relayer", "test")).toThrow(`already running here (pid ${process.pid}, http://127.0.0.1:3)`);
    lock.release();
    // With the owner gone, the damaged one protects nothing: superseded and removed.
    expect(claim(stateDir, "relayer").file).toBe(path.join(stateDir, "relayer.lock.10"));
    expect(claims(stateDir, "relayer")).toEqual(["relayer.lock.10"]);
  });

  it("a claim by a process that has ended is superseded, and removed", () => {
    const stateDir = tempDir("relay-claims-");
    const ended = spawnSync(process.execPath, ["-e", ""]);
    writeClaim(stateDir, "relayer.lock.4", { pid: ended.pid, startTime: "1", command: "serve", urls: ["http://127.0.0.1:9"] });
    const lock = claim(stateDir, "relayer");
    expect(lock.file).toBe(path.join(stateDir, "relayer.lock.5"));
    expect(readdirSync(stateDir)).toEqual(["relayer.lock.5"]);
  });

  it("a claim whose pid now belongs to another program (another start time) is superseded", () => {
    const stateDir = tempDir("relay-claims-");
    // This very pid, but recorded as started at another time: the pid was reused.
    writeClaim(stateDir, "devnet.lock.1", { pid: process.pid, startTime: String(Number(ownStartTime()) - 1), command: "devnet", urls: [] });
    expect(claim(stateDir, "devnet").file).toBe(path.join(stateDir, "devnet.lock.2"));
    // With the right start time it is this process's, alive.
    writeClaim(stateDir, "relayer.lock.1", { pid: process.pid, startTime: ownStartTime(), command: "serve", urls: [] });
    expect(() => acquireStateLock(stateDir, "relayer", "test")).toThrow(`already running here (pid ${process.pid}, serve still starting)`);
  });

  it("relay devnet and relay deploy are refused while the manifests' owner runs, before any file is written", async () => {
    const stateDir = tempDir("relay-claims-");
    claim(stateDir, "devnet", "devnet").setUrls(["http://127.0.0.1:8545"]);
    const names = () => readdirSync(stateDir).sort();
    const before = names();
    for (const argv of [
      ["devnet", "--rpc-port", "0", "--state-dir", stateDir],
      ["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir],
      ["deploy", "--rpc-url", "http://127.0.0.1:9", "--key", `0x${"11".repeat(32)}`, "--state-dir", stateDir],
    ]) {
      const run = runMain(argv);
      expect(await run.done, argv[0]).toBe(1);
      expect(run.output.stderr).toBe(`relay: already running here (pid ${process.pid}, http://127.0.0.1:8545)\n`);
    }
    expect(names()).toEqual(before);
    expect(before).toEqual(["devnet.lock.1"]);
  });
});
