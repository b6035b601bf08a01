// One load run from start to verdict: devnet, fleet (vaults, bots, funds), relayer, the open-loop
// send loop with same-key retries, settling every request, then the invariant check on the chain.
import type { Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { drive } from "./drive.ts";
import { noteKilled, startEnvironment, startLoadCluster, startLoadRelayer, type RelayerHandle } from "./environment.ts";
import { createFleet } from "./fleet.ts";
import { openPool } from "./http.ts";
import { RequestFactory } from "./intents.ts";
import { checkInvariants } from "./invariants.ts";
import { buildReport, type LoadReport } from "./report.ts";
import { checkFailover, killLeaseHolder, type Failover } from "./failover.ts";
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
  /** Several instances: how long a key lease and an instance's heartbeat last unless renewed (relay serve --lease-ttl-ms; default 10 s). */
  leaseTtlMs?: number;
  /** kill -9 the instance holding the relayer key's lease (once it has requests in flight) this many seconds into sending. */
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
    const relayer = several ? await startLoadCluster(env, options.instances ?? 1, options.databaseUrl, options.leaseTtlMs) : await startLoadRelayer(env, options.inProcess ?? false);
    const pool = openPool(relayer.url, CONNECTIONS);
    if (options.killOneAfterSeconds !== undefined && !relayer.cluster) throw new Error("killOneAfterSeconds needs several instances (instances > 1)");
    const cluster = relayer.cluster;
    const kill =
      options.killOneAfterSeconds === undefined || !cluster
        ? undefined
        : killLeaseHolder(cluster, options.killOneAfterSeconds, clients, m.accounts.relayer.address as Address, () => noteKilled(cluster), log);
    kill?.catch(() => {}); // awaited after the run; a failure before then must not go unhandled
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
      const killed = await kill;
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
      const failover = killed && cluster ? await checkFailover(killed, cluster.databaseUrl!, clients, fleet.vaults.map((v) => v.address), fromBlock) : undefined;
      const report = buildReport(options, driven, settled, invariants);
      return failover ? { ...report, failover, ok: report.ok && failoverHeld(failover) } : report;
    } finally {
      await pool.close();
      await relayer.close();
    }
  } finally {
    await env.close();
  }
}

/** The failover acceptance: the lease holder was killed with requests in flight, another took the key over, and each of those settled and executed once. */
export function failoverHeld(f: Failover): boolean {
  return (
    f.heldKey &&
    f.inFlightAtKill > 0 &&
    f.takenOverBy !== undefined &&
    f.takenOverBy !== f.killedPid &&
    Number.isFinite(f.takeoverMs) &&
    f.inFlightSettled === f.inFlightAtKill &&
    f.inFlightExecutedOnce === f.inFlightAtKill &&
    f.problems.length === 0
  );
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
