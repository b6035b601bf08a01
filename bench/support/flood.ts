// A legitimate bot's latency while another client address floods the relayer, for the benchmarks
// that differ only in what the flood sends (bench/auth-flood.bench.ts: bad signatures;
// bench/read-flood.bench.ts: open reads of the chain). One relayer on a devnet, the relayer's own
// limits for clients, unauthenticated work and reads (bot and vault buckets opened, so that the
// bot's own pace is never what is measured):
//   quiet: the bot at 127.0.0.1 pays one payment at a time; p50 of the relayer's HTTP answer;
//   flood: the same, while a worker thread keeps FLOOD of the bench's requests in flight from
//          127.0.0.2, sending the next as soon as one is answered (an attacker ignores Retry-After).
// Target: p50 under the flood ≤ 2× the quiet p50. A bench names only what differs (how its flood's
// requests are made, its words, its environment variables); both print four lines in this shape:
//   the bot's p50, quiet:                9.02 ms (150 payments, one at a time)
//   the bot's p50, under the read flood: 10.71 ms
//   the flood from 127.0.0.2: 222 reads in 1.3 s (173/s, 200 in flight): {"200":123,"429 RATE_LIMITED":99}
//   payment p50 under a 200-read flood / quiet p50: 1.19 × (target <= 2 ×) MET
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { signPaymentIntent, type TypedDataSigner } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { startDevnet } from "../../src/devnet/start.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { startRelayer } from "../../src/app/service.ts";
import { targetLine } from "./target.ts";

const TARGET_RATIO = 2;

/** What the flood can build its worker's data from, once the relayer is up. */
export interface FloodContext {
  /** The relayer's base URL, http://127.0.0.1:<port>. */
  relayerUrl: string;
  /** Where the bot's payments go: `${relayerUrl}/v1/payments`. */
  paymentsUrl: string;
  manifest: Manifest;
  /** A payment body of the bot's, signed by `signer` (the bot unless told). */
  payment(signer?: TypedDataSigner): Promise<string>;
}

export interface Flood {
  /** The temporary state directory's prefix, e.g. "relay-bench-auth-". */
  stateDirPrefix: string;
  /** Environment variables: the bot's payments per measurement (150 unless set) and FLOOD. */
  samplesVariable: string;
  inFlightVariable: string;
  inFlightDefault: number;
  /** The flood's name in the second line: "the bot's p50, under <name>:". */
  name: string;
  /** What it sends, plural, in the third line: "the flood from 127.0.0.2: 180 <sends> in 1.3 s …". */
  sends: string;
  /** The label of the figure beside its target, given FLOOD. */
  targetLabel(inFlight: number): string;
  /** The worker's `workerData` (the harness adds `inFlight`); asked once, just before the flood. */
  workerData(context: FloodContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * Plain JavaScript, run in the worker in a scope of its own, that defines `function next()`
   * returning the next request as `{ url, method, headers?, body? }`; `workerData` and `require`
   * are in scope. Code, not a function, because the worker is another thread: it shares no closures.
   */
  next: string;
}

// The flood, in its own thread so that making requests does not take the relayer's thread: plain
// JavaScript, inFlight connections from 127.0.0.2, each sending the flood's next request as soon
// as one is answered, until told to stop; it reports its tally of answers by status and code.
const floodCode = (next: string) => `
const { parentPort, workerData } = require("node:worker_threads");
const { Agent, request } = require("node:http");
const { inFlight } = workerData;
const next = (function () {
${next}
return next;
})();
const agent = new Agent({ keepAlive: true, maxSockets: inFlight, localAddress: "127.0.0.2" });
let stopping = false;
const tally = {};
function send() {
  return new Promise((resolve) => {
    const { url, method, headers, body } = next();
    const req = request(url, { method, agent, headers }, (res) => {
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
    req.end(body);
  });
}
async function slot() { while (!stopping) await send(); }
parentPort.on("message", () => { stopping = true; });
Promise.all(Array.from({ length: inFlight }, slot)).then(() => { agent.destroy(); parentPort.postMessage(tally); });
`;

/** Measures the bot's p50 quiet and under `flood`, prints the four lines, and stops everything. */
export async function runFloodBench(flood: Flood): Promise<void> {
  const SAMPLES = Number(process.env[flood.samplesVariable] ?? 150);
  const FLOOD = Number(process.env[flood.inFlightVariable] ?? flood.inFlightDefault);

  const stateDir = mkdtempSync(path.join(tmpdir(), flood.stateDirPrefix));
  const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  const m = devnet.manifest;
  const open = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
  // Client, unauthenticated-work and reads buckets keep their defaults: those are what is measured.
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

  async function payment(signer: TypedDataSigner = bot): Promise<string> {
    counter++;
    const intent: PaymentIntent = {
      bot: bot.address,
      to: `0x${(0x20000 + counter).toString(16).padStart(40, "0")}` as Address,
      token: m.tokens.USDC!.address as Address,
      amount: 1000n,
      deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
      ref: `0x${counter.toString(16).padStart(64, "0")}`,
    };
    return JSON.stringify(paymentRequestBody(domain, intent, await signPaymentIntent(signer, domain, intent), { idempotencyKey: crypto.randomUUID() }));
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

  async function underFlood<T>(work: () => Promise<T>): Promise<{ result: T; tally: Record<string, number>; seconds: number }> {
    const data = await flood.workerData({ relayerUrl: relayer.url, paymentsUrl: url, manifest: m, payment });
    const worker = new Worker(floodCode(flood.next), { eval: true, workerData: { ...data, inFlight: FLOOD } });
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
  const flooded = await underFlood(() => latencies(SAMPLES));
  const floodedP50 = p50(flooded.result);
  const sent = Object.values(flooded.tally).reduce((a, b) => a + b, 0);
  const ratio = floodedP50 / quiet;

  // The two p50s in one column, as wide as the longest flood name's label ("under the read flood:").
  const column = (label: string) => `${label} `.padEnd(37);
  console.log(`${column("the bot's p50, quiet:")}${quiet.toFixed(2)} ms (${SAMPLES} payments, one at a time)`);
  console.log(`${column(`the bot's p50, under ${flood.name}:`)}${floodedP50.toFixed(2)} ms`);
  console.log(`the flood from 127.0.0.2: ${sent} ${flood.sends} in ${flooded.seconds.toFixed(1)} s (${(sent / flooded.seconds).toFixed(0)}/s, ${FLOOD} in flight): ${JSON.stringify(flooded.tally)}`);
  console.log(targetLine(flood.targetLabel(FLOOD), ratio, { op: "<=", value: TARGET_RATIO }, "×"));

  legit.destroy();
  await relayer.close();
  await devnet.close();
  rmSync(stateDir, { recursive: true, force: true });
}
