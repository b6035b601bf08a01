// What a load run runs against: a fresh devnet in this process (its JSON-RPC on loopback) and the
// relayer, by default as its own process (`relay serve --rpc-url`, as an operator runs it), or
// in this process with `inProcess` (startRelayer on the devnet's provider), or as several
// `relay serve --database-url` processes on one PostgreSQL ledger behind nginx (startCluster, the
// deployment the tests run against).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { projectRoot } from "../../src/paths.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { startRelayer } from "../../src/app/service.ts";
import { startCluster, type Cluster } from "../../test/support/cluster.ts";

export interface Environment {
  devnet: Devnet;
  stateDir: string;
  close(): Promise<void>;
}

export interface RelayerHandle {
  url: string;
  /** The relayer's stderr so far (a child process); empty in process. */
  output(): string;
  /** False once the relayer process has exited. */
  alive(): boolean;
  close(): Promise<void>;
  /** The deployment, when the relayer is several instances. */
  cluster?: Cluster;
}

export async function startEnvironment(): Promise<Environment> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-load-"));
  const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  return {
    devnet,
    stateDir,
    async close() {
      await devnet.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Starts the relayer on the environment's devnet (call after the fleet is set up). */
export async function startLoadRelayer(env: Environment, inProcess: boolean): Promise<RelayerHandle> {
  if (inProcess) {
    const m = env.devnet.manifest;
    const relayer = await startRelayer({
      config: parseRelayerConfig({ stateDir: env.stateDir, chains: [chainFromManifest(m)] }),
      port: 0,
      providers: new Map([[m.chainId, env.devnet.chain.provider]]),
    });
    return { url: relayer.url, output: () => "", alive: () => true, close: () => relayer.close() };
  }
  return spawnServe(env);
}

/** `instances` relayers on `databaseUrl` (else on a PostgreSQL server started for the run) behind nginx. */
export async function startLoadCluster(env: Environment, instances: number, databaseUrl: string | undefined, leaseTtlMs?: number): Promise<RelayerHandle> {
  const cluster = await startCluster({ devnet: env.devnet, instances, databaseUrl, serveArgs: leaseTtlMs === undefined ? [] : ["--lease-ttl-ms", String(leaseTtlMs)] });
  return {
    url: cluster.url,
    cluster,
    output: () => cluster.instances.map((i, n) => `--- instance ${n} (pid ${i.pid})\n${i.output()}`).join("\n"),
    // The run's own kill -9 (killOneAfterSeconds) is expected; any other exit is a failure.
    alive: () => cluster.instances.filter((i) => i.alive()).length >= instances - killedCount(cluster),
    close: () => cluster.stop(),
  };
}

const killed = new WeakMap<Cluster, number>();
/** Records that the run itself killed one of the cluster's instances. */
export function noteKilled(cluster: Cluster): void {
  killed.set(cluster, killedCount(cluster) + 1);
}
function killedCount(cluster: Cluster): number {
  return killed.get(cluster) ?? 0;
}

async function spawnServe(env: Environment): Promise<RelayerHandle> {
  const args = ["serve", "--rpc-url", env.devnet.rpc.url, "--port", "0", "--state-dir", env.stateDir];
  const child = spawn(path.join(projectRoot, "bin", "relay"), args, { cwd: projectRoot, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = await readyUrl(child, () => stderr, exited);
  return {
    url,
    output: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Waits for `relay: ready — relayer <url>` on the child's stderr. */
async function readyUrl(child: ChildProcess, stderr: () => string, exited: Promise<void>): Promise<string> {
  let ended = false;
  void exited.then(() => (ended = true));
  const until = Date.now() + 120_000;
  for (;;) {
    const match = /relay: ready — relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr());
    if (match) return match[1]!;
    if (ended) throw new Error(`relay serve exited before it was ready:\n${stderr()}`);
    if (Date.now() > until) {
      child.kill("SIGTERM");
      throw new Error(`relay serve was not ready within 120 s:\n${stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
