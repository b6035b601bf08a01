// Fast-path payments through the relayer against the same `executePayment` transactions sent
// straight to the same node, side by side in one run, on each node of bench/support/nodes.ts: the
// in-process chain (Hardhat EDR, the relayer in the same process) and anvil (its own process, with
// `relay serve` as its own process, as users run it). The rounds are the same on both:
//   throughput: N payments of each kind with 50 in flight, in alternating direct and relayed rounds
//     of equal size, so that both kinds run on a chain of the same age (a node's per-block cost grows
//     with the chain's age: anvil's from 0.48 ms a block at 0–500 blocks to 3.7 ms at 2,500–3,000);
//     direct transactions have gas, fees and nonces prefilled and are signed ahead;
//   latency: one payment at a time, in turn a direct one, one through the lean relayer (the steps no
//     relayer may skip, support/lean-beside.ts) and one through relay, on the same chain: p50 of the
//     relayer's HTTP answer minus p50 of one direct transaction until its receipt, against the lean
//     relayer's the same way + 1 ms; a direct transaction waited for the quickest way a bot can:
//     eth_sendRawTransactionSync where the node has it, as anvil does (anvil answers it as soon as
//     its automine has mined the block, with no added wait: on a fresh anvil a transfer took 1.1 ms
//     p50 by it, 1.2–1.4 ms sent and then its receipt read at once or every millisecond, and ~4 ms
//     woken by a newHeads websocket subscription); else sent, then its receipt polled every
//     millisecond (the in-process chain mines within the send, so the first read finds it). The
//     relayer sends a lone transaction the same way (submitter.ts);
//   CPU per payment from /proc in the throughput rounds: on anvil the relay process's (all threads),
//     the relayer's own cost, and anvil's; in process the chain's thread and the JS thread; and each
//     kind's payments per block (anvil's automine packs waiting direct transactions into one block too).
// Run: npm run bench (all benchmarks) or `npm run bench:relayer`; BENCH_NODES=anvil (or in-process)
// runs one node, BENCH_PAYMENTS, BENCH_ROUND and BENCH_LATENCY_SAMPLES change the sizes.
import { Pool } from "undici";
import { encodeFunctionData, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../src/chain/artifacts.ts";
import { paymentRequestBody } from "../packages/client/src/bodies.ts";
import { anvilNode, inProcessNode, type BenchNode, type NodeKind } from "./support/nodes.ts";
import { paymentIntents } from "./support/intents.ts";
import { targetLine, type Target } from "./support/target.ts";
import { addedP50Goal, LATENCY_MARGIN_MS, recordedGoals } from "./support/floor-goals.ts";
import { leanBeside } from "./support/lean-beside.ts";

const N = Number(process.env.BENCH_PAYMENTS ?? 2000);
const ROUND = Number(process.env.BENCH_ROUND ?? 250);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const IN_FLIGHT = 50;
const NODES = (process.env.BENCH_NODES ?? "in-process,anvil").split(",").map((s) => s.trim()) as NodeKind[];

/**
 * The targets per node: throughput relayed ÷ direct (issue 16), and relay's CPU (µs) against the
 * floor this machine measured (support/floor-goals.ts; bench/all.sh runs the floor bench first;
 * without a recorded floor, that line says so instead of a goal). The added p50's goal comes from
 * the lean relayer measured beside relay in the latency round.
 */
const GOALS = recordedGoals();
const TARGETS: Record<NodeKind, { ratio: Target; relayerCpu?: Target }> = {
  "in-process": { ratio: { op: ">=", value: 0.6 } },
  anvil: { ratio: { op: ">=", value: 2.0 }, ...("missing" in GOALS ? {} : { relayerCpu: GOALS.cpu }) },
};

const vaultAbi = readArtifact("ServiceVault").abi;

/** One node's load: signed direct transactions and relayed bodies, and how to send each. */
function load(node: BenchNode) {
  const m = node.manifest;
  const directAccount = privateKeyToAccount(node.direct.privateKey);
  const domain = m.domain as never;
  const pool = new Pool(node.relayerUrl, { connections: IN_FLIGHT, pipelining: 1 });
  const signedIntent = paymentIntents(m);

  return {
    async directTransactions(count: number): Promise<Hex[]> {
      const fees = await node.clients.publicClient.estimateFeesPerGas();
      let nonce = await node.clients.publicClient.getTransactionCount({ address: node.direct.address, blockTag: "pending" });
      const raws: Hex[] = [];
      for (let i = 0; i < count; i++) {
        const { intent, signature } = await signedIntent();
        raws.push(
          await directAccount.signTransaction({
            type: "eip1559",
            chainId: m.chainId,
            to: m.contracts.vault as Address,
            data: encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [intent, signature] }),
            gas: 250_000n,
            nonce: nonce++,
            maxFeePerGas: fees.maxFeePerGas! * 4n,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
          }),
        );
      }
      return raws;
    },

    async sendDirect(raw: Hex): Promise<void> {
      if (node.sendSync) {
        const receipt = (await node.rpc("eth_sendRawTransactionSync", [raw])) as { status: string };
        if (receipt.status !== "0x1") throw new Error("direct payment reverted");
        return;
      }
      const hash = (await node.rpc("eth_sendRawTransaction", [raw])) as Hex;
      for (;;) {
        const receipt = await node.rpc("eth_getTransactionReceipt", [hash]);
        if (receipt) {
          if ((receipt as { status: string }).status !== "0x1") throw new Error("direct payment reverted");
          return;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
    },

    async relayerBodies(count: number): Promise<string[]> {
      const bodies: string[] = [];
      for (let i = 0; i < count; i++) {
        const { intent, signature } = await signedIntent();
        bodies.push(JSON.stringify(paymentRequestBody(domain, intent, signature, { idempotencyKey: crypto.randomUUID() })));
      }
      return bodies;
    },

    async sendRelayer(body: string): Promise<void> {
      const res = await pool.request({ path: "/v1/payments", method: "POST", headers: { "content-type": "application/json" }, body });
      const answer = (await res.body.json()) as { status?: string; code?: string };
      if (res.statusCode !== 200 || answer.status !== "approved") throw new Error(`relayer answered ${res.statusCode} ${JSON.stringify(answer)}`);
    },

    /** The lean relayer beside relay on this node (support/lean-beside.ts), on the bench's intents. */
    lean: () => leanBeside({ manifest: m, clients: node.clients, rpc: node.rpc, sendSync: node.sendSync, nextIntent: signedIntent }),

    close: () => pool.close(),
  };
}

/** Sends every item with IN_FLIGHT at a time; returns the wall-clock seconds it took. */
async function saturate<T>(items: T[], send: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < items.length) await send(items[next++]!);
  }));
  return (performance.now() - started) / 1000;
}

