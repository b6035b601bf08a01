// The floor: what the parts of a relayed payment that no design can skip cost in CPU on this machine,
// each measured alone with the leanest tool Node offers, summed. It answers "how far down can relay go
// on Node with a durable ledger?", and sets relay's CPU goal on this machine (support/floor-goals.ts):
// at most 1.5 × this floor with relay's own ledger in place of the minimal record.
//
// Per payment, whatever the design, a relayer must:
//   1. take one HTTP request and answer it (node:http with keep-alive, no framework: JSON.parse of a
//      real payment body, JSON.stringify of the answer; the client is another process, not counted);
//   2. hash the EIP-712 intent and recover its signer (keccak and secp256k1, both native);
//   3. record the request durably before signing and settle it after (node:sqlite in WAL: one INSERT
//      and one UPDATE of a row with the real schema's columns, a batch of BATCH per transaction, the
//      durable commit's fsync shared by the batch);
//   4. simulate it on the node (an eth_call in a JSON-RPC batch over keep-alive HTTP, undici's Pool,
//      no fetch), and share one broadcast, one receipt read and one transaction signature with its batch.
// Everything a feature adds (policy reads, idempotency, spend windows, rate limits, logs, metrics)
// comes on top.
//
// Then the same question for latency: what relaying must add to a lone payment's time over the same
// payment sent straight to the node, which sets relay's latency goal: at most this + 1 ms. The lean relayer
// (support/lean-relayer.ts) does only the steps no design may skip (recover the signer, simulate,
// record durably, sign, send by the node's synchronous send), on a fresh anvil with the suite
// deployed by `relay deploy`; it and direct payments take turns, one at a time, as in the relayer
// bench, and it prints the p50 of each of its steps.
// Run: npm run bench:floor
import { execFileSync, fork } from "node:child_process";
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import Fastify from "fastify";
import { Pool } from "undici";
import { encodeFunctionData, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { hashIntentBytes } from "../src/eip712/hash.ts";
import { recoverSigner } from "../src/eip712/recover.ts";
import { keccak256 } from "../src/crypto/keccak.ts";
import { intentTypes, type PaymentIntent, type VaultDomain } from "../packages/client/src/intent-types.ts";
import { startAnvil } from "../test/support/anvil.ts";
import { goalsFrom, recordFloor } from "./support/floor-goals.ts";
import { relayDeploy } from "./support/relay-process.ts";
import { startLeanRelayer, leanBody, type LeanRelayer, type LeanStep } from "./support/lean-relayer.ts";
import { clientsFor } from "../src/chain/clients.ts";
import { createSender } from "../src/chain/sender.ts";
import { devKeyPair } from "../src/devnet/accounts.ts";
import { transactionSigner } from "../src/crypto/sign-transaction.ts";
import { paymentIntents } from "./support/intents.ts";
import { nodeRpc } from "./support/node-rpc.ts";
import { readArtifact } from "../src/chain/artifacts.ts";

const N = Number(process.env.FLOOR_PAYMENTS ?? 20_000);
const BATCH = Number(process.env.FLOOR_BATCH ?? 16);
const IN_FLIGHT = 50;
const LATENCY_SAMPLES = Number(process.env.FLOOR_LATENCY_SAMPLES ?? 200);
const LATENCY_WARM_UP = 30;
// The same native secp256k1 build the relayer signs its transactions with (src/crypto/sign-transaction.ts).
const secp256k1 = createRequire(import.meta.url)("secp256k1/bindings.js") as {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
};

/** CPU of this process (all threads) in µs while `work` runs, divided by `count`. */
async function cpuPer(count: number, work: () => Promise<void> | void): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

// A real signed payment, as a bot sends it.
const domain: VaultDomain = { name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: "0x1111111111111111111111111111111111111111" };
const account = privateKeyToAccount(`0x${"59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"}`);
const intent: PaymentIntent = {
  bot: account.address,
  to: "0x0000000000000000000000000000000000001234",
  token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  amount: 1_250_000n,
  deadline: 1_900_000_000n,
  ref: `0x${"ab".repeat(32)}`,
};
const signature = await account.signTypedData({ domain, types: { PaymentIntent: intentTypes.PaymentIntent }, primaryType: "PaymentIntent", message: intent });
const body = JSON.stringify({
  chainId: domain.chainId,
  vault: domain.verifyingContract,
  intent: { ...intent, amount: intent.amount.toString(), deadline: intent.deadline.toString() },
  signature,
  metadata: { memo: "invoice 2026-11-0042" },
});

// 1. HTTP: this process serves, a child process sends N requests, IN_FLIGHT at a time. Served by
// node:http alone (the floor) and, for comparison, by fastify, which relay serves with.
const answerOf = (text: string) => {
  const parsed = JSON.parse(text) as { intent: { ref: string } };
  return JSON.stringify({ id: "req_abcdefghijklmnopqrstuvwx", status: "approved", txHash: parsed.intent.ref });
};

async function plainServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = answerOf(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function fastifyServer(): Promise<{ port: number; close(): Promise<void> }> {
  const app = Fastify({ keepAliveTimeout: 60_000 });
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, text, done) => done(null, text));
  app.post("/v1/payments", async (req, reply) => reply.type("application/json").send(answerOf(req.body as string)));
  await app.listen({ host: "127.0.0.1", port: 0 });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

async function httpCost(start: () => Promise<{ port: number; close(): Promise<void> }>): Promise<number> {
  const server = await start();
  const url = `http://127.0.0.1:${server.port}/v1/payments`;
  const client = fork(fileURLToPath(new URL("./support/floor-client.ts", import.meta.url)), [url, String(N), String(IN_FLIGHT)], {
    execArgv: ["--disable-warning=ExperimentalWarning"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, FLOOR_BODY: body },
  });
  const exited = new Promise<number | null>((resolve) => client.once("exit", resolve));
  await new Promise<void>((resolve) => client.once("message", () => resolve())); // warmed up
  const perRequest = await cpuPer(N, () => new Promise<void>((resolve, reject) => {
    client.once("message", () => resolve());
    void exited.then((code) => reject(new Error(`floor client exited ${code} before finishing`)));
    client.send("go");
  }));
  if ((await exited) !== 0) throw new Error("floor client failed");
  await server.close();
  return perRequest;
}

// 2. The intent's digest and its signer.
async function signatureFloor(): Promise<number> {
  const check = () => {
    if (recoverSigner(hashIntentBytes("payment", domain, intent), signature) !== account.address) throw new Error("signer mismatch");
  };
  for (let i = 0; i < 1000; i++) check();
  return cpuPer(N, () => { for (let i = 0; i < N; i++) check(); });
}

// 3. One durable record and one settling update per payment, BATCH payments per transaction.
async function ledgerFloor(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), "relay-floor-"));
  try {
    const db = new DatabaseSync(path.join(dir, "floor.sqlite"));
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec(`CREATE TABLE requests (id TEXT PRIMARY KEY, kind TEXT NOT NULL, chain_id INTEGER NOT NULL, vault TEXT NOT NULL,
      bot TEXT NOT NULL, intent_hash TEXT NOT NULL, idempotency_key TEXT NOT NULL, fingerprint TEXT NOT NULL,
      status TEXT NOT NULL, usd_value TEXT NOT NULL, body TEXT NOT NULL, tx_hash TEXT, created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL, deadline TEXT NOT NULL)`);
    // The one index a relayer cannot do without: replay protection looks requests up by intent.
    db.exec("CREATE INDEX requests_intent ON requests (chain_id, vault, intent_hash)");
    const insert = db.prepare(`INSERT INTO requests VALUES (?, 'payment', 84532, ?, ?, ?, ?, ?, 'submitting', '1250000', ?, NULL, ?, ?, '1900000000')`);
    const settle = db.prepare("UPDATE requests SET status = 'approved', tx_hash = ?, updated_at = ? WHERE id = ?");
    let n = 0;
    const round = (count: number) => {
      for (let done = 0; done < count; done += BATCH) {
        const ids: string[] = [];
        db.exec("BEGIN IMMEDIATE");
        for (let i = 0; i < BATCH; i++) {
          const id = `req_${(n++).toString(36).padStart(24, "0")}`;
          ids.push(id);
          const hash = `0x${n.toString(16).padStart(64, "0")}`;
          insert.run(id, domain.verifyingContract, account.address, hash, `key-${n}`, hash, body, Date.now(), Date.now());
        }
        db.exec("COMMIT"); // durable: fsync of the log, shared by the batch
        db.exec("BEGIN IMMEDIATE");
        for (const id of ids) settle.run(`0x${"cd".repeat(32)}`, Date.now(), id);
        db.exec("COMMIT");
      }
    };
    round(2000);
    const per = await cpuPer(N, () => round(N));
    db.close();
    return per;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// 4. The node: each payment simulated (eth_calls sent BATCH to one JSON-RPC batch, as the relayer
// coalesces reads; a lone eth_call is printed for comparison), and per batch one broadcast, one
// receipt read and one transaction signature.
async function nodeFloor(): Promise<{ lone: number; batched: number; perBatch: number }> {
  const anvil = await startAnvil();
  const pool = new Pool(anvil.url, { connections: IN_FLIGHT, pipelining: 1 });
  let id = 0;
  const post = async (payload: unknown): Promise<unknown> => {
    const { body: res } = await pool.request({ path: "/", method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) });
    return JSON.parse(await res.text());
  };
  const one = (method: string, params: unknown[]) => ({ jsonrpc: "2.0", id: ++id, method, params });
  const check = (reply: { error?: unknown }) => {
    if (reply.error) throw new Error(JSON.stringify(reply.error));
  };
  // An executePayment-sized call (4 + 8×32 bytes + a 65-byte signature) against the chain.
  const data = `0x${"a1b2c3d4"}${"00".repeat(8 * 32 + 96)}`;
  const call = () => one("eth_call", [{ to: domain.verifyingContract, data }, "latest"]);
  const lone = async () => check((await post(call())) as { error?: unknown });
  const batch = async () => {
    for (const reply of (await post(Array.from({ length: BATCH }, call))) as { error?: unknown }[]) check(reply);
  };
  const many = async (count: number, op: () => Promise<unknown>) => {
    let next = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (next++ < count) await op(); }));
  };
  try {
    await many(2000, lone);
    const perLone = await cpuPer(N, () => many(N, lone));
    const batches = Math.ceil(N / BATCH);
    await many(200, batch);
    const perBatchedCall = await cpuPer(batches * BATCH, () => many(batches, batch));
    // Per batch: the broadcast and the receipt read (a round trip each) and a transaction signature.
    const receipt = async () => check((await post(one("eth_getTransactionReceipt", [`0x${"ee".repeat(32)}`]))) as { error?: unknown });
    const roundTrip = await cpuPer(batches, () => many(batches, receipt));
    const digest = keccak256(Buffer.from("a transaction"));
    const key = Buffer.from("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "hex");
    const sign = await cpuPer(batches, () => { for (let i = 0; i < batches; i++) secp256k1.ecdsaSign(digest, key); });
    return { lone: perLone, batched: perBatchedCall, perBatch: 2 * roundTrip + sign };
  } finally {
    await pool.close();
    await anvil.stop();
  }
}

