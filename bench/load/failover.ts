// The failover part of a load run on several instances (killOneAfterSeconds): kill -9 of the
// instance that holds the relayer key's lease at a moment it has requests in flight, then what
// became of it, read from the shared database and the chain:
//   - the victim held the key's lease at the kill (the lease row names it);
//   - its requests in flight at the kill (recorded by it and not settled: received, scanning,
//     submitting or submitted), read from the database once the process is gone;
//   - who took the key's lease over, and how long after the kill (the lease row changes holder with
//     a larger fencing token), and when the key's first transaction beyond every nonce recorded at
//     the kill was mined (the survivor signing);
//   - after the run: each of those requests settled (none left in flight) and each of their intents
//     executed exactly once on the chain (PaymentExecuted events).
import pg from "pg";
import { parseAbiItem, type Address } from "viem";
import type { Clients } from "../../src/chain/clients.ts";
import type { Cluster, ClusterInstance } from "../../test/support/cluster.ts";

export interface Failover {
  killedPid: number;
  /** Whether the killed instance held the relayer key's lease at the kill (the lease row named it). */
  heldKey: boolean;
  /** The victim's requests not yet settled at the kill, by status. */
  inFlightAtKill: number;
  inFlightByStatus: Record<string, number>;
  /** The instance that took the key's lease over (its pid), if one did. */
  takenOverBy?: number;
  /** From the kill -9 until another instance held the key's lease (the takeover). */
  takeoverMs: number;
  /** From the kill -9 until a transaction of the key beyond every nonce recorded at the kill was mined. */
  signedAgainMs: number;
  /** After the run: the victim's in-flight requests in a final state (approved or rejected). */
  inFlightSettled: number;
  /** After the run: the victim's in-flight intents executed exactly once on the chain. */
  inFlightExecutedOnce: number;
  /** Lines on what did not hold. */
  problems: string[];
}

/** What the kill left, to be checked once the run has settled (checkFailover). */
export interface Kill {
  victim: ClusterInstance;
  victimId: string;
  heldKey: boolean;
  inFlight: { id: string; status: string; intentHash: string }[];
  takenOverBy?: number;
  takeoverMs: number;
  signedAgainMs: number;
}

interface LeaseRow {
  holder: string;
  token: string;
  live: boolean;
}

const UNSETTLED = ["received", "scanning", "submitting", "submitted"];
/** Longest wait, after the kill moment is due, for the lease holder to have requests in flight. */
const CHOOSE_WITHIN_MS = 15_000;
const paymentExecuted = parseAbiItem("event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)");

/**
 * `afterSeconds` into the run, kill -9 the instance holding the relayer key's lease as soon as it
 * has requests in flight in the database; then wait for the takeover.
 */
