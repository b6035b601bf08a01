// A real deployment of several relayers for tests, as an operator runs it: one devnet chain (the
// in-process devnet, its JSON-RPC on loopback so every process reaches it), one PostgreSQL server
// with a fresh database (startPostgres), N `relay serve --rpc-url <chain> --database-url <url>
// --state-dir <own dir> --port 0` processes, each with its own state directory holding a copy of
// the deployment's manifest, and nginx round-robin in front (startNginx). stop() ends only the
// processes this started and removes every temporary directory.
//
// `store: "sqlite"` starts the instances without --database-url, each on its own embedded ledger:
// it proves the processes and the proxy, not a shared ledger (the instances then share nothing).
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { projectRoot } from "../../src/paths.ts";
import { freePort } from "./free-port.ts";
import { startNginx, type NginxProxy } from "./nginx.ts";
import { startPostgres, type PostgresServer } from "./postgres.ts";

export interface ClusterInstance {
  /** `http://127.0.0.1:<port>`: this instance directly, bypassing the proxy. */
  url: string;
  /** The PID of the `relay serve` process now running (changes on restart). */
  pid: number;
  /** Its own state directory (a copy of the deployment's manifest, its logs). */
  stateDir: string;
  /** Sends `signal` to this instance's process (SIGKILL: the machine is gone) and waits for its exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts the instance again on the same port (after kill), and waits until it is ready; with
   * `serveArgs`, those replace the cluster's extra `relay serve` flags (an operator's new settings).
   */
  restart(serveArgs?: readonly string[]): Promise<void>;
  /** False once its process has exited. */
  alive(): boolean;
  /** The process's stderr so far (every run of it). */
  output(): string;
}

export interface Cluster {
  /** The proxy's URL: what bots and tests talk to. */
  url: string;
  /** The chain's JSON-RPC URL. */
  rpcUrl: string;
  manifest: Manifest;
  /** The devnet (in this process): tests read the chain through it. */
  devnet: Devnet;
  /** The shared ledger's URL, when the instances run on PostgreSQL. */
  databaseUrl?: string;
  instances: ClusterInstance[];
  proxy: NginxProxy;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** How many `relay serve` processes (default 3). */
  instances?: number;
  /** "postgres" (default): one shared ledger; "sqlite": each instance on its own embedded ledger. */
  store?: "postgres" | "sqlite";
  /** A database to use instead of starting a PostgreSQL server (its tables are created by the relayer). */
  databaseUrl?: string;
  /** A running devnet to serve (left running by stop()); by default a fresh one is started. */
  devnet?: Devnet;
  /** More flags for every `relay serve` (e.g. `--review-window 5`). */
  serveArgs?: readonly string[];
  /** Environment variables for every `relay serve`. */
  env?: Record<string, string>;
}

/** Starts the deployment described at the top of this file. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const count = options.instances ?? 3;
  const store = options.store ?? "postgres";
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => {});
  };
  try {
    let devnet = options.devnet;
    if (!devnet) {
      const dir = mkdtempSync(path.join(tmpdir(), "relay-cluster-chain-"));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir: dir });
      const started = devnet;
      cleanups.push(() => started.close());
    }
    let databaseUrl: string | undefined;
    if (store === "postgres") {
      if (options.databaseUrl) databaseUrl = options.databaseUrl;
      else {
        const postgres: PostgresServer = await startPostgres();
        cleanups.push(() => postgres.stop());
        databaseUrl = await postgres.newDatabase();
      }
    }
    const rpcUrl = devnet.rpc.url;
    // The proxy's port is chosen first: every instance names it as its public address, so an
    // owner's sign-in message for the proxy is accepted by whichever instance gets it.
    const proxyPort = await freePort();
    const base = [...(databaseUrl ? ["--database-url", databaseUrl] : []), "--public-url", `http://127.0.0.1:${proxyPort}`, "--trust-proxy", "127.0.0.1"];
    // One at a time: the first instance creates the shared ledger's tables (its migrations).
    const instances: ClusterInstance[] = [];
    for (let i = 0; i < count; i++) {
      const stateDir = mkdtempSync(path.join(tmpdir(), `relay-cluster-${i}-`));
      directories.add(stateDir);
      cleanups.push(async () => {
        rmSync(stateDir, { recursive: true, force: true });
        directories.delete(stateDir);
      });
      copyFileSync(devnet.manifestFile, path.join(stateDir, "devnet.json"));
      const instance = await startInstance({ rpcUrl, stateDir, base, serveArgs: options.serveArgs ?? [], env: options.env ?? {} });
      cleanups.push(() => instance.kill("SIGTERM"));
      instances.push(instance);
    }
    const proxy = await startNginx(instances.map((i) => i.url), { port: proxyPort });
    cleanups.push(() => proxy.stop());
    return { url: proxy.url, rpcUrl, manifest: devnet.manifest, devnet, databaseUrl, instances, proxy, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** One `relay serve` process, restartable on the port it first took. */
async function startInstance(spec: { rpcUrl: string; stateDir: string; base: readonly string[]; serveArgs: readonly string[]; env: Record<string, string> }): Promise<ClusterInstance> {
  let port = "0";
  let serveArgs = spec.serveArgs;
  let child!: ChildProcess;
  let exited!: Promise<void>;
  let log = "";
  const launch = async () => {
    const args = ["serve", "--rpc-url", spec.rpcUrl, "--state-dir", spec.stateDir, "--port", port, ...spec.base, ...serveArgs];
    child = spawn(path.join(projectRoot, "bin", "relay"), args, {
      cwd: projectRoot,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...spec.env, NO_COLOR: "1" },
    });
    running.add(child);
    const mine = child;
    const from = log.length;
    mine.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    exited = new Promise<void>((resolve) => mine.once("exit", () => (running.delete(mine), resolve())));
    const url = await readyUrl(() => log.slice(from), () => mine.exitCode !== null || mine.signalCode !== null, () => mine.kill("SIGKILL"));
    port = new URL(url).port;
    instance.url = url;
    instance.pid = mine.pid!;
  };
  const alive = () => child.exitCode === null && child.signalCode === null;
  const instance: ClusterInstance = {
    url: "",
    pid: 0,
    stateDir: spec.stateDir,
    alive,
    output: () => log,
    async kill(signal = "SIGKILL") {
      if (alive()) child.kill(signal);
      await exited;
    },
    async restart(newServeArgs) {
      if (alive()) throw new Error("restart() of an instance that is still running: kill() it first");
      if (newServeArgs) serveArgs = newServeArgs;
      await launch();
    },
  };
  await launch();
  return instance;
}

/** Waits for `relay: ready — relayer <url>` on the process's stderr. */
async function readyUrl(stderr: () => string, ended: () => boolean, abort: () => void): Promise<string> {
  const until = Date.now() + 120_000;
  for (;;) {
    const match = /relay: ready — relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr());
    if (match) return match[1]!;
    if (ended()) throw new Error(`relay serve exited before it was ready:\n${stderr()}`);
    if (Date.now() > until) {
      abort();
      throw new Error(`relay serve was not ready within 120 s:\n${stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Instances of this process still running, ended if the process exits first. */
const running = new Set<ChildProcess>();
/** Their state directories, removed then too. */
const directories = new Set<string>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});
// A test worker ended by SIGTERM (vitest after a timed-out test) would otherwise die without its
// "exit" handlers, leaving the relayers, nginx and PostgreSQL running: exit, so that they all run.
process.once("SIGTERM", () => process.exit(143));