// 5. Latency: the lean relayer (support/lean-relayer.ts) against the same payment sent straight to
// the node, one at a time and alternating, on a fresh anvil with the suite deployed.
async function latencyFloor(): Promise<{ direct: number; relayed: number; steps: Record<LeanStep, number> }> {
  const anvil = await startAnvil();
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-floor-suite-"));
  const node = nodeRpc(anvil.url, 2);
  let lean: LeanRelayer | undefined;
  try {
    const manifest = relayDeploy(anvil.url, stateDir);
    const clients = clientsFor(anvil.url, manifest.chainId);
    const vault = manifest.contracts.vault as Address;
    // The direct payments go from a second authorized relayer key, so that the two never share nonces.
    const direct = devKeyPair(6);
    await createSender(clients, manifest.accounts.deployer!.privateKey as Hex).call(manifest.contracts.registry as Address, "ServiceRegistry", "addRelayer", [direct.address]);
    const estimate = await clients.publicClient.estimateFeesPerGas();
    const fees = { maxFeePerGas: estimate.maxFeePerGas! * 4n, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas! };
    const relayerKey = manifest.accounts.relayer!;
    lean = await startLeanRelayer({
      node, chainId: manifest.chainId, domain: manifest.domain as VaultDomain, vault,
      bot: manifest.accounts.bots.default.address as Address,
      relayer: { address: relayerKey.address as Address, privateKey: relayerKey.privateKey as Hex }, fees,
    });
    const signedIntent = paymentIntents(manifest);
    const signDirect = transactionSigner(direct.privateKey);
    let directNonce = Number(await node.call("eth_getTransactionCount", [direct.address, "pending"]));
    const vaultAbi = readArtifact("ServiceVault").abi;
    const count = LATENCY_SAMPLES + LATENCY_WARM_UP;
    const raws: Hex[] = [];
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) {
      const a = await signedIntent();
      const data = encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [a.intent, a.signature] as never });
      raws.push(signDirect({ type: "eip1559", chainId: manifest.chainId, to: vault, data, gas: 250_000n, nonce: directNonce++, ...fees }));
      const b = await signedIntent();
      bodies.push(leanBody(b.intent, b.signature));
    }
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const target = new URL(lean.url);
    const relay = (text: string) => new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        { agent, host: target.hostname, port: target.port, path: "/", method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`lean relayer answered ${res.statusCode} ${Buffer.concat(chunks).toString("utf8")}`))));
        },
      );
      req.on("error", reject);
      req.end(text);
    });
    const directMs: number[] = [];
    const relayedMs: number[] = [];
    const stepMs = new Map<LeanStep, number[]>();
    for (let i = 0; i < count; i++) {
      let t = performance.now();
      const receipt = (await node.call("eth_sendRawTransactionSync", [raws[i]])) as { status: string };
      if (receipt.status !== "0x1") throw new Error("a direct payment reverted");
      const directTime = performance.now() - t;
      t = performance.now();
      await relay(bodies[i]!);
      const relayedTime = performance.now() - t;
      if (i < LATENCY_WARM_UP) continue;
      directMs.push(directTime);
      relayedMs.push(relayedTime);
      for (const [step, ms] of Object.entries(lean.lastSteps()) as [LeanStep, number][]) (stepMs.get(step) ?? stepMs.set(step, []).get(step)!).push(ms);
    }
    agent.destroy();
    return { direct: median(directMs), relayed: median(relayedMs), steps: Object.fromEntries([...stepMs].map(([step, ms]) => [step, median(ms)])) as Record<LeanStep, number> };
  } finally {
    await lean?.close();
    await node.close();
    await anvil.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/**
 * What relay's own ledger costs per fast-path payment: bench/ledger-fast-path.ts, in a process of its
 * own (its CPU is that process's), replaying every statement a payment runs (the idempotency claim
 * and its completion, the replay lookups, the request's row and its state changes, the spend
 * reservation, the submission) in batches of BATCH.
 */
function relayLedger(): number {
  const script = fileURLToPath(new URL("./ledger-fast-path.ts", import.meta.url));
  const out = execFileSync(process.execPath, ["--disable-warning=ExperimentalWarning", script, "6000", String(BATCH)], { encoding: "utf8" });
  const match = /: (\d+) µs CPU per payment/.exec(out);
  if (!match) throw new Error(`bench/ledger-fast-path.ts printed no figure: ${out.trim()}`);
  return Number(match[1]);
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const http = await httpCost(plainServer);
const viaFastify = await httpCost(fastifyServer);
const sig = await signatureFloor();
const ledger = await ledgerFloor();
const node = await nodeFloor();
const shared = node.perBatch / BATCH;
const total = http + sig + ledger + node.batched + shared;
const row = (label: string, us: number) => console.log(`  ${us.toFixed(1).padStart(7)} µs  ${label}`);
console.log(`the floor of a relayed payment on this machine (Node ${process.version}, ${N} payments, batches of ${BATCH}):`);
row("HTTP request and answer (node:http, keep-alive, JSON in and out)", http);
console.log(`             (served by fastify instead: ${viaFastify.toFixed(1)} µs)`);
row("EIP-712 digest and signer recovery (native keccak, secp256k1)", sig);
row("durable record + settle (node:sqlite WAL, 1 insert + 1 update, fsync per batch)", ledger);
row(`simulation: one eth_call in a JSON-RPC batch of ${BATCH} (undici Pool, keep-alive)`, node.batched);
console.log(`             (a lone eth_call per payment instead: ${node.lone.toFixed(1)} µs)`);
row(`broadcast + receipt read + transaction signature, shared by ${BATCH}`, shared);
row("floor of relay's CPU per payment (the sum)", total);
// The floor with relay's ledger in place of the minimal record: what relay's design costs before
// its policy read, rate limits, framework, logs and metrics.
const ledgerOfRelay = relayLedger();
row(`relay's own ledger: every statement of a fast-path payment, batches of ${BATCH} (bench/ledger-fast-path.ts)`, ledgerOfRelay);
const withRelayLedger = total - ledger + ledgerOfRelay;
row("floor with relay's ledger in place of the minimal record", withRelayLedger);

const latency = await latencyFloor();
const part = (label: string, ms: number) => console.log(`  ${ms.toFixed(3).padStart(7)} ms  ${label}`);
console.log(`\nthe floor of what relaying adds to a lone payment's latency: the lean relayer against direct (p50 of ${LATENCY_SAMPLES} each, alternating, anvil):`);
part("direct: eth_sendRawTransactionSync of a signed executePayment", latency.direct);
part("relayed by the lean relayer: HTTP in, then the steps below, then HTTP out", latency.relayed);
part("  hash the intent, recover its signer", latency.steps.recover);
part("  simulate: eth_call of executePayment from the relayer key", latency.steps.simulate);
part("  record durably: one INSERT, COMMIT with its fsync", latency.steps.record);
part("  sign the transaction", latency.steps.sign);
part("  send: eth_sendRawTransactionSync (what the direct payment does)", latency.steps.send);
part("floor of p50 relayed - direct", latency.relayed - latency.direct);

// The goals the relayer and profile benches hold relay's own figures to, recorded for them.
const floor = { cpuWithRelayLedgerUs: withRelayLedger, leanAddedP50Ms: latency.relayed - latency.direct };
recordFloor(floor);
const goals = goalsFrom(floor);
console.log(`\nrelay's goals on this machine (${goals.source}), recorded for the relayer and profile benches:`);
console.log(`  relay process CPU per fast-path payment ${goals.cpu.op} ${goals.cpu.value} µs`);
console.log(`  p50 latency relayed - direct ${goals.addedP50.op} ${goals.addedP50.value} ms on a fresh chain; the relayer and profile benches set it again from a lean relayer measured beside relay, on their chain`);
