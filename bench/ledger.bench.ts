// Ledger latency benchmark: `node bench/ledger.bench.ts [measuredCycles]` (Node >= 22.13; not part of npm test).
//
// One cycle is what the relayer does per request: createRequest + claimIdempotency + reserveSpend +
// transition, each its own durable IMMEDIATE transaction (WAL, synchronous=FULL). The ledger is first
// filled with 1k, then (in a fresh file) 100k requests at the same traffic rate (one request a minute
// across 20 vaults x 10 bots, so a longer history, not a busier window), then the cycle is timed.
// LEDGER_BENCH_CHECKPOINT_PAGES overrides the ledger's wal_autocheckpoint, to compare settings.
// The target: p99 at 100k rows / p99 at 1k rows <= 1.5 (cost independent of history length).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createHash, randomUUID } from "node:crypto";
import { openLedger, type Ledger, type SpendLimits } from "../src/ledger/index.ts";
import type { StoreOps } from "../src/relayer/store.ts";
import { targetLine } from "./support/target.ts";

const measured = Number(process.argv[2] ?? 2000);
const stepMs = 60_000;
const vaults = Array.from({ length: 20 }, (_, i) => "0x" + (i + 1).toString(16).padStart(40, "a"));
const bots = Array.from({ length: 10 }, (_, i) => "0x" + (i + 1).toString(16).padStart(40, "b"));
const limits: SpendLimits = {
  botLimits: [
    { amount: 10n ** 15n, maxCount: 1000n, windowSeconds: 86_400n },
    { amount: 10n ** 14n, maxCount: 100n, windowSeconds: 3_600n },
  ],
  vaultLimits: [{ amount: 10n ** 16n, maxCount: 0n, windowSeconds: 86_400n }],
};

async function cycle(ledger: StoreOps, i: number): Promise<void> {
  const vault = vaults[i % vaults.length]!;
  const bot = bots[Math.floor(i / vaults.length) % bots.length]!;
  const key = randomUUID(); // real keys and intent hashes are random: no insertion locality
  const intentHash = "0x" + createHash("sha256").update(String(i)).digest("hex");
  const request = await ledger.createRequest({
    kind: "payment",
    chainId: 84532,
    vault,
    bot,
    intentHash,
    idempotencyKey: key,
    fingerprint: "fp" + i,
    usdValue: 5_000_000n,
    body: `{"amount":"5000000","n":${i}}`,
    deadline: 1_900_000_000n,
  });
  const claim = await ledger.claimIdempotency("payment", key, "fp" + i, request.id);
  if (claim.outcome !== "new") throw new Error(`unexpected claim ${claim.outcome}`);
  const spend = await ledger.reserveSpend({ chainId: 84532, vault, bot, requestId: request.id, usd: 5_000_000n }, limits);
  if (!spend.ok) throw new Error(`unexpected refusal ${spend.code}`);
  if (!(await ledger.transition(request.id, ["received"], "approved", { txHash: "0x" + "ab".repeat(32) }))) {
    throw new Error("transition failed");
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const pagesArg = process.env.LEDGER_BENCH_CHECKPOINT_PAGES;
const walAutocheckpointPages = pagesArg === undefined ? undefined : Number(pagesArg);

interface Bench {
  ledger: Ledger;
  dir: string;
  rows: number;
  next: number;
  clock: { t: number };
  samples: number[];
}

async function setup(rows: number): Promise<Bench> {
  const dir = mkdtempSync(path.join(tmpdir(), "relay-ledger-bench-"));
  const clock = { t: Date.UTC(2026, 0, 1) };
  const ledger = openLedger(path.join(dir, "ledger.sqlite"), { now: () => clock.t, walAutocheckpointPages });
  // Fill in batches (one transaction per 1000 cycles) so setting up 100k rows takes seconds.
  for (let i = 0; i < rows; ) {
    const end = Math.min(rows, i + 1000);
    await ledger.transaction(async (tx) => {
      for (; i < end; i++, clock.t += stepMs) await cycle(tx, i);
    });
  }
  const bench: Bench = { ledger, dir, rows, next: rows, clock, samples: [] };
  await measure(bench, 200); // warm up
  bench.samples = [];
  return bench;
}

async function measure(bench: Bench, cycles: number): Promise<void> {
  for (let i = 0; i < cycles; i++, bench.clock.t += stepMs) {
    const start = performance.now();
    await cycle(bench.ledger, bench.next++);
    bench.samples.push(performance.now() - start);
  }
}

function summary(bench: Bench) {
  const sorted = [...bench.samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted[sorted.length - 1]!,
    perSecond: (1000 * sorted.length) / sorted.reduce((sum, ms) => sum + ms, 0),
  };
}

// Both ledgers stay open and are measured in alternating blocks, so background load on the machine
// (other processes' disk and CPU use) falls on both sizes alike.
const small = await setup(1_000);
const large = await setup(100_000);
for (let done = 0; done < measured; done += 100) {
  await measure(small, 100);
  await measure(large, 100);
}
const fmt = (ms: number): string => `${ms.toFixed(3)} ms`;
const line = (label: string, b: Bench): string => {
  const r = summary(b);
  return `${label} p50 ${fmt(r.p50)}  p99 ${fmt(r.p99)}  p99.9 ${fmt(r.p999)}  max ${fmt(r.max)}  (${b.samples.length} cycles, ${b.rows} -> ${b.next} rows, ${r.perSecond.toFixed(0)} cycles/s)`;
};
console.log(line("1k rows:  ", small));
console.log(line("100k rows:", large));
const ratio = summary(large).p99 / summary(small).p99;
console.log(targetLine("p99 ratio 100k/1k", ratio, { op: "<=", value: 1.5 }));
for (const b of [small, large]) {
  await b.ledger.close();
  rmSync(b.dir, { recursive: true, force: true });
}
