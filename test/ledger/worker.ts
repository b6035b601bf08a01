// A worker thread with its own ledger connection, used to race another process-like writer on one file.
import { parentPort, workerData } from "node:worker_threads";
import { openLedger } from "../../src/ledger/index.ts";

interface Task {
  file: string;
  task: "reserve" | "submit";
  worker: number;
  count: number;
  vault: string;
  bot: string;
  signer: string;
  limit: bigint;
  usd?: bigint;
  /** Start barrier: every worker increments slot 0, then waits until all `workers` have arrived. */
  barrier: SharedArrayBuffer;
  workers: number;
}

const t = workerData as Task;
const ledger = openLedger(t.file, { busyTimeoutMs: 30_000 });
const arrived = new Int32Array(t.barrier);
Atomics.add(arrived, 0, 1);
Atomics.notify(arrived, 0);
for (let seen = Atomics.load(arrived, 0); seen < t.workers; seen = Atomics.load(arrived, 0)) {
  Atomics.wait(arrived, 0, seen, 1000);
}
const results: unknown[] = [];
for (let i = 0; i < t.count; i++) {
  const request = await ledger.createRequest({
    kind: "payment",
    chainId: 84532,
    vault: t.vault,
    bot: t.bot,
    intentHash: "0x" + (t.worker * 1_000_000 + i).toString(16).padStart(64, "0"),
    idempotencyKey: `w${t.worker}-${i}`,
    fingerprint: "fp",
    usdValue: t.usd ?? 0n,
    body: "{}",
    deadline: 0n,
  });
  if (t.task === "reserve") {
    const result = await ledger.reserveSpend(
      { chainId: 84532, vault: t.vault, bot: t.bot, requestId: request.id, usd: t.usd ?? 0n },
      { botLimits: [], vaultLimits: [{ amount: t.limit, maxCount: 0n, windowSeconds: 3600n }] },
    );
    results.push(result.ok);
  } else {
    for (;;) {
      const nonce = await ledger.nextNonce(84532, t.signer, 0n);
      const recorded = await ledger.recordSubmission(request.id, { signer: t.signer, nonce, txHash: "0x01", rawTx: "0x02" });
      if (recorded.ok) {
        results.push(nonce.toString());
        break;
      }
    }
  }
}
await ledger.close();
parentPort!.postMessage(results);
