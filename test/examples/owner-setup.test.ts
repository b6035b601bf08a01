// The owner's setup scripts of examples/ run as a reader runs them, against the real `relay serve
// --domain-name AxonVault`: owner-setup.mjs on relay-client (built from packages/client) and
// owner-setup-axon-sdk.mjs on the production SDK, unchanged (from ../shared/axon-sdk or
// RELAY_AXON_SDK; without it that one is reported skipped, by name). Each deploys a vault at its
// predicted address, funds it, adds two bots and pays from one; the chain is read to check each step.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, getAddress, keccak256, stringToHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor } from "../../src/chain/clients.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { projectRoot } from "../../src/paths.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const exec = promisify(execFile);
const SDK_DIST = process.env.RELAY_AXON_SDK ?? path.join(projectRoot, "..", "shared", "axon-sdk", "dist", "index.js");
const SDK_PACKAGE = path.dirname(path.dirname(SDK_DIST));
const VAULT_ABI = readArtifact("ServiceVault").abi;

let relay: SpawnedRelay;
let manifest: Manifest;
let clients: ReturnType<typeof clientsFor>;
let app: string;
let usdc: Address;
const recipient = "0x00000000000000000000000000000000000000bb" as Address;

beforeAll(async () => {
  const stateDir = tempDir("relay-owner-examples-");
  relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--domain-name", "AxonVault"]);
  // relay-client as a reader installs it: its build (dist/), beside viem.
  const built = exec(process.execPath, [path.join(projectRoot, "packages", "client", "build.mjs")], { cwd: path.join(projectRoot, "packages", "client") });
  await relay.waitFor(/relay: ready/);
  await built;
  manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
  clients = clientsFor(manifest.rpcUrl, manifest.chainId);
  usdc = manifest.tokens.USDC!.address as Address;
  // An app folder: node_modules holds the repository's packages (viem and what it needs), relay-client
  // and the production SDK, each by symlink; node runs with --preserve-symlinks so that the SDK, which
  // lives outside any node_modules, finds viem here.
  app = mkdtempSync(path.join(tmpdir(), "relay-owner-app-"));
  const modules = path.join(app, "node_modules");
  mkdirSync(modules);
  for (const entry of readdirSync(path.join(projectRoot, "node_modules"))) {
    if (!entry.startsWith(".")) symlinkSync(path.join(projectRoot, "node_modules", entry), path.join(modules, entry));
  }
  symlinkSync(path.join(projectRoot, "packages", "client"), path.join(modules, "relay-client"));
  if (existsSync(SDK_DIST)) {
    if (!existsSync(path.join(modules, "@axonfi"))) mkdirSync(path.join(modules, "@axonfi"));
    symlinkSync(SDK_PACKAGE, path.join(modules, "@axonfi", "sdk"));
  }
  for (const file of ["owner-setup.mjs", "owner-setup-axon-sdk.mjs", "owner-settings.mjs"]) copyFileSync(path.join(projectRoot, "examples", file), path.join(app, file));
  // The owner's wallet holds the USDC it funds its vaults with.
  const minter = clients.walletFor(privateKeyToAccount(manifest.accounts.owner.privateKey as Hex));
  await clients.publicClient.waitForTransactionReceipt({
    hash: await minter.writeContract({ address: usdc, abi: readArtifact("mocks/MockERC20").abi, functionName: "mint", args: [manifest.accounts.owner.address as Address, 1_000_000_000n] }),
  });
}, 240_000);

afterAll(() => {
  if (relay?.child.exitCode === null) relay.child.kill("SIGKILL");
  if (app !== undefined) rmSync(app, { recursive: true, force: true });
});

