// One `relay serve` process with two devnet chains (Base Sepolia and Arbitrum Sepolia): a manifest
// per chain, payments executing on the chain they were signed for, a payment replayed onto the
// other chain refused, `relay pay --chain-id` through the CLI, the reads' `?chainId=` rule, and
// GET /v1/chains (with `relay chains`) listing both.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { manifestSchema } from "../../src/devnet/manifest-schema.ts";
import { defaultDeadline, randomRef, readVaultDomain, RelayApiError, RelayClient, signPaymentRequest } from "../../packages/client/src/index.ts";
import { runMain, spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const BASE_SEPOLIA = 84532;
const ARBITRUM_SEPOLIA = 421614;
const RECIPIENT = "0x00000000000000000000000000000000000000c2" as Address;

const stateDir = tempDir("relay-two-chains-");
const readJson = (file: string) => manifestSchema.parse(JSON.parse(readFileSync(path.join(stateDir, file), "utf8")));
let relay: SpawnedRelay;
const manifests = new Map<number, Manifest>();
let client: RelayClient;

beforeAll(async () => {
  relay = spawnRelay(["serve", "--chain-id", String(BASE_SEPOLIA), "--chain-id", String(ARBITRUM_SEPOLIA), "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
  await relay.waitFor(/relay: ready/, 240_000);
  for (const id of [BASE_SEPOLIA, ARBITRUM_SEPOLIA]) manifests.set(id, readJson(`devnet-${id}.json`));
  client = new RelayClient({ baseUrl: manifests.get(BASE_SEPOLIA)!.relayerUrl! });
}, 300_000);
afterAll(async () => {
  if (relay.child.exitCode === null) {
    relay.child.kill("SIGTERM");
    await relay.exited;
  }
});

const manifestOf = (chainId: number) => manifests.get(chainId)!;

function usdcBalance(chainId: number, holder: Address): Promise<bigint> {
  const manifest = manifestOf(chainId);
  return clientsFor(manifest.rpcUrl, chainId).publicClient.readContract({
    address: manifest.tokens.USDC!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [holder],
  });
}

/** A payment of `amount` USDC base units by the default bot, signed for `chainId`'s vault. */
async function signedPayment(chainId: number, amount: bigint) {
  const manifest = manifestOf(chainId);
  const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey as `0x${string}`);
  const domain = await readVaultDomain(clientsFor(manifest.rpcUrl, chainId).publicClient, manifest.contracts.vault as Address);
  return signPaymentRequest(bot, domain, {
    bot: bot.address, to: RECIPIENT, token: manifest.tokens.USDC!.address as Address, amount, deadline: defaultDeadline(), ref: randomRef(),
  });
}

describe("relay serve --chain-id 84532 --chain-id 421614", () => {
  it("writes devnet.json for the first chain as with one chain, and devnet-<chainId>.json for each", () => {
    const primary = readJson("devnet.json");
    expect(primary).toEqual(manifestOf(BASE_SEPOLIA));
    const [base, arbitrum] = [manifestOf(BASE_SEPOLIA), manifestOf(ARBITRUM_SEPOLIA)];
    expect(base.chainId).toBe(BASE_SEPOLIA);
    expect(arbitrum.chainId).toBe(ARBITRUM_SEPOLIA);
    expect(arbitrum.domain.chainId).toBe(ARBITRUM_SEPOLIA);
    expect(arbitrum.rpcUrl).not.toBe(base.rpcUrl);
    expect(arbitrum.relayerUrl).toBe(base.relayerUrl);
    // Each chain has the mock USDC at that network's canonical address.
    expect(base.tokens.USDC!.address).toBe("0x036CbD53842c5426634e7929541eC2318f3dCF7e");
    expect(arbitrum.tokens.USDC!.address).toBe("0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d");
  });

  it("runs each chain on its own RPC with its own id", async () => {
    for (const id of [BASE_SEPOLIA, ARBITRUM_SEPOLIA]) {
      expect(await clientsFor(manifestOf(id).rpcUrl, id).publicClient.getChainId()).toBe(id);
    }
  });

  it("lists both chains in the banner", () => {
    expect(relay.output.stderr).toMatch(/relay devnet — chains 84532, 421614/);
    expect(relay.output.stderr).toContain(`=== chain ${ARBITRUM_SEPOLIA} ===`);
    expect(relay.output.stderr).toContain(`JSON-RPC       ${manifestOf(ARBITRUM_SEPOLIA).rpcUrl}`);
  });

  it("executes a payment on the chain it was signed for, and only there", async () => {
    for (const [chainId, other] of [[BASE_SEPOLIA, ARBITRUM_SEPOLIA], [ARBITRUM_SEPOLIA, BASE_SEPOLIA]] as const) {
      const [before, otherBefore] = await Promise.all([usdcBalance(chainId, RECIPIENT), usdcBalance(other, RECIPIENT)]);
      const response = await client.submitPayment(await signedPayment(chainId, 1_250_000n));
      expect(response).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      const receipt = await clientsFor(manifestOf(chainId).rpcUrl, chainId).publicClient.getTransactionReceipt({ hash: response.txHash as `0x${string}` });
      expect(receipt.status).toBe("success");
      expect(await usdcBalance(chainId, RECIPIENT)).toBe(before + 1_250_000n);
      expect(await usdcBalance(other, RECIPIENT)).toBe(otherBefore);
    }
  });

  it("refuses a payment signed for one chain and sent with the other chain's id", async () => {
    const body = await signedPayment(BASE_SEPOLIA, 1_000_000n);
    // The seeded vault has the same address on both chains, so only the chain id differs.
    expect(manifestOf(ARBITRUM_SEPOLIA).contracts.vault).toBe(body.vaultAddress);
    const before = await usdcBalance(ARBITRUM_SEPOLIA, RECIPIENT);
    const refusal = await client.submitPayment({ ...body, chainId: ARBITRUM_SEPOLIA }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RelayApiError);
    expect(refusal).toMatchObject({ status: 400, code: "INVALID_SIGNATURE" });
    expect(await usdcBalance(ARBITRUM_SEPOLIA, RECIPIENT)).toBe(before);
  });

  it("pays on the second chain with `relay pay --chain-id 421614`, taking its settings from devnet-421614.json", async () => {
    const before = await usdcBalance(ARBITRUM_SEPOLIA, RECIPIENT);
    const baseBefore = await usdcBalance(BASE_SEPOLIA, RECIPIENT);
    const run = runMain(["pay", "--chain-id", String(ARBITRUM_SEPOLIA), "--to", RECIPIENT, "--amount", "2", "--token", "USDC", "--json", "--state-dir", stateDir]);
    expect(await run.done, run.output.stderr).toBe(0);
    expect(JSON.parse(run.output.stdout)).toMatchObject({ status: "approved" });
    expect(await usdcBalance(ARBITRUM_SEPOLIA, RECIPIENT)).toBe(before + 2_000_000n);
    expect(await usdcBalance(BASE_SEPOLIA, RECIPIENT)).toBe(baseBefore);
  });

  it("needs ?chainId= on reads while two chains are served, and answers each chain's state with it", async () => {
    const base = manifestOf(BASE_SEPOLIA).relayerUrl!;
    const vault = manifestOf(BASE_SEPOLIA).contracts.vault;
    const without = await fetch(`${base}/v1/vault/${vault}/info`);
    expect(without.status).toBe(400);
    expect(await without.json()).toMatchObject({ code: "INVALID_REQUEST", details: expect.stringMatching(/chainId is required/) });

    const unserved = await fetch(`${base}/v1/vault/${vault}/info?chainId=42161`);
    expect(unserved.status).toBe(400);
    expect(await unserved.json()).toMatchObject({ code: "INVALID_CHAIN_ID" });

    for (const chainId of [BASE_SEPOLIA, ARBITRUM_SEPOLIA]) {
      const usdc = manifestOf(chainId).tokens.USDC!.address;
      const info = await fetch(`${base}/v1/vault/${vault}/info?chainId=${chainId}`);
      expect(info.status).toBe(200);
      expect(await info.json()).toMatchObject({ owner: manifestOf(chainId).accounts.owner.address, paused: false });
      const balance = await fetch(`${base}/v1/vault/${vault}/balance/${usdc}?chainId=${chainId}`);
      expect(await balance.json()).toEqual({ balance: (await usdcBalance(chainId, vault as Address)).toString() });
    }
  });

  it("lists both chains on GET /v1/chains with each manifest's factory, registry, router and domain; `relay chains` prints them", async () => {
    const listed = await client.chains();
    expect(listed.chains.map((c) => c.chainId)).toEqual([BASE_SEPOLIA, ARBITRUM_SEPOLIA]);
    for (const [chain, name] of [[listed.chains[0]!, "Base Sepolia"], [listed.chains[1]!, "Arbitrum Sepolia"]] as const) {
      const manifest = manifestOf(chain.chainId);
      expect(chain).toMatchObject({
        name,
        factoryAddress: manifest.contracts.factory,
        registryAddress: manifest.contracts.registry,
        routers: [manifest.contracts.router],
        devnet: true,
        domain: { name: manifest.domain.name, version: manifest.domain.version },
      });
      expect(chain.tokens).toContainEqual({ symbol: "USDC", address: manifest.tokens.USDC!.address, decimals: 6 });
    }
    // Each network's USDC at its own canonical address.
    expect(listed.chains[0]!.tokens.find((t) => t.symbol === "USDC")!.address).not.toBe(listed.chains[1]!.tokens.find((t) => t.symbol === "USDC")!.address);

    const run = runMain(["chains", "--json", "--state-dir", stateDir]);
    expect(await run.done, run.output.stderr).toBe(0);
    expect(JSON.parse(run.output.stdout)).toEqual(listed);
    const human = runMain(["chains", "--state-dir", stateDir]);
    expect(await human.done).toBe(0);
    expect(human.output.stdout).toMatch(/^421614 +Arbitrum Sepolia \(devnet\)$/m);
    expect(human.output.stdout).toContain(manifestOf(ARBITRUM_SEPOLIA).contracts.factory);
  });

  it("runs an x402 facilitator and demo per chain, each priced in that chain's USDC under its EIP-712 name", async () => {
    const urls = new Set<string>();
    for (const id of [BASE_SEPOLIA, ARBITRUM_SEPOLIA]) {
      const manifest = manifestOf(id);
      urls.add(manifest.x402!.facilitatorUrl);
      const res = await fetch(manifest.x402!.demoUrl);
      expect(res.status).toBe(402);
      const required = JSON.parse(Buffer.from(res.headers.get("payment-required")!, "base64").toString("utf8"));
      expect(required.accepts[0]).toMatchObject({ network: `eip155:${id}`, asset: manifest.tokens.USDC!.address, extra: { name: "USDC", version: "2" } });
      const name = await clientsFor(manifest.rpcUrl, id).publicClient.readContract({ address: manifest.tokens.USDC!.address as Address, abi: erc20Abi, functionName: "name" });
      expect(name).toBe("USDC");
    }
    expect(urls.size).toBe(2);
  });

  it("drops relayerUrl and the x402 URLs from every chain's manifest on SIGTERM and exits 0", async () => {
    const demo = manifestOf(BASE_SEPOLIA).x402!.demoUrl;
    relay.child.kill("SIGTERM");
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    for (const file of ["devnet.json", "devnet-84532.json", "devnet-421614.json"]) {
      expect(existsSync(path.join(stateDir, file))).toBe(true);
      expect(readJson(file).relayerUrl, file).toBeUndefined();
      expect(readJson(file).x402, file).toBeUndefined();
    }
    await expect(fetch(demo)).rejects.toThrow();
  });
});
