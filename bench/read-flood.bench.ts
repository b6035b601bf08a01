// A legitimate bot's latency while another client address floods the relayer with open reads of the
// chain (the read flood of issue 30: 200 concurrent `GET /v1/vault/:v/value` took a payment's p50
// from ~10 ms to ~1 s). One relayer on a devnet, the relayer's own limits for clients and reads (bot
// and vault buckets opened, so that the bot's own pace is never what is measured):
//   quiet: the bot at 127.0.0.1 pays one payment at a time; p50 of the relayer's HTTP answer;
//   flood: the same, while a worker thread keeps FLOOD reads in flight from 127.0.0.2, sending the
//          next as soon as one is answered (an attacker ignores Retry-After): half of them the vault's
//          value, half a balance of a token address never asked before (no two alike, none shared).
// Target: p50 under the flood ≤ 2× the quiet p50.
// The measuring is bench/support/flood.ts, shared with bench/auth-flood.bench.ts; this file names
// only its flood.
// Run: npm run bench (all benchmarks) or `bash scripts/run.sh node bench/read-flood.bench.ts`.
import { runFloodBench } from "./support/flood.ts";

await runFloodBench({
  stateDirPrefix: "relay-bench-reads-",
  samplesVariable: "BENCH_READ_SAMPLES",
  inFlightVariable: "BENCH_READ_FLOOD",
  inFlightDefault: 200,
  name: "the read flood",
  sends: "reads",
  targetLabel: (inFlight) => `payment p50 under a ${inFlight}-read flood / quiet p50`,
  workerData: ({ relayerUrl, manifest }) => ({ base: relayerUrl, vault: manifest.contracts.vault }),
  next: `
const { randomBytes } = require("node:crypto");
const { base, vault } = workerData;
let sent = 0;
function next() {
  sent++;
  const read = sent % 2 === 0 ? "/value" : "/balance/0x" + randomBytes(20).toString("hex");
  return { url: base + "/v1/vault/" + vault + read, method: "GET" };
}`,
});
