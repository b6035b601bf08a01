// relay as its own process on a node, the way an operator runs it, for the benchmarks that measure
// relay's own cost (CPU per payment, profiles) apart from the node's and the load generator's.
//
//   const relay = await startRelayProcess({ rpcUrl: anvil.url });
//   relay.url        // http://127.0.0.1:<port>, answering /readyz
//   relay.pid        // the relay process's pid (node itself, no shell in between)
//   relay.manifest   // the deployment `relay deploy` wrote: contracts, tokens, domain, role keys, bots
//   relay.cpuMicros() // utime + stime of /proc/<pid>/stat, all threads (JS, GC, libuv, SQLite), in µs
//   relay.output()    // the last 16 KiB of its stderr (its log), to show when a benchmark fails
//   await relay.stop() // SIGTERM (a clean shutdown: --cpu-prof writes its profile), SIGKILL after 10 s;
//                      // removes the state directory it created. Should the benchmark's process exit
//                      // without stop(), the relay process is killed with it.
//
// Steps, as the product does them: `relay deploy --rpc-url <node>` (the suite, a seeded vault and its
// bots, a manifest in a fresh state directory), then `relay serve --config <file> --state-dir <dir>
// --port <free>` — a config file because rate limits are set there only: it serves the manifest's
// chain at <node> with every rate limit off (capacity 0), so a benchmark's load is never refused.
// Both run as `node src/cli/bin.ts …`, the CLI bin/relay runs from its bundle (dist/relay.mjs), with
// bin/relay's node flags, so extra node arguments (`nodeArgs`, e.g. ["--cpu-prof", "--cpu-prof-dir",
// dir]) reach the relay process itself and its profiles name the source files.
// Use it under scripts/run.sh (process.execPath is then the project's node). Linux only for cpuMicros.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { chainFromManifest } from "../../src/relayer/config.ts";
import { devKeyPair, ROLE_INDEX } from "../../src/devnet/accounts.ts";
import { freePort } from "../../test/support/free-port.ts";

export interface RelayProcess {
  url: string;
  pid: number;
  manifest: Manifest;
  stateDir: string;
  /** The bearer token for /metrics's detailed series (config metricsToken), made for this process. */
  metricsToken: string;
  /** CPU time of the relay process so far, user + system, all threads, in microseconds. */
  cpuMicros(): number;
  /** The last 16 KiB of the relay process's stderr. */
  output(): string;
  stop(): Promise<void>;
}

export interface RelayProcessOptions {
  /** The node's JSON-RPC URL (e.g. an anvil from test/support/anvil.ts). */
  rpcUrl: string;
  /**
   * Where `relay serve` reaches the node, if not at rpcUrl: e.g. a recording proxy in front of it
   * (`relay deploy` runs synchronously, so it goes to rpcUrl itself).
   */
  serveRpcUrl?: string;
  /** Extra arguments for the relay process's node (e.g. ["--cpu-prof", "--cpu-prof-dir", dir]). */
  nodeArgs?: string[];
  /** Extra environment for the relay process. */
  env?: Record<string, string>;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(ROOT, "src/cli/bin.ts");
const NODE_FLAGS = ["--disable-warning=ExperimentalWarning", "--max-semi-space-size=32"]; // as bin/relay

/**
 * `relay deploy --rpc-url <node>` into `stateDir`, with the development roles of the in-process
 * devnet (owner #0, relayer #4, deployer #5): the suite, a seeded vault and its bots. Returns the
 * manifest it wrote. Throws with deploy's own error output when it fails.
 */
export function relayDeploy(rpcUrl: string, stateDir: string): Manifest {
  try {
    execFileSync(process.execPath, [
      ...NODE_FLAGS, CLI, "deploy",
      "--rpc-url", rpcUrl,
      "--key", devKeyPair(ROLE_INDEX.deployer).privateKey,
      "--owner-key", devKeyPair(ROLE_INDEX.owner).privateKey,
      "--relayer-key", devKeyPair(ROLE_INDEX.relayer).privateKey,
      "--operator-key", devKeyPair(ROLE_INDEX.operator).privateKey,
      "--state-dir", stateDir,
    ], { stdio: ["ignore", "ignore", "pipe"], cwd: ROOT });
  } catch (error) {
    const detail = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw detail ? new Error(`relay deploy failed: ${detail}`) : error;
  }
  return JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
}

export async function startRelayProcess(options: RelayProcessOptions): Promise<RelayProcess> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-bench-process-"));
  let child: ChildProcess | undefined;
  try {
    const manifest = relayDeploy(options.rpcUrl, stateDir);

    const unlimited = { capacity: 0, refillPerSecond: 0 };
    const metricsToken = randomBytes(24).toString("hex");
    const configFile = path.join(stateDir, "bench-config.json");
    writeFileSync(configFile, JSON.stringify({
      chains: [chainFromManifest(manifest, options.serveRpcUrl ?? options.rpcUrl)],
      rateLimits: { bot: unlimited, vault: unlimited, client: unlimited, unauthenticated: unlimited, reads: unlimited },
      metricsToken,
    }));

    const port = await freePort();
    child = spawn(process.execPath, [
      ...NODE_FLAGS, ...(options.nodeArgs ?? []), CLI, "serve",
      "--config", configFile, "--state-dir", stateDir, "--port", String(port),
    ], { stdio: ["ignore", "ignore", "pipe"], cwd: ROOT, env: { MALLOC_ARENA_MAX: "2", ...process.env, ...options.env } /* as bin/relay */ });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-16_384); });
    const orphaned = killOnExit(child);
    const url = `http://127.0.0.1:${port}`;
    await waitForReady(url, child, () => stderr);

    const pid = child.pid!;
    const started = child;
    return {
      url,
      pid,
      manifest,
      stateDir,
      metricsToken,
      cpuMicros: () => processCpuMicros(pid),
      output: () => stderr,
      stop: async () => {
        process.off("exit", orphaned);
        await stopChild(started);
        rmSync(stateDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (child) await stopChild(child);
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
}

/** Kills the child should this process exit first (an uncaught error in a benchmark). */
function killOnExit(child: ChildProcess): () => void {
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.on("exit", kill);
  child.once("exit", () => process.off("exit", kill));
  return kill;
}

let ticksPerSecond: number | undefined;

/** utime + stime (fields 14 and 15 of /proc/<pid>/stat: every thread of the process) in µs. */
export function processCpuMicros(pid: number): number {
  return statCpuMicros(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/**
 * utime + stime of each of the process's threads now alive, summed by thread name (node names its
 * threads: MainThread, V8Worker for V8's GC and compiler helpers, libuv-worker, WorkerThread…), in µs.
 */
export function threadCpuMicros(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    byName.set(name, (byName.get(name) ?? 0) + statCpuMicros(stat));
  }
  return byName;
}

function statCpuMicros(stat: string): number {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / ticksPerSecond;
}

async function waitForReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`relay serve exited with ${child.exitCode}: ${stderr().trim()}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`relay serve did not answer ${url}/readyz within 60 s: ${stderr().trim()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}
