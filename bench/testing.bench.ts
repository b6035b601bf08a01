// relay/testing's snapshot() and revert(id) as a bot's test suite calls them: one `relay serve` started
// by startRelay() (a devnet and relayer in their own process), a baseline snapshot, then ROUNDS rounds
// of what a test file does: revert to the baseline (the fixtures' beforeEach), make a payment (the
// test), and take a snapshot of the state it left. Each call is timed from this process (the JSON-RPC
// round trip, the relayer's drain and restart, the chains' snapshot or revert, the ledger copy), and
// its p50 and p95 are printed beside the target of 50 ms each.
// Run: `bash scripts/run.sh node --disable-warning=ExperimentalWarning bench/testing.bench.ts`.
import { createPublicClient, http } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { RelayClient, defaultDeadline, randomRef, readVaultDomain, signPaymentRequest } from "../packages/client/src/index.ts";
import { startRelay } from "relay/testing";
import { targetLine } from "./support/target.ts";

const ROUNDS = Number(process.env.BENCH_TESTING_ROUNDS ?? 30);
const TARGET = { op: "<=", value: 50 } as const;

const relay = await startRelay();
try {
  const { manifest } = relay;
  const chain = createPublicClient({ transport: http(relay.rpcUrl) });
  const client = new RelayClient({ baseUrl: relay.relayerUrl, chainId: manifest.chainId });
  const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey);
  const domain = await readVaultDomain(chain, manifest.contracts.vault);
  const pay = async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const intent = { bot: bot.address, to, token: manifest.tokens.USDC!.address, amount: 1_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const answer = await client.submitPayment(await signPaymentRequest(bot, domain, intent));
    if (answer.status !== "approved") throw new Error(`a payment ended ${answer.status}`);
  };
  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const start = performance.now();
    const result = await work();
    return [result, performance.now() - start];
  };

  // Warm up: the first payment, snapshot and revert pay for code loaded once.
  await pay();
  const baseline = await relay.snapshot();
  await relay.revert(baseline);

  const snapshots: number[] = [];
  const reverts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    reverts.push((await timed(() => relay.revert(baseline)))[1]);
    await pay();
    snapshots.push((await timed(() => relay.snapshot()))[1]);
  }
  const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  console.log(`${ROUNDS} rounds of revert to the baseline, one payment, a snapshot (relay serve in its own process)`);
  console.log(targetLine("snapshot() p50", quantile(snapshots, 0.5), TARGET, "ms", 1));
  console.log(targetLine("snapshot() p95", quantile(snapshots, 0.95), TARGET, "ms", 1));
  console.log(targetLine("revert(id) p50", quantile(reverts, 0.5), TARGET, "ms", 1));
  console.log(targetLine("revert(id) p95", quantile(reverts, 0.95), TARGET, "ms", 1));
} finally {
  await relay.stop();
}