/** The totals of one kind of round: payments, seconds, blocks mined, CPU µs by part. */
interface Tally { payments: number; seconds: number; blocks: number; cpu: Record<string, number> }
const tally = (): Tally => ({ payments: 0, seconds: 0, blocks: 0, cpu: {} });

/** The node's latest block, asked afresh (viem would otherwise answer from its cache for seconds). */
const latestBlock = async (node: BenchNode) => Number(await node.clients.publicClient.getBlockNumber({ cacheTime: 0 }));

/**
 * One round of `items` into `into`, with the node's CPU and block number read around it (the items
 * are made before): a round's blocks hold its payments only, as the rounds do not overlap.
 */
async function round<T>(node: BenchNode, items: T[], send: (item: T) => Promise<void>, into: Tally): Promise<void> {
  const firstBlock = await latestBlock(node);
  const before = node.cpu();
  into.seconds += await saturate(items, send);
  const after = node.cpu();
  into.blocks += (await latestBlock(node)) - firstBlock;
  into.payments += items.length;
  for (const part of Object.keys(after)) into.cpu[part] = (into.cpu[part] ?? 0) + after[part]! - before[part]!;
}

/**
 * One payment at a time, in turn a direct one, one through the lean relayer and one through relay,
 * on the same chain. Sorted latencies of each.
 */
async function latencies(l: ReturnType<typeof load>): Promise<{ direct: number[]; lean: number[]; relayed: number[] }> {
  const lean = await l.lean();
  try {
    const raws = await l.directTransactions(LATENCY_SAMPLES);
    const leanBodies = await lean.bodies(LATENCY_SAMPLES);
    const bodies = await l.relayerBodies(LATENCY_SAMPLES);
    const direct: number[] = [];
    const leanMs: number[] = [];
    const relayed: number[] = [];
    const timed = async (send: () => Promise<void>, into: number[]) => {
      const t = performance.now();
      await send();
      into.push(performance.now() - t);
    };
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      await timed(() => l.sendDirect(raws[i]!), direct);
      await timed(() => lean.send(leanBodies[i]!), leanMs);
      await timed(() => l.sendRelayer(bodies[i]!), relayed);
    }
    const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
    return { direct: sorted(direct), lean: sorted(leanMs), relayed: sorted(relayed) };
  } finally {
    await lean.close();
  }
}
const p50 = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;

