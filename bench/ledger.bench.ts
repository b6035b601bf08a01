// Ledger latency benchmark: `node bench/ledger.bench.ts [measuredCycles]` (Node >= 22.13; not part of npm test).
//
// One cycle is what the relayer does per request: createRequest + claimIdempotency + reserveSpend +
// transition, each its own durable IMMEDIATE transaction (WAL, synchronous=FULL), on a ledger opened
// as relay serve opens its own: WAL checkpoints in a worker thread, off the commits. The ledger is first
// filled with 1k, then (in a fresh file) 1M requests (LEDGER_BENCH_ROWS) at the same traffic rate (one request a minute
// across 20 vaults x 10 bots, so a longer history, not a busier window), then the cycle is timed.
// LEDGER_BENCH_CHECKPOINT_PAGES instead has each commit checkpoint past that many pages of log
// (no worker), to compare settings.
// The target: p99 at 1M rows / p99 at 1k rows <= 1.5 (cost independent of history length).
// The small ledger is filled through the store (the same cycle, 1000 per transaction); the large one
// in bulk by SQL with the rows the cycle makes (sqliteBulkFill), as is the PostgreSQL one below.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createHash, randomUUID } from "node:crypto";
import { openLedger, type SpendLimits } from "../src/ledger/index.ts";
import { openPostgresStore } from "../src/ledger/postgres/index.ts";
import type { Store, StoreOps } from "../src/relayer/store.ts";
import { startPostgres } from "../test/support/postgres.ts";
import { sqliteBulkFill } from "./support/ledger-fill.ts";
import { spendBucketsFromSpend } from "../src/ledger/spend-buckets.ts";
import { checkpointIntervalMs } from "../src/ledger/checkpointer.ts";
import { targetLine } from "./support/target.ts";

const measured = Number(process.argv[2] ?? 4000);
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
  ledger: Store;
  dir: string;
  rows: number;
  next: number;
  clock: { t: number };
  samples: number[];
}

