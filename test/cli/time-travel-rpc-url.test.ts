// Time travel on a `relay devnet` served by `relay serve --rpc-url` in another process (here: two
// in-process runs that share nothing but the chain's JSON-RPC and the state directory). The relayer
// does not see `relay time advance` pass: it learns the move from the next policy snapshot's block,
// which, read a second after it was mined, shows the chain a second short of its time; the relayer
// then asks the node for the block it would mine now, so "the limit resets tomorrow" holds to the
// second there too. The chain is read to see what moved.
// (The devnet served by `relay serve` itself: test/cli/time-travel.test.ts.)
import { afterAll, beforeAll, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { manifestPath, readManifest, type Manifest } from "../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

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
  const vault = manifest.contracts.vault as Address;
  for (let loop = 0; loop < 20; loop++) {
    const botKey = generatePrivateKey();
    const payee = privateKeyToAddress(generatePrivateKey());
    expect((await relay({}, "owner", "bot", "add", privateKeyToAddress(botKey), "--daily-limit", "10")).code, `loop ${loop}`).toBe(0);
    const pay = () => relay({ RELAY_BOT_KEY: botKey }, "pay", "--to", payee, "--amount", "6", "--token", "USDC", "--json");

    const first = await pay();
    expect(first.code, `loop ${loop}: ${first.stderr}`).toBe(0);
    const vaultBefore = await usdcOf(vault);
    const refused = await pay();
    expect(refused.code, `loop ${loop}`).toBe(3);
    expect(refused.stderr).toMatch(/EXCEEDS_DAILY_LIMIT/);
    expect(await usdcOf(vault)).toBe(vaultBefore); // the refused payment moved nothing
    expect((await relay({}, "time", "advance", "24h")).code, `loop ${loop}`).toBe(0);
    const again = await pay();
    expect(again.stderr, `loop ${loop}`).toBe("");
    expect(again.code, `loop ${loop}`).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "approved" });
    expect(await usdcOf(payee), `loop ${loop}`).toBe(12_000_000n);
    expect(await usdcOf(vault)).toBe(vaultBefore - 6_000_000n);
  }
}, 240_000);
