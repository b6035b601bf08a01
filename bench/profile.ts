// Where a relayed payment's CPU goes: relay runs as its own process (`relay serve`, rate limits off)
// on a fresh anvil, under `node --cpu-prof`; this driver sends it fast-path payments, 50 in flight,
// and prints the relay process's CPU per payment from /proc (all threads, then by thread) and the main thread's
// profile of the measured round grouped by area. Then one payment at a time, in turn sent directly to
// anvil, through a lean relayer (support/lean-beside.ts) and through relay: p50 relayed − direct
// against the lean relayer's + 1 ms, and where a lone relayed payment's time goes, from
// the relay process's own relay_step_duration_seconds (src/relayer/steps.ts).
// Run: npm run profile [-- --no-profile]   (BENCH_PAYMENTS, BENCH_LATENCY_SAMPLES to change the counts)
// --no-profile measures CPU without the sampling profiler's own cost; the profile is then skipped.
// --keep=<file> keeps the profile (with the measured window) for a closer look in a profile viewer.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "undici";
import { encodeFunctionData, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../src/chain/artifacts.ts";
import { clientsFor } from "../src/chain/clients.ts";
import { createSender } from "../src/chain/sender.ts";
import { devKeyPair } from "../src/devnet/accounts.ts";
import { paymentRequestBody } from "../packages/client/src/bodies.ts";
import { startAnvil } from "../test/support/anvil.ts";
import { processCpuMicros, startRelayProcess, threadCpuMicros, type RelayProcess } from "./support/relay-process.ts";
import { breakdown, type CpuProfile } from "./support/cpu-profile.ts";
import { paymentIntents } from "./support/intents.ts";
import { targetLine } from "./support/target.ts";
import { addedP50Goal, LATENCY_MARGIN_MS, recordedGoals } from "./support/floor-goals.ts";
import { leanBeside } from "./support/lean-beside.ts";
import { nodeRpc } from "./support/node-rpc.ts";
import { steps } from "../src/relayer/steps.ts";

const N = Number(process.env.BENCH_PAYMENTS ?? 2000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 100);
const IN_FLIGHT = 50;
const profiling = !process.argv.includes("--no-profile");

/** The measured round, in CLOCK_MONOTONIC µs (the profile's clock). */
let window = { from: 0, to: 0 };
const profileDir = mkdtempSync(path.join(tmpdir(), "relay-profile-"));
const anvil = await startAnvil();
let relay: RelayProcess | undefined;
try {
  relay = await startRelayProcess({
    rpcUrl: anvil.url,
    nodeArgs: profiling ? ["--cpu-prof", "--cpu-prof-dir", profileDir, "--cpu-prof-interval", "250"] : [],
  });
  await run(relay);
} catch (error) {
  if (relay) console.error(`relay's log:\n${relay.output()}`);
  throw error;
} finally {
  await relay?.stop();
  await anvil.stop();
}
try {
  if (profiling) printProfile();
} finally {
  rmSync(profileDir, { recursive: true, force: true });
}

async function run(relay: RelayProcess): Promise<void> {
  const m = relay.manifest;
  const clients = clientsFor(anvil.url, m.chainId);
  const pool = new Pool(relay.url, { connections: IN_FLIGHT, pipelining: 1 });
  const node = nodeRpc(anvil.url, 4);

  // A second authorized relayer key sends the direct transactions, so the two never share nonces.
  const direct = devKeyPair(6);
  await createSender(clients, m.accounts.deployer!.privateKey as Hex).call(m.contracts.registry as Address, "ServiceRegistry", "addRelayer", [direct.address]);
  const directAccount = privateKeyToAccount(direct.privateKey);
  const vaultAbi = readArtifact("ServiceVault").abi;
  const domain = m.domain as never;
  const signedIntent = paymentIntents(m);

  async function relayerBodies(count: number): Promise<string[]> {
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) {
      const { intent, signature } = await signedIntent();
      bodies.push(JSON.stringify(paymentRequestBody(domain, intent, signature, { idempotencyKey: crypto.randomUUID() })));
    }
    return bodies;
  }

  async function sendRelayer(body: string): Promise<void> {
    const res = await pool.request({ path: "/v1/payments", method: "POST", headers: { "content-type": "application/json" }, body });
    const answer = (await res.body.json()) as { status?: string; code?: string };
    if (res.statusCode !== 200 || answer.status !== "approved") throw new Error(`relayer answered ${res.statusCode} ${JSON.stringify(answer)}`);
  }


  async function directTransactions(count: number): Promise<Hex[]> {
    const fees = await clients.publicClient.estimateFeesPerGas();
    let nonce = await clients.publicClient.getTransactionCount({ address: direct.address, blockTag: "pending" });
    const raws: Hex[] = [];
    for (let i = 0; i < count; i++) {
      const { intent, signature } = await signedIntent();
      raws.push(await directAccount.signTransaction({
        type: "eip1559", chainId: m.chainId, to: m.contracts.vault as Address,
        data: encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [intent, signature] }),
        gas: 250_000n, nonce: nonce++, maxFeePerGas: fees.maxFeePerGas! * 4n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
      }));
    }
    return raws;
  }

  // A direct payment waits for its receipt the quickest way a bot can on anvil, as in the relayer
  // bench: the node's synchronous send, over a bare keep-alive connection.
  async function sendDirect(raw: Hex): Promise<void> {
    const receipt = (await node.call("eth_sendRawTransactionSync", [raw])) as { status: string };
    if (receipt.status !== "0x1") throw new Error("direct payment reverted");
  }

  async function throughput(bodies: string[]): Promise<number> {
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) await sendRelayer(bodies[next++]!);
    }));
    return bodies.length / ((performance.now() - started) / 1000);
  }

  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

  // Warm-up (JIT, caches, connections), then the measured round.
  await throughput(await relayerBodies(300));
  const bodies = await relayerBodies(N);
  const threadsBefore = threadCpuMicros(relay.pid);
  const cpuBefore = relay.cpuMicros();
  const anvilCpuBefore = processCpuMicros(anvil.pid);
  window = { from: monotonicMicros(), to: 0 };
  const rate = await throughput(bodies);
  window.to = monotonicMicros();
  const cpuPerPayment = (relay.cpuMicros() - cpuBefore) / N;
  const threadsPerPayment = [...threadCpuMicros(relay.pid)]
    .map(([name, micros]) => [name, (micros - (threadsBefore.get(name) ?? 0)) / N] as const)
    .filter(([, micros]) => micros >= 1)
    .sort((a, b) => b[1] - a[1]);
  const anvilPerPayment = (processCpuMicros(anvil.pid) - anvilCpuBefore) / N;

  // Latency: one at a time, on the same stretch of chain, in turn a direct payment, one through the
  // lean relayer (support/lean-beside.ts) and one through relay.
  const lean = await leanBeside({ manifest: m, clients, rpc: (method, params) => node.call(method, params), sendSync: true, nextIntent: signedIntent });
  const raws = await directTransactions(LATENCY_SAMPLES);
  const leanBodies = await lean.bodies(LATENCY_SAMPLES);
  const latencyBodies = await relayerBodies(LATENCY_SAMPLES);
  const stepsBefore = await stepTotals(pool, relay.metricsToken);
  const directMs: number[] = [];
  const leanMs: number[] = [];
  const relayedMs: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    let t = performance.now();
    await sendDirect(raws[i]!);
    directMs.push(performance.now() - t);
    t = performance.now();
    await lean.send(leanBodies[i]!);
    leanMs.push(performance.now() - t);
    t = performance.now();
    await sendRelayer(latencyBodies[i]!);
    relayedMs.push(performance.now() - t);
  }
  const stepsAfter = await stepTotals(pool, relay.metricsToken);
  const leanSteps = lean.stepMeans();
  await lean.close();

  await pool.close();
  await node.close();

  console.log(`relay on anvil: ${N} fast-path payments, ${IN_FLIGHT} in flight: ${rate.toFixed(0)} payments/s${profiling ? " (under the sampling profiler)" : ""}`);
  console.log(`anvil's CPU per payment: ${anvilPerPayment.toFixed(0)} µs`);
  // Threads still alive at the end (a thread that ended during the round is missed, as is a tenth of a tick each).
  console.log(`relay process CPU per payment by thread: ${threadsPerPayment.map(([name, micros]) => `${name} ${micros.toFixed(0)} µs`).join(", ")}`);
  const goals = recordedGoals();
  if ("missing" in goals) {
    console.log(`relay process CPU per fast-path payment, all threads: ${cpuPerPayment.toFixed(0)} µs (no goal: ${goals.missing})`);
  } else {
    console.log(`goal: ${goals.cpuSource}`);
    console.log(targetLine("relay process CPU per fast-path payment, all threads", cpuPerPayment, goals.cpu, "µs", 0));
  }
  console.log(`p50 direct ${p50(directMs).toFixed(2)} ms, lean relayer ${p50(leanMs).toFixed(2)} ms, relayed ${p50(relayedMs).toFixed(2)} ms (${LATENCY_SAMPLES} each, in turn)`);
  const leanAdded = p50(leanMs) - p50(directMs);
  const fresh = "missing" in goals ? "" : `; on the floor bench's fresh chain ${goals.leanAddedP50Ms.toFixed(3)} ms`;
  console.log(`goal: the lean relayer's ${leanAdded.toFixed(3)} ms beside it + ${LATENCY_MARGIN_MS} ms${fresh}`);
  console.log(targetLine("p50 latency relayed - direct", p50(relayedMs) - p50(directMs), addedP50Goal(leanAdded), "ms"));
  printSteps(stepsBefore, stepsAfter, mean(relayedMs), mean(directMs));
  const leanAccounted = Object.values(leanSteps).reduce((a, b) => a + b, 0);
  console.log(`\nthe lean relayer's steps beside it (means; lean relayer ${mean(leanMs).toFixed(2)} ms):`);
  for (const [step, ms] of Object.entries(leanSteps)) console.log(`  ${ms.toFixed(2).padStart(6)} ms  ${step}`);
  console.log(`  ${(mean(leanMs) - leanAccounted).toFixed(2).padStart(6)} ms  the rest: HTTP and the hops between the steps`);
}

