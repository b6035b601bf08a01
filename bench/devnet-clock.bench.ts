// What following a devnet's time exactly costs (src/relayer/clock.ts). The relayer's sweep reads each
// devnet's pending block once a second instead of its latest block (the pending block's timestamp is
// the chain's time to the second, the latest block's may be a second old), and `relay serve` reads it
// once more after each time-travel call through its devnet's RPC server, before the caller hears back.
// On a devnet with the suite deployed: the p50 of a pending-block read beside a latest-block read, in
// process (relay serve's own devnet) and over JSON-RPC (relay serve --rpc-url on a relay devnet), and
// what the follow adds to an evm_increaseTime call through the RPC server.
// Run: `bash scripts/run.sh node --disable-warning=ExperimentalWarning bench/devnet-clock.bench.ts`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { clientsFor } from "../src/chain/clients.ts";
import { startDevnet } from "../src/devnet/start.ts";
import { chainClocks } from "../src/relayer/clock.ts";
import { targetLine } from "./support/target.ts";

const READS = Number(process.env.BENCH_DEVNET_CLOCK_READS ?? 1_000);
const CHAIN_ID = 31337;

const stateDir = mkdtempSync(path.join(tmpdir(), "relay-bench-clock-"));
const devnet = await startDevnet({ chainId: CHAIN_ID, domainName: "ServiceVault", rpcPort: 0, stateDir });
try {
  const p50 = async (work: () => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < 50; i++) await work(); // warm up
    const times: number[] = [];
    for (let i = 0; i < READS; i++) {
      const start = performance.now();
      await work();
      times.push(performance.now() - start);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  };
  const inProcess = clientsFor(devnet.chain.provider, CHAIN_ID).publicClient;
  const overHttp = clientsFor(devnet.rpc.url, CHAIN_ID).publicClient;
  console.log(`${READS} reads each, a devnet with the suite deployed`);
  for (const [where, client, target] of [["in process", inProcess, 0.2], ["over JSON-RPC", overHttp, 1]] as const) {
    const latest = await p50(() => client.getBlock({ blockTag: "latest" }));
    const pending = await p50(() => client.getBlock({ blockTag: "pending" }));
    console.log(`latest-block read ${where} p50: ${latest.toFixed(3)} ms (the sweep's read before)`);
    console.log(targetLine(`pending-block read ${where} p50`, pending, { op: "<=", value: target }, "ms", 3));
  }

  // evm_increaseTime(1) through the RPC server, without and then with the follow relay serve hooks in.
  const increase = () => overHttp.request({ method: "evm_increaseTime", params: [1] } as never);
  const bare = await p50(increase);
  const clock = chainClocks(new Set([CHAIN_ID])).of(CHAIN_ID);
  devnet.rpc.setAfterAnswer(() => clock.follow(async () => (await inProcess.getBlock({ blockTag: "pending" })).timestamp));
  const followed = await p50(increase);
  console.log(`evm_increaseTime through the RPC server p50: ${bare.toFixed(3)} ms bare, ${followed.toFixed(3)} ms with the follow`);
  console.log(targetLine("what the follow adds to a time-travel call, p50", followed - bare, { op: "<=", value: 0.5 }, "ms", 3));
} finally {
  await devnet.close();
  rmSync(stateDir, { recursive: true, force: true });
}
