// The leanest relayer that still does what no design may skip, for the latency floor of
// bench/floor.bench.ts: one node:http route that takes a signed payment intent and, in order,
//   1. hashes the intent and recovers its signer (the bot must be the vault's),
//   2. simulates executePayment on the node from the relayer key (eth_call; a payment the vault
//      would refuse is never sent),
//   3. records the request durably (node:sqlite in WAL, one INSERT, synchronous=FULL: the COMMIT
//      returns once the log is fsynced), so that a crash never forgets a transaction that may land,
//   4. signs the transaction with the key's next nonce and sends it by the node's synchronous send
//      (where the node has none, as the in-process chain: sends it, then reads its receipt every
//      millisecond, as relay does; that chain mines within the send, so the first read finds it),
//   5. answers with the receipt's hash.
// No policy, idempotency, spend windows, batching, rate limits or recovery: it is a yardstick, not
// a relayer. Each step's time of the last request is kept, for the breakdown the bench prints.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Address, Hex } from "viem";
import { transactionSigner } from "../../src/crypto/sign-transaction.ts";
import { hashIntentBytes } from "../../src/eip712/hash.ts";
import { recoverSigner } from "../../src/eip712/recover.ts";
import { paymentCalldata } from "../../src/relayer/chain/payment-calldata.ts";
import type { PaymentIntent, VaultDomain } from "../../packages/client/src/intent-types.ts";
import type { NodeRpc } from "./node-rpc.ts";

export interface LeanRelayerOptions {
  node: NodeRpc;
  chainId: number;
  domain: VaultDomain;
  vault: Address;
  /** The only bot whose intents it takes. */
  bot: Address;
  relayer: { address: Address; privateKey: Hex };
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  /** Whether the node answers eth_sendRawTransactionSync (default true). */
  sendSync?: boolean;
}

export interface LeanRelayer {
  url: string;
  /** The steps of the last request answered, in ms: recover, simulate, record, sign, send. */
  lastSteps(): Record<LeanStep, number>;
  close(): Promise<void>;
}

export type LeanStep = "recover" | "simulate" | "record" | "sign" | "send";

/** The body the lean relayer takes: the intent with its integers as decimal strings, and its signature. */
export function leanBody(intent: PaymentIntent, signature: Hex): string {
  return JSON.stringify({ intent: { ...intent, amount: intent.amount.toString(), deadline: intent.deadline.toString() }, signature });
}

export async function startLeanRelayer(options: LeanRelayerOptions): Promise<LeanRelayer> {
  const { node, chainId, domain, vault, bot, relayer, fees, sendSync = true } = options;
  const dir = mkdtempSync(path.join(tmpdir(), "relay-lean-"));
  const db = new DatabaseSync(path.join(dir, "lean.sqlite"));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE requests (id INTEGER PRIMARY KEY, intent_hash TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)");
  const insert = db.prepare("INSERT INTO requests (intent_hash, body, created_at) VALUES (?, ?, ?)");
  const sign = transactionSigner(relayer.privateKey);
  let nonce = Number(await node.call("eth_getTransactionCount", [relayer.address, "pending"]));
  const steps: Record<LeanStep, number> = { recover: 0, simulate: 0, record: 0, sign: 0, send: 0 };

  async function pay(text: string): Promise<string> {
    let t = performance.now();
    const lap = (step: LeanStep) => {
      const now = performance.now();
      steps[step] = now - t;
      t = now;
    };
    const { intent: raw, signature } = JSON.parse(text) as { intent: Record<string, string>; signature: Hex };
    const intent = { ...raw, amount: BigInt(raw.amount!), deadline: BigInt(raw.deadline!) } as unknown as PaymentIntent;
    const digest = hashIntentBytes("payment", domain, intent);
    if (intent.bot !== bot || recoverSigner(digest, signature) !== bot) throw new Error("not the bot's signature");
    lap("recover");
    const data = paymentCalldata(intent, signature);
    await node.call("eth_call", [{ from: relayer.address, to: vault, data }, "latest"]); // throws on a revert
    lap("simulate");
    db.exec("BEGIN IMMEDIATE");
    insert.run(`0x${digest.toString("hex")}`, text, Date.now());
    db.exec("COMMIT");
    lap("record");
    const rawTx = sign({ type: "eip1559", chainId, to: vault, data, gas: 250_000n, nonce: nonce++, ...fees });
    lap("sign");
    const receipt = sendSync
      ? ((await node.call("eth_sendRawTransactionSync", [rawTx])) as { status: string; transactionHash: Hex })
      : await sentAndMined(rawTx);
    lap("send");
    if (receipt.status !== "0x1") throw new Error("the payment reverted");
    return JSON.stringify({ status: "approved", txHash: receipt.transactionHash });
  }

  /** Sends `rawTx`, then reads its receipt every millisecond until the node has it. */
  async function sentAndMined(rawTx: Hex): Promise<{ status: string; transactionHash: Hex }> {
    const hash = await node.call("eth_sendRawTransaction", [rawTx]);
    for (;;) {
      const receipt = await node.call("eth_getTransactionReceipt", [hash]);
      if (receipt) return receipt as { status: string; transactionHash: Hex };
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      pay(Buffer.concat(chunks).toString("utf8")).then(
        (answer) => {
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
          res.end(answer);
        },
        (error: unknown) => {
          const answer = JSON.stringify({ error: String(error) });
          res.writeHead(500, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
          res.end(answer);
        },
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lastSteps: () => ({ ...steps }),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
