// How soon a sender learns of its transaction's receipt on anvil, by each way it can wait: the
// node's synchronous send (eth_sendRawTransactionSync, EIP-7966), a send followed at once (or every
// millisecond) by eth_getTransactionReceipt, and a send followed by a wake-up from the relayer's
// block watcher (block-watch.ts: an `eth_subscribe newHeads` websocket) and then one receipt read.
// The kinds take turns, one transaction at a time (plain transfers, signed ahead), on a fresh anvil
// started as test/support/anvil.ts starts it (automine, no block time, --prune-history 128), after
// AGE transfers (default 0) have aged the chain. It tells the relayer bench which wait is the
// quickest honest baseline for a direct payment (bench/relayer.bench.ts), and the submitter which
// way to wait for a lone transaction's receipt (submitter.ts).
// Run: bash scripts/run.sh node bench/anvil-receipt-wait.ts (SAMPLES=200 AGE=3000 to change sizes).
import type { Hex } from "viem";
import { transactionSigner } from "../src/crypto/sign-transaction.ts";
import { devKeyPair } from "../src/devnet/accounts.ts";
import { BlockWatch } from "../src/relayer/chain/block-watch.ts";
import { startAnvil } from "../test/support/anvil.ts";
import { nodeRpc } from "./support/node-rpc.ts";

const SAMPLES = Number(process.env.SAMPLES ?? 100);
const AGE = Number(process.env.AGE ?? 0);
const WARM_UP = 20;

const anvil = await startAnvil();
const node = nodeRpc(anvil.url, 4);
const rpc = node.call;
const blocks = new BlockWatch(async () => BigInt((await rpc("eth_blockNumber", [])) as string), anvil.url);

try {
  // Transfers from dev account #7, all signed before anything is timed.
  const sign = transactionSigner(devKeyPair(7).privateKey);
  const to = devKeyPair(8).address;
  const kinds = ["sync send", "send, receipt read at once", "send, receipt read every 1 ms", "send, newHeads wake-up, receipt read"] as const;
  const raws: Hex[] = [];
  for (let nonce = 0; nonce < AGE + (WARM_UP + SAMPLES) * kinds.length; nonce++) {
    raws.push(sign({ type: "eip1559", chainId: 84532, to, value: 1n, gas: 21_000n, nonce, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n }));
  }
  let next = 0;
  for (let i = 0; i < AGE; i++) await rpc("eth_sendRawTransaction", [raws[next++]]);

  const receiptOf = async (hash: unknown, everyMs: number) => {
    while (!(await rpc("eth_getTransactionReceipt", [hash]))) if (everyMs > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
  };
  const send: Record<(typeof kinds)[number], () => Promise<unknown>> = {
    "sync send": () => rpc("eth_sendRawTransactionSync", [raws[next++]]),
    "send, receipt read at once": async () => receiptOf(await rpc("eth_sendRawTransaction", [raws[next++]]), 0),
    "send, receipt read every 1 ms": async () => receiptOf(await rpc("eth_sendRawTransaction", [raws[next++]]), 1),
    "send, newHeads wake-up, receipt read": async () => {
      const seen = blocks.latest;
      const hash = await rpc("eth_sendRawTransaction", [raws[next++]]);
      await blocks.after(seen, 1_000);
      await receiptOf(hash, 1);
    },
  };
  const times = new Map<string, number[]>(kinds.map((kind) => [kind, []]));
  for (let i = 0; i < WARM_UP + SAMPLES; i++) {
    for (const kind of kinds) {
      const started = performance.now();
      await send[kind]();
      if (i >= WARM_UP) times.get(kind)!.push(performance.now() - started);
    }
  }
  const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!.toFixed(2);
  console.log(`anvil, ${SAMPLES} transfers per kind in turns, blocks ${AGE}–${next}; the watcher ${blocks.subscribed ? "subscribed to newHeads" : "polled (no websocket)"}`);
  for (const [kind, xs] of times) console.log(`${kind.padEnd(38)} p50 ${at(xs, 0.5)} ms, p90 ${at(xs, 0.9)} ms`);
} finally {
  blocks.close();
  await node.close();
  await anvil.stop();
}
