// One load run from start to verdict: devnet, fleet (vaults, bots, funds), relayer, the open-loop
// send loop with same-key retries, settling every request, then the invariant check on the chain.
import type { Address } from "viem";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import type { ClusterInstance } from "../../test/support/cluster.ts";
import { drive } from "./drive.ts";
import { noteKilled, startEnvironment, startLoadCluster, startLoadRelayer, type RelayerHandle } from "./environment.ts";
import { createFleet } from "./fleet.ts";
import { openPool } from "./http.ts";
import { RequestFactory } from "./intents.ts";
import { checkInvariants } from "./invariants.ts";
import { buildReport, type Failover, type LoadReport } from "./report.ts";
import { settle } from "./settle.ts";

export interface LoadOptions {
  durationSeconds: number;
  /** New intents per second (retries come on top). */
  rate: number;
  bots: number;
  vaults: number;
  retryFraction: number;
  maxInFlight: number;
  /** Run the relayer in this process instead of as `relay serve --rpc-url`. */
  inProcess?: boolean;
  /** Several `relay serve` processes on one PostgreSQL ledger behind nginx (default 1: one process, SQLite). */
  instances?: number;
  /** The PostgreSQL ledger of the instances (default: a server started for the run). */
  databaseUrl?: string;
  /** kill -9 the instance holding the relayer key's lease this many seconds into sending. */
  killOneAfterSeconds?: number;
  /** Progress lines (setup steps, every ~10 s of sending). */
  log?: (line: string) => void;
}

export const DEFAULT_LOAD_OPTIONS: LoadOptions = {
  durationSeconds: 600,
  rate: 200,
  bots: 50,
  vaults: 5,
  retryFraction: 0.1,
  maxInFlight: 2000,
};

/** A retry goes out within this long after its first send. */
const RETRY_WITHIN_MS = 5_000;
/** HTTP connections to the relayer (requests beyond these wait in the client's queue). */
const CONNECTIONS = 256;

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  validate(options);
  const log = options.log ?? (() => {});
  log("starting a devnet");
  const env = await startEnvironment();
  try {
    const { devnet } = env;
    const m = devnet.manifest;
    const clients = clientsFor(devnet.chain.provider, m.chainId);
    log(`setting up ${options.vaults} vaults with ${options.bots} bots`);
    const fleet = await createFleet(clients, m, options.vaults, options.bots);
    const fromBlock = await clients.publicClient.getBlockNumber();

    const several = (options.instances ?? 1) > 1 || options.databaseUrl !== undefined;
    log(
      several
        ? `starting ${options.instances ?? 1} relayers (relay serve --database-url) behind nginx`
        : options.inProcess
          ? "starting the relayer in process"
          : "starting the relayer (relay serve --rpc-url)",
    );
    const relayer = several ? await startLoadCluster(env, options.instances ?? 1, options.databaseUrl) : await startLoadRelayer(env, options.inProcess ?? false);
    const pool = openPool(relayer.url, CONNECTIONS);
    const failover =
      options.killOneAfterSeconds === undefined ? undefined : scheduleKill(relayer, options.killOneAfterSeconds, clients, m.accounts.relayer.address as Address, log);
    failover?.catch(() => {}); // awaited after the run; a failure before then must not go unhandled
    try {
      log(`sending ${options.rate} intents/s for ${options.durationSeconds} s`);
      const driven = await drive({
        pool,
        factory: new RequestFactory(fleet),
        rate: options.rate,
        durationSeconds: options.durationSeconds,
        retryFraction: options.retryFraction,
        retryWithinMs: RETRY_WITHIN_MS,
        maxInFlight: options.maxInFlight,
        progress: log,
      });
      if (!relayer.alive()) throw new Error(`the relayer exited during the run:\n${relayer.output()}`);
      const takeover = await failover;
      log("settling: re-sending unanswered requests with their keys, reading every status back");
      const settled = await settle(pool, driven.sends);
      log("checking the invariants on the chain");
      const invariants = await checkInvariants({
        provider: devnet.chain.provider,
        chainId: m.chainId,
        vaults: fleet.vaults.map((v) => v.address),
        relayer: m.accounts.relayer.address as Address,
        fromBlock,
        requests: settled.settled.map((s) => ({
          intentHash: s.sent.request.intentHash,
          intent: s.sent.request.intent,
          approvedTx: approvedTx(s.final, s.status),
        })),
      });
      return { ...buildReport(options, driven, settled, invariants), ...(takeover ? { failover: takeover } : {}) };
    } finally {
      await pool.close();
      await relayer.close();
    }
  } finally {
    await env.close();
  }
}