type StepTotals = Map<string, { sum: number; count: number }>;

/** The relay process's relay_step_duration_seconds sums and counts, by step. */
async function stepTotals(pool: Pool, metricsToken: string): Promise<StepTotals> {
  const res = await pool.request({ path: "/metrics", method: "GET", headers: { authorization: `Bearer ${metricsToken}` } });
  const text = await res.body.text();
  const totals: StepTotals = new Map();
  for (const [, part, step, value] of text.matchAll(/^relay_step_duration_seconds_(sum|count)\{step="([a-z]+)"\} (\S+)$/gm)) {
    const entry = totals.get(step!) ?? { sum: 0, count: 0 };
    entry[part as "sum" | "count"] = Number(value);
    totals.set(step!, entry);
  }
  return totals;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * Mean time of each step over the lone relayed payments, in the order a payment goes through them;
 * what the steps leave of the relayed mean is HTTP, the framework and the hops between steps.
 */
function printSteps(before: StepTotals, after: StepTotals, relayedMeanMs: number, directMeanMs: number): void {
  console.log(`\na lone relayed payment's steps (means of the ${LATENCY_SAMPLES} relayed above; relayed ${relayedMeanMs.toFixed(2)} ms, direct ${directMeanMs.toFixed(2)} ms):`);
  let accounted = 0;
  for (const step of steps) {
    const a = after.get(step) ?? { sum: 0, count: 0 };
    const b = before.get(step) ?? { sum: 0, count: 0 };
    const count = a.count - b.count;
    if (count === 0) continue;
    const ms = ((a.sum - b.sum) * 1000) / LATENCY_SAMPLES; // per payment: a lone payment is its own transaction
    accounted += ms;
    console.log(`  ${ms.toFixed(2).padStart(6)} ms  ${step}${count === LATENCY_SAMPLES ? "" : ` (${count} runs)`}`);
  }
  console.log(`  ${(relayedMeanMs - accounted).toFixed(2).padStart(6)} ms  the rest: HTTP, the framework, between the steps`);
}

function printProfile(): void {
  const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${profileDir}`);
  const profile = JSON.parse(readFileSync(path.join(profileDir, file), "utf8")) as CpuProfile;
  const keep = process.argv.find((arg) => arg.startsWith("--keep="))?.slice("--keep=".length);
  if (keep) writeFileSync(keep, JSON.stringify({ ...profile, window }));
  const { areas, functions, sampledMicros } = breakdown(profile, window);
  console.log(`\nmain thread, measured round: ${(sampledMicros / N).toFixed(0)} µs sampled per payment (the rest of the /proc figure: other threads, the profiler)`);
  for (const [area, micros] of areas) console.log(`  ${(micros / N).toFixed(1).padStart(7)} µs  ${((100 * micros) / sampledMicros).toFixed(1).padStart(5)}%  ${area}`);
  if (process.argv.includes("--functions")) {
    console.log("\ntop functions (self time per payment):");
    for (const [name, micros] of functions.slice(0, 60)) console.log(`  ${(micros / N).toFixed(1).padStart(7)} µs  ${name}`);
  }
}