async function runExample(file: string): Promise<{ vault: Address; bots: [Address, string][]; payment: { status: string; txHash: Hex } }> {
  const env = {
    PATH: process.env.PATH,
    RELAY_URL: manifest.relayerUrl,
    RELAY_RPC_URL: manifest.rpcUrl,
    RELAY_CHAIN_ID: String(manifest.chainId),
    RELAY_OWNER_KEY: manifest.accounts.owner.privateKey,
  };
  const { stdout, stderr } = await exec(process.execPath, ["--preserve-symlinks", file, "--token", usdc, "--fund", "100", "--pay", "5", "--to", recipient], { cwd: app, env, timeout: 120_000 });
  expect(stderr).toBe("");
  const lines = stdout.trim().split("\n").map((line) => line.split(" "));
  expect(lines.map((l) => l[0])).toEqual(["vault", "bot", "bot", "payment"]);
  // Nothing secret printed: no 32-byte hex anywhere but the payment's transaction hash.
  expect(stdout.match(/0x[0-9a-fA-F]{64}/g)).toEqual([lines[3]![2]]);
  return {
    vault: getAddress(lines[0]![1]!),
    bots: [lines[1]!, lines[2]!].map((l) => [getAddress(l[1]!), l[2]!] as [Address, string]),
    payment: { status: lines[3]![1]!, txHash: lines[3]![2] as Hex },
  };
}

const read = <T>(vault: Address, functionName: string, args: readonly unknown[] = []) => clients.publicClient.readContract({ address: vault, abi: VAULT_ABI, functionName, args }) as Promise<T>;
const usdcOf = (who: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });

/** What both scripts must leave on the chain: the owner's vault, the deposit with its ref, the two bots, the paid 5 USDC. */
async function checkChain(result: Awaited<ReturnType<typeof runExample>>, recipientBefore: bigint) {
  const { vault, bots, payment } = result;
  expect(await read(vault, "owner")).toBe(manifest.accounts.owner.address);
  expect(await clients.publicClient.readContract({ address: manifest.contracts.factory as Address, abi: readArtifact("ServiceVaultFactory").abi, functionName: "isVault", args: [vault] })).toBe(true);
  for (const [bot] of bots) expect(await read(vault, "isBotActive", [bot])).toBe(true);
  expect(await read(vault, "getBotPolicy", [bots[0]![0]])).toMatchObject({ maxPerTxAmount: 25_000_000n, spendingLimits: [{ amount: 100_000_000n, maxCount: 0n, windowSeconds: 86_400n }] });
  const deposits = await clients.publicClient.getContractEvents({ address: vault, abi: VAULT_ABI, eventName: "Deposited", fromBlock: 0n });
  expect(deposits.map((d) => (d as unknown as { args: { amount: bigint; ref: Hex } }).args)).toEqual([
    { from: manifest.accounts.owner.address, token: usdc, amount: 100_000_000n, ref: keccak256(stringToHex("initial funding")) },
  ]);
  expect(payment.status).toBe("approved");
  const receipt = await clients.publicClient.getTransactionReceipt({ hash: payment.txHash });
  expect(receipt.status).toBe("success");
  expect(await usdcOf(vault)).toBe(95_000_000n);
  expect(await usdcOf(recipient)).toBe(recipientBefore + 5_000_000n);
}

describe("examples/owner-setup.mjs (relay-client)", () => {
  it("deploys at the predicted address, funds, adds a payer and a reviewed bot, and the payer pays", async () => {
    const before = await usdcOf(recipient);
    const result = await runExample("owner-setup.mjs");
    await checkChain(result, before);
    expect(result.bots.map(([, role]) => role)).toEqual(["payer", "reviewed"]);
    expect(await read(result.vault, "getBotPolicy", [result.bots[1]![0]])).toMatchObject({ requireHumanReview: true });
  });
});

describe.skipIf(!existsSync(SDK_DIST))("examples/owner-setup-axon-sdk.mjs (the production SDK at ../shared/axon-sdk or RELAY_AXON_SDK, unchanged)", () => {
  it("deploys at the predicted address, funds, adds two bots, and one pays through relay", async () => {
    const before = await usdcOf(recipient);
    const result = await runExample("owner-setup-axon-sdk.mjs");
    await checkChain(result, before);
    expect(result.bots.map(([, role]) => role)).toEqual(["payer", "capped"]);
    expect(await read(result.vault, "getBotConfig", [result.bots[1]![0]])).toMatchObject({ isActive: true, maxPerTxAmount: 10_000_000n, aiTriggerThreshold: 5_000_000n });
  });
});
