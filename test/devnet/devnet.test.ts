// `relay devnet`, `relay deploy` and `relay serve --rpc-url` together, driven through main().
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import { CANONICAL_TOKENS } from "../../src/devnet/tokens.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const tmp = (label: string) => tempDir(`relay-${label}-`);
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Manifest;

describe("relay devnet on Arbitrum One's chain id with a custom domain name", () => {
  const stateDir = tmp("devnet");
  const copy = path.join(tmp("copy"), "manifest.json");
  let devnet: InProcessRun;
  let manifest: Manifest;

  beforeAll(async () => {
    devnet = runMain(["devnet", "--chain-id", "42161", "--rpc-port", "0", "--domain-name", "AcmeVault", "--state-dir", stateDir, "--manifest", copy, "--json"]);
    await devnet.waitFor(/relay: ready/);
    manifest = readJson(path.join(stateDir, "devnet.json"));
  });
  afterAll(async () => {
    devnet.stop();
    await devnet.done;
  });

  it("prints the manifest on stdout, writes the copy, and no relayerUrl (no relayer runs)", () => {
    expect(JSON.parse(devnet.output.stdout)).toEqual(manifest);
    expect(readJson(copy)).toEqual(manifest);
    expect(manifest.relayerUrl).toBeUndefined();
    expect(devnet.output.stderr).toMatch(/never use them on a real network/);
  });

  it("uses the requested chain id and EIP-712 domain name", async () => {
    const { publicClient } = clientsFor(manifest.rpcUrl, 42161);
    expect(await publicClient.getChainId()).toBe(42161);
    expect(manifest.domain).toMatchObject({ name: "AcmeVault", version: "1", chainId: 42161 });
  });

  it("places every mock token at its canonical Arbitrum One address", async () => {
    const { publicClient } = clientsFor(manifest.rpcUrl, 42161);
    for (const [symbol, address] of Object.entries(CANONICAL_TOKENS[42161]!)) {
      expect(manifest.tokens[symbol]!.address).toBe(address);
      const decimals = await publicClient.readContract({ address, abi: erc20Abi, functionName: "decimals" });
      expect(decimals).toBe(manifest.tokens[symbol]!.decimals);
      expect(await publicClient.readContract({ address, abi: erc20Abi, functionName: "symbol" })).toBe(symbol);
    }
  });

  describe("then relay deploy onto that chain, and relay serve --rpc-url", () => {
    const deployDir = tmp("deploy");
    let deployed: Manifest;

    beforeAll(async () => {
      // A per-chain manifest left by an earlier two-chain devnet in the same directory.
      writeFileSync(path.join(deployDir, "devnet-421614.json"), "{}");
      const run = runMain(["deploy", "--rpc-url", manifest.rpcUrl, "--key", devKeyPair(9).privateKey, "--state-dir", deployDir]);
      expect(await run.done, run.output.stderr).toBe(0);
      expect(run.output.stdout.trim()).toBe(path.join(deployDir, "devnet.json"));
      deployed = readJson(path.join(deployDir, "devnet.json"));
    });

    it("writes the chain's own manifest too, and drops per-chain manifests of an earlier devnet", () => {
      expect(readJson(path.join(deployDir, "devnet-42161.json"))).toEqual(deployed);
      expect(existsSync(path.join(deployDir, "devnet-421614.json"))).toBe(false);
    });

    it("deploys a second, independent suite that reuses the mock tokens already in place", async () => {
      expect(deployed.chainId).toBe(42161);
      expect(deployed.contracts.factory).not.toBe(manifest.contracts.factory);
      expect(deployed.tokens).toEqual(manifest.tokens);
      expect(deployed.accounts.owner.address).toBe(devKeyPair(9).address);
      const { publicClient } = clientsFor(manifest.rpcUrl, 42161);
      const isVault = await publicClient.readContract({
        address: deployed.contracts.factory as Address, abi: readArtifact("ServiceVaultFactory").abi, functionName: "isVault", args: [deployed.contracts.vault as Address],
      });
      expect(isVault).toBe(true);
    });

    it("serves the deployment with relay serve --rpc-url, recording relayerUrl only while it runs", async () => {
      const serve = runMain(["serve", "--rpc-url", manifest.rpcUrl, "--port", "0", "--state-dir", deployDir]);
      await serve.waitFor(/relay: ready/);
      const live = readJson(path.join(deployDir, "devnet.json"));
      expect(live.relayerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${live.relayerUrl}/healthz`)).status).toBe(200);
      serve.stop();
      expect(await serve.done).toBe(0);
      expect(readJson(path.join(deployDir, "devnet.json")).relayerUrl).toBeUndefined();
    });
  });
});

describe("relay serve --rpc-url failures", () => {
  it("explains in one line when the state directory has no manifest", async () => {
    const run = runMain(["serve", "--rpc-url", "http://127.0.0.1:9", "--state-dir", tmp("empty")]);
    expect(await run.done).toBe(1);
    expect(run.output.stderr).toMatch(/^relay: devnet manifest .*devnet\.json: not found; run `relay devnet` or `relay deploy`/);
    expect(run.output.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("refuses an unsupported chain id as a usage error", async () => {
    const run = runMain(["devnet", "--chain-id", "1"]);
    expect(await run.done).toBe(2);
    expect(run.output.stderr).toMatch(/--chain-id 1 is not supported/);
  });

  it("refuses a chain id given twice, --fork with several chains, and --rpc-url with several chains", async () => {
    const twice = runMain(["devnet", "--chain-id", "84532", "--chain-id", "84532"]);
    expect(await twice.done).toBe(2);
    expect(twice.output.stderr).toMatch(/--chain-id 84532 is given twice/);

    const fork = runMain(["devnet", "--chain-id", "84532", "--chain-id", "421614", "--fork", "http://127.0.0.1:9", "--state-dir", tmp("fork")]);
    expect(await fork.done).toBe(2);
    expect(fork.output.stderr).toBe("relay: --fork forks one network: give a single --chain-id with it\n");

    const existing = runMain(["serve", "--rpc-url", "http://127.0.0.1:9", "--chain-id", "84532,421614", "--state-dir", tmp("rpc")]);
    expect(await existing.done).toBe(2);
    expect(existing.output.stderr).toMatch(/^relay: --rpc-url serves one chain: give a single --chain-id, or serve several chains with --config\n$/);
  });

  it("refuses a malformed deploy key as a usage error", async () => {
    const run = runMain(["deploy", "--rpc-url", "http://127.0.0.1:9", "--key", "0x1234"]);
    expect(await run.done).toBe(2);
    expect(run.output.stderr).toMatch(/--key must be a 32-byte hex private key/);
  });

  it("reports an unreachable node for deploy", async () => {
    const run = runMain(["deploy", "--rpc-url", "http://127.0.0.1:9", "--key", devKeyPair(9).privateKey]);
    expect(await run.done).toBe(1);
    expect(run.output.stderr).toBe("relay: cannot reach a JSON-RPC node at http://127.0.0.1:9\n");
  });
});
