// Memory of a real `relay serve --rpc-url` process whose ledger holds a million requests.
//   1. `relay devnet` in its own process (a fresh chain and vault).
//   2. The relayer's ledger file is filled in bulk by SQL with BENCH_RSS_ROWS (default 1,000,000)
//      recorded requests (bench/support/ledger-fill.ts: the rows a payment makes, one a minute, the
//      history ending now, spread over the devnet's vault and bot and 19 other vaults, 9 other bots).
//      Driving a million payments through HTTP and the chain would take hours on this machine.
//   3. `relay serve --rpc-url` starts on that ledger and serves BENCH_RSS_PAYMENTS (default 1,000)
//      real payments over HTTP (20 in flight, each settled on the devnet), each followed by a read
//      of its status.
//   4. Its resident memory (VmRSS from /proc/<pid>/status of the serve process itself) is printed
//      after start, every 250 payments and after the stream, beside the target (<= 300 MB), with
//      its peak (VmHWM).
// Run: npm run bench:rss, or `bash scripts/run.sh node bench/serve-rss.bench.ts`.
import { readFileSync, rmSync } from "node:fs";
import { type Address } from "viem";
import { openLedger, ledgerPath } from "../src/ledger/index.ts";
import { sqliteBulkFill } from "./support/ledger-fill.ts";
import { targetLine } from "./support/target.ts";
import { freshAddress, getPayment, mapLimited, postPaymentPolitely, signedPayment, startCrashEnv } from "../test/reliability/support/crash-env.ts";

const ROWS = Number(process.env.BENCH_RSS_ROWS ?? 1_000_000);
const PAYMENTS = Number(process.env.BENCH_RSS_PAYMENTS ?? 1000);

/** VmRSS and VmHWM of `pid` in MB (Linux /proc), what it is made of (anonymous memory: heaps and
 * buffers; file: mapped code) and its thread count. */
function memoryOf(pid: number): { rss: number; peak: number; anon: number; file: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return {
    rss: field("VmRSS") / 1024,
    peak: field("VmHWM") / 1024,
    anon: field("RssAnon") / 1024,
    file: field("RssFile") / 1024,
    threads: field("Threads"),
  };
}
const breakdown = (m: ReturnType<typeof memoryOf>) =>
  `anonymous ${m.anon.toFixed(0)} MB, file-backed ${m.file.toFixed(0)} MB, ${m.threads} threads`;

const env = await startCrashEnv("relay-rss-bench-");
try {
  const file = ledgerPath(env.stateDir);
  await openLedger(file).close(); // the schema, as the relayer makes it
  const stepMs = 60_000;
  const fillStart = performance.now();
  const hex = (letter: string, n: number) => `0x${n.toString(16).padStart(40, letter)}`;
  sqliteBulkFill(file, {
    rows: ROWS,
    chainId: env.manifest.chainId,
    start: Date.now() - ROWS * stepMs,
    stepMs,
    vaults: [env.vault.toLowerCase(), ...Array.from({ length: 19 }, (_, i) => hex("a", i + 1))],
    bots: [env.bot.address.toLowerCase(), ...Array.from({ length: 9 }, (_, i) => hex("b", i + 1))],
  });
  console.log(`ledger: ${ROWS} recorded requests written in bulk by SQL in ${((performance.now() - fillStart) / 1000).toFixed(0)} s`);

  const served = await env.serve();
  const pid = served.relay.child.pid!;
  const atStart = memoryOf(pid);
  console.log(`relay serve (pid ${pid}) after start on the filled ledger: VmRSS ${atStart.rss.toFixed(0)} MB (${breakdown(atStart)})`);
  const payees: Address[] = Array.from({ length: 64 }, () => freshAddress());
  const started = performance.now();
  let approved = 0;
  let done = 0;
  const samples: string[] = [];
  await mapLimited(Array.from({ length: PAYMENTS }, (_, i) => i), 20, async (i) => {
    const answer = await postPaymentPolitely(served.url, await signedPayment(env, payees[i % payees.length]!, 1000n));
    if (answer.body.status === "approved") approved++;
    const id = answer.body.requestId ?? answer.body.id;
    if (typeof id === "string") await getPayment(served.url, id);
    if (++done % 250 === 0) samples.push(`${done}: ${memoryOf(pid).rss.toFixed(0)}`);
  });
  const seconds = (performance.now() - started) / 1000;
  const after = memoryOf(pid);
  console.log(`VmRSS (MB) after n payments: ${samples.join(", ")}`);
  console.log(`served ${PAYMENTS} payments (${approved} approved) and as many status reads in ${seconds.toFixed(0)} s`);
  console.log(targetLine(`relay serve VmRSS, ledger of ${ROWS} requests + ${PAYMENTS} served`, after.rss, { op: "<=", value: 300 }, "MB", 0));
  console.log(`relay serve peak resident memory (VmHWM): ${after.peak.toFixed(0)} MB; after: ${breakdown(after)}`);
} finally {
  await env.stop();
  rmSync(env.stateDir, { recursive: true, force: true });
}
