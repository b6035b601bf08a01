// A legitimate bot's latency while another client address floods the relayer with bad signatures
// (issue 12, item 8: "under a flood of bad signatures a legitimate bot's p50 stays within 2× of its
// quiet p50"). One relayer on a devnet, the relayer's own limits for clients and unauthenticated
// work (bot and vault buckets opened, so that the bot's own pace is never what is measured):
//   quiet: the bot at 127.0.0.1 pays one payment at a time; p50 of the relayer's HTTP answer;
//   flood: the same, while a worker thread keeps FLOOD payments with bad signatures in flight from
//          127.0.0.2, sending the next as soon as one is answered (an attacker ignores Retry-After).
// The measuring is bench/support/flood.ts, shared with bench/read-flood.bench.ts; this file names
// only its flood: one of the bot's payments signed by a stranger's key, resent with a fresh
// idempotency key each time, so that each is a new request.
// Run: npm run bench (all benchmarks) or `bash scripts/run.sh node bench/auth-flood.bench.ts`.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { runFloodBench } from "./support/flood.ts";

await runFloodBench({
  stateDirPrefix: "relay-bench-auth-",
  samplesVariable: "BENCH_AUTH_SAMPLES",
  inFlightVariable: "BENCH_AUTH_FLOOD",
  inFlightDefault: 300,
  name: "the flood",
  sends: "bad-signature payments",
  targetLabel: () => "p50 under flood / quiet p50",
  workerData: async ({ paymentsUrl, payment }) => ({ url: paymentsUrl, body: await payment(privateKeyToAccount(generatePrivateKey())) }),
  next: `
const { randomUUID } = require("node:crypto");
const template = JSON.parse(workerData.body);
function next() {
  const body = JSON.stringify({ ...template, idempotencyKey: randomUUID() });
  return { url: workerData.url, method: "POST", headers: { "content-type": "application/json" }, body };
}`,
});
