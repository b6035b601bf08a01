// A legitimate bot's latency while another client address floods the relayer with open reads of the
// chain (the read flood of issue 30: 200 concurrent `GET /v1/vault/:v/value` took a payment's p50
// from ~10 ms to ~1 s). One relayer on a devnet, the relayer's own limits for clients and reads (bot
// and vault buckets opened, so that the bot's own pace is never what is measured):
//   quiet: the bot at 127.0.0.1 pays one payment at a time; p50 of the relayer's HTTP answer;
//   flood: the same, while a worker thread keeps FLOOD reads in flight from 127.0.0.2, sending the
//          next as soon as one is answered (an attacker ignores Retry-After): half of them the vault's
//          value, half a balance of a token address never asked before (no two alike, none shared).
// Target: p50 under the flood ≤ 2× the quiet p50.
// Run: npm run bench (all benchmarks) or `bash scripts/run.sh node bench/read-flood.bench.ts`.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { paymentRequestBody } from "../packages/client/src/bodies.ts";
import { signPaymentIntent } from "../packages/client/src/sign.ts";
import { startDevnet } from "../src/devnet/start.ts";
import type { PaymentIntent } from "../packages/client/src/intent-types.ts";
import { chainFromManifest, parseRelayerConfig } from "../src/relayer/config.ts";
import { startRelayer } from "../src/app/service.ts";
import { targetLine } from "./support/target.ts";

const SAMPLES = Number(process.env.BENCH_READ_SAMPLES ?? 150);
const FLOOD = Number(process.env.BENCH_READ_FLOOD ?? 200);
const TARGET_RATIO = 2;

const stateDir = mkdtempSync(path.join(tmpdir(), "relay-bench-reads-"));
const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
const m = devnet.manifest;
const open = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
// Client and reads buckets keep their defaults: those are what is measured.
const config = parseRelayerConfig({ stateDir, chains: [chainFromManifest(m)] });
const relayer = await startRelayer({
  config: parseRelayerConfig({ stateDir, chains: [chainFromManifest(m)], rateLimits: { ...config.rateLimits, bot: open, vault: open } }),
  port: 0,
  providers: new Map([[m.chainId, devnet.chain.provider]]),
});
const url = `${relayer.url}/v1/payments`;
const bot = privateKeyToAccount(m.accounts.bots.default.privateKey as Hex);
const domain = m.domain as never;
let counter = 0;

async function payment(): Promise<string> {
  counter++;
  const intent: PaymentIntent = {
    bot: bot.address,
    to: `0x${(0x30000 + counter).toString(16).padStart(40, "0")}` as Address,
    token: m.tokens.USDC!.address as Address,
    amount: 1000n,
    deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
    ref: `0x${counter.toString(16).padStart(64, "0")}`,
  };
  return JSON.stringify(paymentRequestBody(domain, intent, await signPaymentIntent(bot, domain, intent), { idempotencyKey: crypto.randomUUID() }));
}

const legit = new Agent({ keepAlive: true, maxSockets: 1, localAddress: "127.0.0.1" });
function post(body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent: legit, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Milliseconds of each of `count` payments, one at a time; every one must be approved. */
async function latencies(count: number): Promise<number[]> {
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) bodies.push(await payment());
  const out: number[] = [];
  for (const body of bodies) {
    const started = performance.now();
    const answer = await post(body);
    out.push(performance.now() - started);
    if (answer.status !== 200 || JSON.parse(answer.text).status !== "approved") throw new Error(`the bot's payment was answered ${answer.status} ${answer.text}`);
  }
  return out;
}

const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

// The flood, in its own thread so that making requests does not take the relayer's thread: plain
// JavaScript, FLOOD connections from 127.0.0.2, each sending the next read as soon as one is
// answered, until told to stop; it reports its tally.
const floodCode = `
const { parentPort, workerData } = require("node:worker_threads");
const { Agent, request } = require("node:http");
const { randomBytes } = require("node:crypto");
const { base, vault, inFlight } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: inFlight, localAddress: "127.0.0.2" });
let stopping = false;
let sent = 0;
const tally = {};
function next() {
  sent++;
  return sent % 2 === 0 ? base + "/v1/vault/" + vault + "/value" : base + "/v1/vault/" + vault + "/balance/0x" + randomBytes(20).toString("hex");
}
function send() {
  return new Promise((resolve) => {
    const req = request(next(), { method: "GET", agent }, (res) => {
      let out = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (out += c));
      res.on("end", () => {
        let code = "";
        try { code = JSON.parse(out).code || ""; } catch {}
        const key = (res.statusCode + " " + code).trim();
        tally[key] = (tally[key] || 0) + 1;
        resolve();
      });
    });
    req.on("error", () => { tally.error = (tally.error || 0) + 1; resolve(); });
    req.end();
  });
}
async function slot() { while (!stopping) await send(); }
parentPort.on("message", () => { stopping = true; });
Promise.all(Array.from({ length: inFlight }, slot)).then(() => { agent.destroy(); parentPort.postMessage(tally); });
`;

async function underFlood<T>(work: () => Promise<T>): Promise<{ result: T; tally: Record<string, number>; seconds: number }> {
  const worker = new Worker(floodCode, { eval: true, workerData: { base: relayer.url, vault: m.contracts.vault, inFlight: FLOOD } });
  const done = new Promise<Record<string, number>>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await new Promise((r) => setTimeout(r, 1000)); // the flood is at full strength before measuring
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000 + 1;
  worker.postMessage("stop");
  const tally = await done;
  await worker.terminate();
  return { result, tally, seconds };
}

await latencies(20); // warm-up: the vault's domain is cached, the code paths are compiled
const quiet = p50(await latencies(SAMPLES));
const flood = await underFlood(() => latencies(SAMPLES));
const flooded = p50(flood.result);
const sent = Object.values(flood.tally).reduce((a, b) => a + b, 0);
const ratio = flooded / quiet;

console.log(`the bot's p50, quiet:                ${quiet.toFixed(2)} ms (${SAMPLES} payments, one at a time)`);
console.log(`the bot's p50, under the read flood: ${flooded.toFixed(2)} ms`);
console.log(`the flood from 127.0.0.2: ${sent} reads in ${flood.seconds.toFixed(1)} s (${(sent / flood.seconds).toFixed(0)}/s, ${FLOOD} in flight): ${JSON.stringify(flood.tally)}`);
console.log(targetLine(`payment p50 under a ${FLOOD}-read flood / quiet p50`, ratio, { op: "<=", value: TARGET_RATIO }, "×"));

legit.destroy();
await relayer.close();
await devnet.close();
rmSync(stateDir, { recursive: true, force: true });
