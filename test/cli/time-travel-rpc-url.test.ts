// Time travel on a `relay devnet` served by `relay serve --rpc-url` in another process (here: two
// in-process runs that share nothing but the chain's JSON-RPC and the state directory). The relayer
// does not see `relay time advance` pass: it learns the move from the next policy snapshot's block,
// which, read a second after it was mined, shows the chain a second short of its time; the relayer
// then asks the node for the block it would mine now, so "the limit resets tomorrow" holds to the
// second there too. The chain is read to see what moved.
// (The devnet served by `relay serve` itself: test/cli/time-travel.test.ts.)
import { afterAll, beforeAll, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { manifestPath, readManifest, type Manifest } from "../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { payAdvancePay } from "./support/day-loops.ts";

let stateDir: string;
let devnet: InProcessRun;
let serve: InProcessRun;
let manifest: Manifest;

async function relay(env: Record<string, string>, ...argv: string[]) {
  const run = runMain([...argv, "--state-dir", stateDir], env);
  const code = await run.done;
  return { code, ...run.output };
}

const usdcOf = (holder: Address) =>
  clientsFor(manifest.rpcUrl, manifest.chainId).publicClient.readContract({ address: manifest.tokens.USDC!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [holder] });

beforeAll(async () => {
  stateDir = tempDir("relay-time-rpc-url-");
  devnet = runMain(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
  await devnet.waitFor(/relay: ready/, 120_000);
  manifest = readManifest(manifestPath(stateDir));
  serve = runMain(["serve", "--rpc-url", manifest.rpcUrl, "--port", "0", "--state-dir", stateDir]);
  await serve.waitFor(/relay: ready/, 60_000);
}, 180_000);

afterAll(async () => {
  serve?.stop();
  await serve?.done;
  devnet?.stop();
  await devnet?.done;
});

it("relay serve --rpc-url: pay 6, pay 6 (refused), advance 24h, pay 6, back to back 20 times with a fresh bot each: the last payment is always approved", async () => {
  await payAdvancePay({ relay, usdcOf, vault: manifest.contracts.vault as Address, loops: 20 });
}, 240_000);
