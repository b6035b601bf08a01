// GET /v1/chains over real HTTP on a devnet relayer: what it lists is what the devnet's manifest
// says was deployed (factory, registry, router, tokens, the vaults' domain), the typed client reads
// the same, and the list still answers, without the domain, while the factory cannot be read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, EIP1193Provider } from "viem";
import { RelayClient } from "../../packages/client/src/index.ts";
import { get, startEnv, type Env } from "./harness.ts";
import { clusterRun } from "./deployment.ts";

const cluster = clusterRun();

describe("GET /v1/chains", () => {
  let env: Env;
  let factoryReadsFail = false;

  beforeAll(async () => {
    env = await startEnv({}, cluster ? {} : {
      // Only the relayer's view: while the flag is set, calls to the factory fail as a dead node would.
      relayerProvider: (provider, manifest) => failingFactoryCalls(provider, manifest.contracts.factory as Address, () => factoryReadsFail),
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  // Not in the cluster run: the fault is injected into the relayer's provider inside this process;
  // the cluster's relayers are other processes reading the chain for themselves.
  it.skipIf(cluster)("answers 200 in a degraded mode without the domain while the factory cannot be read, then with it", async () => {
    factoryReadsFail = true;
    const degraded = await get(`${env.url}/v1/chains`);
    expect(degraded.status).toBe(200);
    expect(degraded.body.chains).toHaveLength(1);
    expect(degraded.body.chains[0]).not.toHaveProperty("domain");
    expect(degraded.body.chains[0].factoryAddress).toBe(env.manifest.contracts.factory);

    factoryReadsFail = false;
    const healed = await get(`${env.url}/v1/chains`);
    expect(healed.body.chains[0].domain).toEqual({ name: env.manifest.domain.name, version: env.manifest.domain.version });
  });

  it("lists the served chain as the manifest describes it", async () => {
    const res = await get(`${env.url}/v1/chains`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const { manifest } = env;
    const token = (symbol: string) => ({ symbol, address: manifest.tokens[symbol]!.address, decimals: manifest.tokens[symbol]!.decimals });
    expect(res.body).toEqual({
      chains: [
        {
          chainId: 84532,
          name: "Base Sepolia",
          factoryAddress: manifest.contracts.factory,
          registryAddress: manifest.contracts.registry,
          routers: [manifest.contracts.router],
          devnet: true,
          tokens: Object.keys(manifest.tokens).map(token),
          defaultRebalanceTokens: ["USDC", "WETH", "USDT"].map(token),
          domain: { name: "ServiceVault", version: "1" },
        },
      ],
    });
    // The domain is the one the vault itself reports (EIP-5267), the one bots sign on.
    expect(manifest.domain).toMatchObject({ name: "ServiceVault", version: "1", chainId: 84532 });
  });

  it("is what RelayClient.chains() returns", async () => {
    const client = new RelayClient({ baseUrl: env.url });
    expect(await client.chains()).toEqual((await get(`${env.url}/v1/chains`)).body);
  });
});

/** The relayer's provider, with eth_call to `factory` failing while `failing()` says so. */
function failingFactoryCalls(inner: EIP1193Provider, factory: Address, failing: () => boolean): EIP1193Provider {
  const request = async (args: { method: string; params?: unknown }): Promise<unknown> => {
    if (args.method === "eth_call" && failing()) {
      const [call] = args.params as [{ to?: string }];
      if (call.to?.toLowerCase() === factory.toLowerCase()) throw new Error("connection refused");
    }
    return inner.request(args as never);
  };
  return { ...inner, request } as EIP1193Provider;
}