/**
 * kill -9 of the instance that holds the relayer key (the one whose /readyz lists it as held;
 * the first if none does, as when the key is idle) `afterSeconds` into the run. Resolves with the takeover time: from
 * the kill until the relayer key's next transaction is on the chain, i.e. until another instance
 * signs with the key again.
 */
async function scheduleKill(relayer: RelayerHandle, afterSeconds: number, clients: Clients, key: Address, log: (line: string) => void): Promise<Failover> {
  const cluster = relayer.cluster;
  if (!cluster) throw new Error("killOneAfterSeconds needs several instances (instances > 1)");
  await new Promise((r) => setTimeout(r, afterSeconds * 1000));
  const holder = await leaseHolder(cluster.instances);
  const victim = holder ?? cluster.instances[0]!;
  const nonceAtKill = await clients.publicClient.getTransactionCount({ address: key, blockTag: "latest" });
  noteKilled(cluster);
  const killedAt = performance.now();
  await victim.kill("SIGKILL");
  log(`killed instance ${victim.url} (pid ${victim.pid}) with SIGKILL`);
  for (;;) {
    const nonce = await clients.publicClient.getTransactionCount({ address: key, blockTag: "latest" });
    if (nonce > nonceAtKill) break;
    if (performance.now() - killedAt > 120_000) return { killedPid: victim.pid, heldKey: holder !== undefined, takeoverMs: Number.POSITIVE_INFINITY };
    await new Promise((r) => setTimeout(r, 25));
  }
  const takeoverMs = performance.now() - killedAt;
  log(`the relayer key signed again ${takeoverMs.toFixed(0)} ms after the kill`);
  return { killedPid: victim.pid, heldKey: holder !== undefined, takeoverMs };
}

/** The instance whose /readyz reports relayer keys held, if one does. */
async function leaseHolder(instances: readonly ClusterInstance[]): Promise<ClusterInstance | undefined> {
  for (const instance of instances) {
    const body = (await fetch(`${instance.url}/readyz`).then((r) => r.json()).catch(() => ({}))) as Record<string, unknown>;
    if (holdsKeys(body)) return instance;
  }
  return undefined;
}

/** Whether a /readyz body says the instance holds a relayer key's lease (`keys: [{ held }]`). */
function holdsKeys(body: Record<string, unknown>): boolean {
  const keys = body.keys;
  return Array.isArray(keys) && keys.some((key) => (key as { held?: unknown }).held === true);
}

/** The txHash of an approved answer: from the POST, or else from GET status. */
function approvedTx(...answers: ({ status?: string; txHash?: string } | undefined)[]): `0x${string}` | undefined {
  const approved = answers.find((a) => a?.status === "approved" && a.txHash);
  return approved?.txHash as `0x${string}` | undefined;
}

function validate(o: LoadOptions): void {
  const positive = { durationSeconds: o.durationSeconds, rate: o.rate, bots: o.bots, vaults: o.vaults, maxInFlight: o.maxInFlight };
  for (const [name, value] of Object.entries(positive)) {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${value}`);
  }
  if (!(o.retryFraction >= 0 && o.retryFraction <= 1)) throw new Error(`retryFraction must be between 0 and 1, got ${o.retryFraction}`);
  const instances = o.instances ?? 1;
  if (!Number.isInteger(instances) || instances < 1) throw new Error(`instances must be a whole number of at least 1, got ${instances}`);
  if (o.inProcess && (instances > 1 || o.databaseUrl !== undefined)) throw new Error("in-process runs one relayer on SQLite: drop it with instances or databaseUrl");
  if (o.killOneAfterSeconds !== undefined && !(instances > 1 && o.killOneAfterSeconds >= 0 && o.killOneAfterSeconds < o.durationSeconds)) {
    throw new Error("killOneAfterSeconds needs instances > 1 and a time within the run's duration");
  }
  if (o.bots < o.vaults) throw new Error(`need at least one bot per vault (${o.bots} bots, ${o.vaults} vaults)`);
}