export async function killLeaseHolder(cluster: Cluster, afterSeconds: number, clients: Clients, key: Address, onKill: () => void, log: (line: string) => void): Promise<Kill> {
  if (!cluster.databaseUrl) throw new Error("killOneAfterSeconds needs the instances on PostgreSQL");
  const pool = new pg.Pool({ connectionString: cluster.databaseUrl, max: 2 });
  try {
    const ids = await Promise.all(cluster.instances.map(instanceId));
    await new Promise((r) => setTimeout(r, afterSeconds * 1000));
    const chainId = clients.publicClient.chain?.id ?? (await clients.publicClient.getChainId());
    const leaseOf = async (): Promise<LeaseRow | undefined> =>
      (
        await pool.query<LeaseRow>(
          `SELECT holder, token, expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint AS live FROM key_leases WHERE chain_id = $1 AND signer = $2`,
          [chainId, key.toLowerCase()],
        )
      ).rows[0];
    const inFlightOf = async (id: string) =>
      (
        await pool.query<{ id: string; status: string; intent_hash: string }>("SELECT id, status, intent_hash FROM requests WHERE instance = $1 AND status = ANY($2)", [id, UNSETTLED])
      ).rows.map((r) => ({ id: r.id, status: r.status, intentHash: r.intent_hash }));

    // The moment: the key's live lease holder has requests in flight. Mining pauses meanwhile (a
    // development node's automine off, as a slow chain would), so the holder's broadcast
    // transactions stay pending and the kill finds them in flight however fast payments settle;
    // mining resumes right after the kill, and the survivor reconciles what the victim sent.
    const automine = (on: boolean) => clients.publicClient.request({ method: "evm_setAutomine", params: [on] } as never);
    await automine(false);
    let victimIndex = -1;
    try {
      for (const until = Date.now() + CHOOSE_WITHIN_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 5))) {
        const lease = await leaseOf();
        const index = lease?.live ? ids.indexOf(lease.holder) : -1;
        if (index >= 0 && (await inFlightOf(ids[index]!)).length > 0) {
          // With mining paused a few more pile up (pending transactions) for up to half a second.
          for (const more = Date.now() + 500; Date.now() < more && (await inFlightOf(ids[index]!)).length < 3; ) await new Promise((r) => setTimeout(r, 10));
          victimIndex = index;
          break;
        }
      }
    } catch (error) {
      await automine(true);
      throw error;
    }
    if (victimIndex < 0) {
      log("no instance held the key's lease with requests in flight; killing the first");
      victimIndex = 0;
    }
    const victim = cluster.instances[victimIndex]!;
    const victimId = ids[victimIndex]!;
    onKill();
    const killedAt = performance.now();
    let leaseAtKill: LeaseRow | undefined;
    let inFlight: Kill["inFlight"];
    try {
      await victim.kill("SIGKILL");
      // The process is gone: what it left is what the database says now.
      [leaseAtKill, inFlight] = await Promise.all([leaseOf(), inFlightOf(victimId)]);
    } finally {
      await automine(true);
      await clients.publicClient.request({ method: "evm_mine", params: [] } as never);
    }
    // Signing again: a transaction beyond every nonce recorded so far (the victim's last ones may still mine).
    const { rows: recorded } = await pool.query<{ n: string | null }>("SELECT MAX(nonce) AS n FROM requests WHERE chain_id = $1 AND signer = $2", [chainId, key.toLowerCase()]);
    const nextNonce = recorded[0]?.n === null || recorded[0]?.n === undefined ? 0 : Number(recorded[0].n) + 1;
    const heldKey = leaseAtKill?.holder === victimId;
    log(`killed instance ${victim.url} (pid ${victim.pid}) with SIGKILL: ${heldKey ? "holding" : "not holding"} the key's lease, ${inFlight.length} of its requests in flight`);

    let takeoverMs = Number.POSITIVE_INFINITY;
    let signedAgainMs = Number.POSITIVE_INFINITY;
    let takenOverBy: number | undefined;
    for (const until = killedAt + 120_000; performance.now() < until && (takenOverBy === undefined || !Number.isFinite(signedAgainMs)); await new Promise((r) => setTimeout(r, 25))) {
      if (takenOverBy === undefined) {
        const lease = await leaseOf();
        const index = lease ? ids.indexOf(lease.holder) : -1;
        if (lease && index >= 0 && index !== victimIndex && BigInt(lease.token) > BigInt(leaseAtKill?.token ?? "0")) {
          takeoverMs = performance.now() - killedAt;
          takenOverBy = cluster.instances[index]!.pid;
        }
      }
      if (!Number.isFinite(signedAgainMs) && (await clients.publicClient.getTransactionCount({ address: key, blockTag: "latest" })) > nextNonce) {
        signedAgainMs = performance.now() - killedAt;
      }
    }
    log(`the key's lease was taken over after ${takeoverMs.toFixed(0)} ms (pid ${takenOverBy}); the key signed again after ${signedAgainMs.toFixed(0)} ms`);
    return { victim, victimId, heldKey, inFlight, takenOverBy, takeoverMs, signedAgainMs };
  } finally {
    await pool.end();
  }
}

/** After the run has settled: the victim's in-flight requests are final, and their intents executed once each. */
export async function checkFailover(kill: Kill, databaseUrl: string, clients: Clients, vaults: readonly Address[], fromBlock: bigint): Promise<Failover> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const problems: string[] = [];
  try {
    const ids = kill.inFlight.map((r) => r.id);
    const { rows } = await pool.query<{ id: string; status: string }>("SELECT id, status FROM requests WHERE id = ANY($1)", [ids]);
    const settled = rows.filter((r) => r.status === "approved" || r.status === "rejected").length;
    for (const r of rows) if (!["approved", "rejected"].includes(r.status)) problems.push(`request ${r.id} of the killed instance still ${r.status}`);
    const logs = await clients.publicClient.getLogs({ address: [...vaults], event: paymentExecuted, fromBlock: fromBlock + 1n });
    const executions = new Map<string, number>();
    for (const l of logs) executions.set(l.args.intentHash!.toLowerCase(), (executions.get(l.args.intentHash!.toLowerCase()) ?? 0) + 1);
    let once = 0;
    for (const r of kill.inFlight) {
      const n = executions.get(r.intentHash.toLowerCase()) ?? 0;
      if (n === 1) once++;
      else problems.push(`intent ${r.intentHash} (request ${r.id}, ${r.status} at the kill) executed ${n} times`);
    }
    const byStatus: Record<string, number> = {};
    for (const r of kill.inFlight) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    return {
      killedPid: kill.victim.pid,
      heldKey: kill.heldKey,
      inFlightAtKill: kill.inFlight.length,
      inFlightByStatus: byStatus,
      ...(kill.takenOverBy === undefined ? {} : { takenOverBy: kill.takenOverBy }),
      takeoverMs: kill.takeoverMs,
      signedAgainMs: kill.signedAgainMs,
      inFlightSettled: settled,
      inFlightExecutedOnce: once,
      problems,
    };
  } finally {
    await pool.end();
  }
}

/** An instance's id among those sharing the database (its /readyz `instance`). */
async function instanceId(instance: ClusterInstance): Promise<string> {
  const body = (await (await fetch(`${instance.url}/readyz`)).json()) as { instance?: string };
  if (!body.instance) throw new Error(`${instance.url}/readyz names no instance`);
  return body.instance;
}

