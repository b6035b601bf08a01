// The ledger's share of a fast-path payment, without a chain or HTTP: replays the store calls one
// payment makes (relayer.ts, submitter.ts, settle.ts) on a SQLite ledger with background
// checkpoints, as `relay serve` opens it, and prints the process's CPU per payment (all threads,
// from process.cpuUsage). Payments come in rounds of BATCH, as the submitter batches them: a
// round's payments arrive together (each key looked up, then claimed and recorded, from its own
// turn of the event loop, as HTTP requests are); then the batch's transaction is recorded and its requests settled
// straight from `submitting`, as a transaction mined within a second is (their settle transactions
// started together, as executeAndSettle's are when one receipt resolves them all).
// Run: node bench/ledger-fast-path.ts [payments] [batch]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { openLedger } from "../src/ledger/index.ts";
import { dayAndHourLimits as limits } from "./support/spend-limits.ts";
import { newRequestId } from "../src/ledger/requests.ts";
import type { StoreOps } from "../src/relayer/store.ts";

const payments = Number(process.argv[2] ?? 4000);
const batch = Number(process.argv[3] ?? 8);
const vault = "0x" + "a1".repeat(20);
const bot = "0x" + "b2".repeat(20);
const signer = "0x" + "c3".repeat(20);
const relaxed = { durable: false } as const;
/** A stored request body of a payment's size (the request, counterparty, selector, outflows). */
const body = JSON.stringify({ kind: "payment", chainId: 31337, vaultAddress: vault, intent: { bot, to: "0x" + "d4".repeat(20), token: "0x" + "e5".repeat(20), amount: "1000000", nonce: "123456789", deadline: "1900000000" }, signature: "0x" + "f6".repeat(65), idempotencyKey: randomUUID(), metadata: { memo: "x".repeat(200) }, counterparty: "0x" + "d4".repeat(20), outflows: [{ token: "0x" + "e5".repeat(20), amount: "1000000" }] });

const dir = mkdtempSync(path.join(tmpdir(), "relay-ledger-fast-path-"));
const ledger = openLedger(path.join(dir, "ledger.sqlite"), { backgroundCheckpoints: true });
let nonce = 0n;

/**
 * A payment's statements up to its record (relayer.ts submit and #record): its key looked up (a
 * read), then, in the record's one transaction, the key claimed, the intent's replay check, the
 * request and its spend reserved. (The vault's on-chain buckets are checked against the ledger's
 * windows only when the snapshot's block is more than a second old, spend-windows.ts
 * checkBucketsPending: not under this load, where blocks follow each other, so not here.)
 */
async function lookUpAndRecord(): Promise<{ id: string; key: string }> {
  const id = newRequestId();
  const key = randomUUID();
  const intentHash = "0x" + createHash("sha256").update(id).digest("hex");
  if ((await ledger.lookupIdempotency("payment", key, "fp" + key)).outcome !== "free") throw new Error("key taken");
  await ledger.transaction(async (tx: StoreOps) => {
    if ((await tx.claimIdempotency("payment", key, "fp" + key, id)).outcome !== "new") throw new Error("key taken");
    if (await tx.replayOf(31337, vault, intentHash)) throw new Error("replay");
    await tx.createRequest({ id, kind: "payment", chainId: 31337, vault, bot, intentHash, idempotencyKey: key, fingerprint: "fp" + key, usdValue: 1_000_000n, body, deadline: 1_900_000_000n });
    await tx.reserveSpend({ chainId: 31337, vault, bot, requestId: id, usd: 1_000_000n }, limits);
  }, relaxed);
  return { id, key };
}

async function round(): Promise<void> {
  // The batch's payments arrive together, each in its own turn of the event loop (as HTTP requests do).
  const recorded = await Promise.all(Array.from({ length: batch }, () => new Promise((resolve) => setImmediate(resolve)).then(lookUpAndRecord)));
  const ids = recorded.map((r) => r.id);
  const n = await ledger.nextNonce(31337, signer, nonce);
  const rawTx = "0x02" + randomBytes(200 + 120 * batch).toString("hex");
  const txHash = "0x" + createHash("sha256").update(rawTx).digest("hex");
  const result = await ledger.transaction((tx) => tx.recordBatchSubmission(ids, { signer, nonce: n, txHash, rawTx, chainPendingNonce: nonce }), relaxed);
  if (!result.ok) throw new Error(result.code);
  nonce = n + 1n;
  await ledger.sync();
  await Promise.all(
    recorded.map(({ id, key }) =>
      ledger.transaction(async (tx) => {
        const text = JSON.stringify({ requestId: id, status: "approved", txHash, simulationResult: { success: true, gasEstimate: "91234" } });
        if (!(await tx.move(id, ["submitting", "submitted"], "approved", { txHash, response: text }))) throw new Error("not settled");
        await tx.completeIdempotency("payment", key, text);
      }, relaxed),
    ),
  );
}

try {
  const warm = Math.max(1, Math.round(500 / batch));
  for (let i = 0; i < warm; i++) await round();
  const rounds = Math.round(payments / batch);
  const before = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < rounds; i++) await round();
  const cpu = process.cpuUsage(before);
  const elapsed = performance.now() - started;
  const per = (cpu.user + cpu.system) / (rounds * batch);
  console.log(`ledger fast path, batches of ${batch}: ${per.toFixed(0)} µs CPU per payment (user ${(cpu.user / (rounds * batch)).toFixed(0)}, system ${(cpu.system / (rounds * batch)).toFixed(0)}), ${((elapsed * 1000) / (rounds * batch)).toFixed(0)} µs wall`);
} finally {
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
}
