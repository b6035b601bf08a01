// One load run from start to verdict: devnet, fleet (vaults, bots, funds), relayer, the open-loop
// send loop with same-key retries, settling every request, then the invariant check on the chain.
import type { Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { drive } from "./drive.ts";
import { startEnvironment, startLoadRelayer } from "./environment.ts";
import { createFleet } from "./fleet.ts";
import { openPool } from "./http.ts";
import { RequestFactory } from "./intents.ts";
import { checkInvariants } from "./invariants.ts";
import { buildReport, type LoadReport } from "./report.ts";
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

    log(options.inProcess ? "starting the relayer in process" : "starting the relayer (relay serve --rpc-url)");
    const relayer = await startLoadRelayer(env, options.inProcess ?? false);
    const pool = openPool(relayer.url, CONNECTIONS);
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
      return buildReport(options, driven, settled, invariants);
    } finally {
      await pool.close();
      await relayer.close();
    }
  } finally {
    await env.close();
  }
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
  if (o.bots < o.vaults) throw new Error(`need at least one bot per vault (${o.bots} bots, ${o.vaults} vaults)`);
}
