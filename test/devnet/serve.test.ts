// Acceptance of `relay serve` in devnet mode, run as a user runs it: the real bin/relay process.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, isAddress, type Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { manifestSchema } from "../../src/devnet/manifest-schema.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

describe("relay serve (devnet mode)", () => {
  const stateDir = tempDir("relay-serve-");
  let relay: SpawnedRelay;
  let manifest: Manifest;

  beforeAll(async () => {
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
  });
  afterAll(() => {
    if (relay.child.exitCode === null) relay.child.kill("SIGKILL");
  });

  it("starts without recompiling contracts that have not changed", () => {
    expect(relay.output.stderr).not.toMatch(/compiling contracts/);
  });

  it("writes a manifest with every field of the design's section 8", () => {
    expect(() => manifestSchema.parse(manifest)).not.toThrow();
    expect(manifest.version).toBe(1);
    expect(manifest.chainId).toBe(84532);
    expect(manifest.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(manifest.relayerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(manifest.domain).toEqual({ name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: manifest.contracts.vault });
    for (const name of ["registry", "factory", "vault", "router", "nft", "marketplace", "lending"] as const) {
      expect(isAddress(manifest.contracts[name], { strict: true }), `${name} is EIP-55 checksummed`).toBe(true);
    }
    expect(Object.keys(manifest.contracts.priceFeeds).sort()).toEqual(["DAI", "ETH", "USDC", "USDT", "WBTC", "WETH"]);
    expect(Object.keys(manifest.tokens).sort()).toEqual(["DAI", "USDC", "USDT", "WBTC", "WETH"]);
    for (const role of ["owner", "operator", "relayer"] as const) {
      expect(manifest.accounts[role].privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    }
    expect(manifest.accounts.bots.default.address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(manifest.accounts.bots.reviewed.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("serves the chain over JSON-RPC with the vault deployed, funded and its bots configured", async () => {
    const { publicClient } = clientsFor(manifest.rpcUrl, manifest.chainId);
    expect(await publicClient.getChainId()).toBe(84532);
    const vault = manifest.contracts.vault as Address;
    const isVault = await publicClient.readContract({
      address: manifest.contracts.factory as Address, abi: readArtifact("ServiceVaultFactory").abi, functionName: "isVault", args: [vault],
    });
    expect(isVault).toBe(true);
    for (const symbol of ["USDC", "WETH"]) {
      const balance = await publicClient.readContract({ address: manifest.tokens[symbol]!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [vault] });
      expect(balance).toBeGreaterThan(0n);
    }
    const vaultAbi = readArtifact("ServiceVault").abi;
    const active = (bot: string) => publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "isBotActive", args: [bot as Address] });
    expect(await active(manifest.accounts.bots.default.address)).toBe(true);
    expect(await active(manifest.accounts.bots.reviewed.address)).toBe(true);
    const reviewed = (await publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "getBotPolicy", args: [manifest.accounts.bots.reviewed.address as Address] })) as { requireHumanReview: boolean };
    expect(reviewed.requireHumanReview).toBe(true);
  });

  it("places USDC at its canonical Base Sepolia address", async () => {
    const { publicClient } = clientsFor(manifest.rpcUrl, manifest.chainId);
    expect(manifest.tokens.USDC!.address).toBe(BASE_SEPOLIA_USDC);
    expect(((await publicClient.getCode({ address: BASE_SEPOLIA_USDC })) ?? "0x").length).toBeGreaterThan(2);
    expect(await publicClient.readContract({ address: BASE_SEPOLIA_USDC, abi: erc20Abi, functionName: "decimals" })).toBe(6);
  });

  it("answers GET /healthz with 200, and unknown routes with the error envelope", async () => {
    const health = await fetch(`${manifest.relayerUrl}/healthz`);
    expect(health.status).toBe(200);
    const missing = await fetch(`${manifest.relayerUrl}/v1/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "NOT_FOUND", error: expect.any(String) });
  });

  it("binds both servers to loopback only", () => {
    expect(new URL(manifest.rpcUrl).hostname).toBe("127.0.0.1");
    expect(new URL(manifest.relayerUrl!).hostname).toBe("127.0.0.1");
  });

  it("shuts down cleanly on SIGTERM with exit code 0, and drops relayerUrl from the manifest", async () => {
    relay.child.kill("SIGTERM");
    const result = await Promise.race([
      relay.exited,
      new Promise<"hung">((r) => setTimeout(() => r("hung"), 5000)),
    ]);
    expect(result).toEqual({ code: 0, signal: null });
    const after = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
    expect(after.relayerUrl).toBeUndefined();
  });
});
