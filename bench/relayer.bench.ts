// Fast-path payments through the relayer against the same `executePayment` transactions sent
// straight to the same devnet, side by side in one run:
//   throughput: N payments with 50 in flight (direct: gas, fees and nonces prefilled, signed ahead);
//   latency: one payment at a time, direct and relayed alternately, p50 of the relayer's HTTP answer
//   minus p50 of one direct transaction (send + receipt).
// Where /proc exists, it also prints the CPU time per payment of the chain's thread and of the
// JavaScript thread in each throughput round: what bounds the ratio on an in-process chain.
// Run: npm run bench (all benchmarks) or `bash scripts/run.sh node bench/relayer.bench.ts`.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "undici";
import { encodeFunctionData, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../src/chain/artifacts.ts";
import { clientsFor } from "../src/chain/clients.ts";
import { createSender } from "../src/chain/sender.ts";
import { devKeyPair } from "../src/devnet/accounts.ts";
import { startDevnet } from "../src/devnet/start.ts";
import { chainFromManifest, parseRelayerConfig } from "../src/relayer/config.ts";
import { startRelayer } from "../src/app/service.ts";
import { paymentRequestBody } from "../packages/client/src/bodies.ts";
import { signPaymentIntent } from "../packages/client/src/sign.ts";
import type { PaymentIntent } from "../packages/client/src/intent-types.ts";
import { targetLine } from "./support/target.ts";

const N = Number(process.env.BENCH_PAYMENTS ?? 2000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const IN_FLIGHT = 50;

const stateDir = mkdtempSync(path.join(tmpdir(), "relay-bench-"));
const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
const m = devnet.manifest;
const provider = devnet.chain.provider;
const clients = clientsFor(provider, m.chainId);
const unlimited = { capacity: 0, refillPerSecond: 0 };
const relayer = await startRelayer({
  config: parseRelayerConfig({ stateDir, chains: [chainFromManifest(m)], rateLimits: { bot: unlimited, vault: unlimited, client: unlimited } }),
  port: 0,
  providers: new Map([[m.chainId, provider]]),
});
const pool = new Pool(relayer.url, { connections: IN_FLIGHT, pipelining: 1 });

// A second authorized relayer key sends the direct transactions, so the two never share nonces.
const direct = devKeyPair(6);
await createSender(clients, devKeyPair(5).privateKey).call(m.contracts.registry as Address, "ServiceRegistry", "addRelayer", [direct.address]);
const directAccount = privateKeyToAccount(direct.privateKey);
const bot = privateKeyToAccount(m.accounts.bots.default.privateKey as Hex);
const vaultAbi = readArtifact("ServiceVault").abi;
const usdc = m.tokens.USDC!.address as Address;
const domain = m.domain as never;
let counter = 0;

async function signedIntent(): Promise<{ intent: PaymentIntent; signature: Hex }> {
  counter++;
  const intent: PaymentIntent = {
    bot: bot.address,
    to: `0x${(0x10000 + (counter % 5000)).toString(16).padStart(40, "0")}` as Address,
    token: usdc,
    amount: 1000n,
    deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
    ref: `0x${counter.toString(16).padStart(64, "0")}`,
  };
  return { intent, signature: await signPaymentIntent(bot, domain, intent) };
}

async function directTransactions(count: number): Promise<Hex[]> {
  const fees = await clients.publicClient.estimateFeesPerGas();
  let nonce = await clients.publicClient.getTransactionCount({ address: direct.address, blockTag: "pending" });
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
}

async function sendDirect(raw: Hex): Promise<void> {
  const hash = (await provider.request({ method: "eth_sendRawTransaction", params: [raw] })) as Hex;
  for (;;) {
    const receipt = await provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
    if (receipt) {
      if ((receipt as { status: string }).status !== "0x1") throw new Error("direct payment reverted");
      return;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
}

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

async function throughput<T>(items: T[], send: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < items.length) await send(items[next++]!);
  }));
  return items.length / ((performance.now() - started) / 1000);
}

/** CPU milliseconds so far of this process's threads, by thread name (Linux /proc; empty elsewhere). */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  if (!existsSync("/proc/self/task")) return out;
  const tick = 10; // ms per clock tick (USER_HZ = 100)
  for (const task of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * tick;
      out.set(name, (out.get(name) ?? 0) + ms);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** Runs a throughput round; also returns the chain's and the JavaScript thread's CPU ms per item. */
async function measured<T>(items: T[], send: (item: T) => Promise<void>): Promise<{ rate: number; chainMs?: number; jsMs?: number }> {
  const before = threadCpu();
  const rate = await throughput(items, send);
  const after = threadCpu();
  const used = (name: string) => (after.has(name) ? ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / items.length : undefined);
  return { rate, chainMs: used("edr-provider"), jsMs: used("MainThread") };
}

/**
 * One payment at a time, alternating a direct transaction and a relayed payment, so that both see
 * the same chain (a devnet's blocks get slightly slower to mine as it grows). Sorted latencies of each.
 */
async function latencies(raws: Hex[], bodies: string[]): Promise<{ direct: number[]; relayer: number[] }> {
  const direct: number[] = [];
  const relayer: number[] = [];
  const timed = async (send: () => Promise<void>, into: number[]) => {
    const t = performance.now();
    await send();
    into.push(performance.now() - t);
  };
  for (let i = 0; i < raws.length; i++) {
    await timed(() => sendDirect(raws[i]!), direct);
    await timed(() => sendRelayer(bodies[i]!), relayer);
  }
  return { direct: direct.sort((a, b) => a - b), relayer: relayer.sort((a, b) => a - b) };
}
const p50 = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;

// Warm-up (JIT, caches, connections), then the measured rounds.
await throughput(await relayerBodies(200), sendRelayer);
await throughput(await directTransactions(200), sendDirect);
const directRound = await measured(await directTransactions(N), sendDirect);
const relayRound = await measured(await relayerBodies(N), sendRelayer);
const directRate = directRound.rate;
const relayRate = relayRound.rate;
const { direct: directLatency, relayer: relayLatency } = await latencies(await directTransactions(LATENCY_SAMPLES), await relayerBodies(LATENCY_SAMPLES));

const ratio = relayRate / directRate;
const extra = p50(relayLatency) - p50(directLatency);
console.log(`direct executePayment:  ${directRate.toFixed(0)} payments/s (${N}, ${IN_FLIGHT} in flight), p50 ${p50(directLatency).toFixed(2)} ms`);
console.log(`through the relayer:    ${relayRate.toFixed(0)} payments/s (${N}, ${IN_FLIGHT} in flight), p50 ${p50(relayLatency).toFixed(2)} ms`);
if (directRound.chainMs !== undefined && relayRound.chainMs !== undefined) {
  const cpu = (r: typeof directRound) => `chain thread ${r.chainMs!.toFixed(2)} ms + JavaScript thread ${r.jsMs!.toFixed(2)} ms`;
  console.log(`CPU per payment, direct: ${cpu(directRound)}; through the relayer: ${cpu(relayRound)}`);
}
console.log(targetLine("throughput ratio relayer/direct", ratio, { op: ">=", value: 0.6 }));
console.log(targetLine("p50 latency relayer - direct", extra, { op: "<=", value: 1.5 }, "ms"));

await pool.close();
await relayer.close();
await devnet.close();
rmSync(stateDir, { recursive: true, force: true });