async function benchNode(node: BenchNode): Promise<void> {
  const l = load(node);
  try {
    const at = () => latestBlock(node);
    // Warm-up (JIT, caches, connections), then alternating measured rounds of equal size.
    await saturate(await l.relayerBodies(200), l.sendRelayer);
    await saturate(await l.directTransactions(200), l.sendDirect);
    const direct = tally();
    const relayed = tally();
    const firstBlock = await at();
    for (let done = 0; done < N; done += ROUND) {
      const size = Math.min(ROUND, N - done);
      await round(node, await l.directTransactions(size), l.sendDirect, direct);
      await round(node, await l.relayerBodies(size), l.sendRelayer, relayed);
    }
    const lastBlock = await at();
    const lat = await latencies(l);

    const rate = (t: Tally) => t.payments / t.seconds;
    const perPayment = (t: Tally) => Object.entries(t.cpu).map(([part, us]) => `${part} ${(us / t.payments).toFixed(0)} µs`).join(", ");
    const sizes = `${N} each in alternating rounds of ${ROUND}, ${IN_FLIGHT} in flight, blocks ${firstBlock}–${lastBlock}`;
    console.log(`direct executePayment: ${rate(direct).toFixed(0)} payments/s, p50 ${p50(lat.direct).toFixed(2)} ms (${sizes})`);
    console.log(`through the relayer:   ${rate(relayed).toFixed(0)} payments/s, p50 ${p50(lat.relayed).toFixed(2)} ms`);
    console.log(`through the lean relayer, in turn with both: p50 ${p50(lat.lean).toFixed(2)} ms`);
    console.log(`CPU per payment (/proc), direct: ${perPayment(direct)}; relayed: ${perPayment(relayed)}`);
    const perBlock = (t: Tally) => (t.blocks > 0 ? (t.payments / t.blocks).toFixed(1) : "-");
    console.log(`payments per block: direct ${perBlock(direct)}, relayed ${perBlock(relayed)}`);
    const targets = TARGETS[node.kind];
    console.log(targetLine(`throughput relayed ÷ direct (${node.kind})`, rate(relayed) / rate(direct), targets.ratio));
    const addedP50 = p50(lat.relayed) - p50(lat.direct);
    const leanAdded = p50(lat.lean) - p50(lat.direct);
    const fresh = "missing" in GOALS ? "" : `; on the floor bench's fresh chain ${GOALS.leanAddedP50Ms.toFixed(3)} ms`;
    console.log(`goal: the lean relayer's ${leanAdded.toFixed(3)} ms beside it + ${LATENCY_MARGIN_MS} ms${fresh}`);
    console.log(targetLine(`p50 latency relayed − direct (${node.kind})`, addedP50, addedP50Goal(leanAdded), "ms"));
    if ("missing" in GOALS) {
      if (node.kind === "anvil" && relayed.cpu.relayer !== undefined) {
        console.log(`relay process CPU per fast-path payment, all threads (${node.kind}): ${(relayed.cpu.relayer / relayed.payments).toFixed(0)} µs (no goal: ${GOALS.missing})`);
      }
    } else if (targets.relayerCpu && relayed.cpu.relayer !== undefined) {
      console.log(`goal: ${GOALS.cpuSource}`);
      console.log(targetLine(`relay process CPU per fast-path payment, all threads (${node.kind})`, relayed.cpu.relayer / relayed.payments, targets.relayerCpu, "µs", 0));
    }
  } finally {
    await l.close();
  }
}

for (const kind of NODES) {
  const node = kind === "anvil" ? await anvilNode() : kind === "in-process" ? await inProcessNode() : undefined;
  if (!node) throw new Error(`BENCH_NODES: unknown node "${kind}" (in-process, anvil)`);
  console.log(`-- ${node.title}`);
  try {
    await benchNode(node);
  } catch (error) {
    if (node.relayerLog) console.error(`relay serve's log:\n${node.relayerLog()}`);
    throw error;
  } finally {
    await node.close();
  }
}