async function setup(rows: number, bulk: boolean): Promise<Bench> {
  const dir = mkdtempSync(path.join(tmpdir(), "relay-ledger-bench-"));
  const file = path.join(dir, "ledger.sqlite");
  const clock = { t: Date.UTC(2026, 0, 1) };
  if (bulk) {
    await openLedger(file).close(); // the schema, as the relayer makes it
    sqliteBulkFill(file, { rows, chainId: 84532, start: clock.t, stepMs, vaults, bots });
    clock.t += rows * stepMs;
  }
  const now = () => clock.t;
  const ledger = openLedger(file, walAutocheckpointPages === undefined ? { now, backgroundCheckpoints: true } : { now, walAutocheckpointPages });
  // Fill in batches (one transaction per 1000 cycles) so setting up the small ledger takes a second.
  for (let i = bulk ? rows : 0; i < rows; ) {
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
// (other processes' disk and CPU use) falls on both sizes alike. A block is long beside the
// checkpoint worker's tick, so that each ledger's checkpoints run while it is measured, as they run
// while the relayer serves; a pause of two ticks after each block lets its last checkpoint finish
// before the other ledger's block begins, instead of landing in it.
const BLOCK = 1000;
const pause = () => new Promise((resolve) => setTimeout(resolve, 2 * checkpointIntervalMs));
const small = await setup(1_000, false);
const largeRows = Number(process.env.LEDGER_BENCH_ROWS ?? 1_000_000);
const fillStart = performance.now();
const large = await setup(largeRows, true);
console.log(`SQLite: filled ${largeRows} requests in bulk by SQL in ${((performance.now() - fillStart) / 1000).toFixed(0)} s`);
for (let done = 0; done < measured; done += BLOCK) {
  await measure(small, BLOCK);
  await pause();
  await measure(large, BLOCK);
  await pause();
}
const fmt = (ms: number): string => `${ms.toFixed(3)} ms`;
const line = (label: string, b: Bench): string => {
  const r = summary(b);
  return `${label} p50 ${fmt(r.p50)}  p99 ${fmt(r.p99)}  p99.9 ${fmt(r.p999)}  max ${fmt(r.max)}  (${b.samples.length} cycles, ${b.rows} -> ${b.next} rows, ${r.perSecond.toFixed(0)} cycles/s)`;
};
console.log(line("1k rows:  ", small));
console.log(line(`${largeRows} rows:`, large));
const ratio = summary(large).p99 / summary(small).p99;
console.log(targetLine(`SQLite ledger p99 ratio ${largeRows}/1k`, ratio, { op: "<=", value: 1.5 }));
for (const b of [small, large]) {
  await b.ledger.close();
  rmSync(b.dir, { recursive: true, force: true });
}

// The PostgreSQL store (src/ledger/postgres) on a real local server (test/support/postgres.ts,
// fsync on like a production server): the same cycle against 1k requests made through the store
// and against LEDGER_BENCH_PG_ROWS (default the same 1M) requests. Making a million through the
// store one round trip at a time would take most of an hour, so the large database is filled in
// bulk by SQL (INSERT … SELECT generate_series): the same rows the cycle makes — a request
// (approved, an id sorting by its time, random-looking key and intent hash), its idempotency claim, its spend entry and its
// spend minute — one a minute across the same 20 vaults × 10 bots, then ANALYZEd.
async function pgSetup(url: string, rows: number, bulk: boolean): Promise<Bench> {
  const clock = { t: Date.UTC(2026, 0, 1) };
  const ledger = await openPostgresStore(url, { now: () => clock.t });
  if (bulk) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {}); // the server ending at the bench's end
    await client.connect();
    const vaultList = `ARRAY[${vaults.map((v) => `'${v}'`).join(",")}]`;
    const botList = `ARRAY[${bots.map((b) => `'${b}'`).join(",")}]`;
    await client.query(`CREATE TEMP TABLE fill AS SELECT g,
        (${vaultList})[g % 20 + 1] AS vault, (${botList})[(g / 20) % 10 + 1] AS bot,
        'req_' || lpad((${clock.t}::bigint + g * ${stepMs}::bigint)::text, 13, '0') || left(md5('id' || g), 12) AS id, md5('key' || g) AS key, '0x' || md5('i' || g) || md5('h' || g) AS intent_hash,
        ${clock.t}::bigint + g * ${stepMs}::bigint AS at
      FROM generate_series(0, ${rows - 1}) AS g`);
    await client.query(`INSERT INTO requests (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint,
        status, usd_value, body, tx_hash, created_at, updated_at, deadline)
      SELECT id, 'payment', 84532, vault, bot, intent_hash, key, 'fp' || g, 'approved', 5000000,
        '{"amount":"5000000","n":' || g || '}', '0x${"ab".repeat(32)}', at, at, 1900000000 FROM fill`);
    await client.query(`INSERT INTO idempotency (kind, key, fingerprint, request_id, created_at)
      SELECT 'payment', key, 'fp' || g, id, at FROM fill`);
    await client.query(`INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) SELECT id, 84532, vault, bot, 5000000, at FROM fill`);
    await client.query(`INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count)
      SELECT 84532, vault, bot, at / 60000, 5000000, 1 FROM fill`);
    await client.query(spendBucketsFromSpend);
    await client.query("ANALYZE");
    await client.end();
    clock.t += rows * stepMs;
  } else {
    for (let i = 0; i < rows; i++, clock.t += stepMs) await cycle(ledger, i);
  }
  const bench: Bench = { ledger, dir: "", rows, next: rows, clock, samples: [] };
  await measure(bench, 200); // warm up
  bench.samples = [];
  return bench;
}

let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
try {
  server = await startPostgres({ fsync: true });
} catch (error) {
  console.log(`PostgreSQL store: skipped (${(error as Error).message})`);
}
if (server) {
  try {
    const pgRows = Number(process.env.LEDGER_BENCH_PG_ROWS ?? largeRows);
    const pgSmall = await pgSetup(await server.newDatabase(), 1_000, false);
    const pgFill = performance.now();
    const pgLarge = await pgSetup(await server.newDatabase(), pgRows, true);
    console.log(`PostgreSQL: filled ${pgRows} requests in bulk by SQL in ${((performance.now() - pgFill) / 1000).toFixed(0)} s`);
    for (let done = 0; done < measured; done += 100) {
      await measure(pgSmall, 100);
      await measure(pgLarge, 100);
    }
    console.log(line("PostgreSQL 1k rows:  ", pgSmall));
    console.log(line(`PostgreSQL ${pgRows} rows:`, pgLarge));
    console.log(targetLine(`PostgreSQL store p99 ratio ${pgRows}/1k`, summary(pgLarge).p99 / summary(pgSmall).p99, { op: "<=", value: 1.5 }));
    await pgSmall.ledger.close();
    await pgLarge.ledger.close();
  } catch (error) {
    console.log(`PostgreSQL store: failed (${(error as Error).stack})`);
  } finally {
    await server.stop();
  }
}
