// relay with the node users run: a fresh anvil (test/support/anvil.ts), the suite deployed onto it by
// the real CLI (`bin/relay deploy --rpc-url <anvil> --key …`, which marks the manifest a devnet since
// anvil is a development node), and `bin/relay serve --rpc-url <anvil>` as its own process. The
// payment, review (approve through a Sign-In with Ethereum session, and reject) and swap paths
// (a swap, and a swap-and-pay) go through the relayer's HTTP API with the client package; every
// outcome is asserted on what anvil says, read straight from the node. Everything this starts is
// stopped by its PID and every temporary directory removed.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, toFunctionSelector, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { devKeyPair, ROLE_INDEX } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { projectRoot } from "../../src/paths.ts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { signInWithEthereum } from "../../packages/client/src/siwe.ts";
import { signPaymentRequest, signSwapAndPayRequest, signSwapRequest, swapForPayment } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signReviewApproval } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_CODE } from "../../src/chain/deterministic-deployer.ts";
import { DELEGATION_TO_LENS, SIMULATING_LENS_ADDRESS, lensOverrideCode } from "../../src/relayer/chain/lens-code.ts";
import { startAnvil, type Anvil } from "../support/anvil.ts";
import { freePort } from "../support/free-port.ts";

const RELAY = path.join(projectRoot, "bin", "relay");
const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
const WETH = (n: number) => BigInt(Math.round(n * 1e6)) * 10n ** 12n;
const vaultAbi = readArtifact("ServiceVault").abi;

let anvil: Anvil;
let stateDir: string;
let serve: ChildProcess | undefined;
let serveLog = "";
let relayerUrl: string;
let manifest: Manifest;
let chain: Clients;
let relay: RelayClient;

beforeAll(async () => {
  anvil = await startAnvil();
  stateDir = mkdtempSync(path.join(tmpdir(), "relay-anvil-e2e-"));
  const key = (role: keyof typeof ROLE_INDEX) => devKeyPair(ROLE_INDEX[role]).privateKey;
  const deployed = await run(["deploy", "--rpc-url", anvil.url, "--key", key("deployer"), "--owner-key", key("owner"), "--relayer-key", key("relayer"), "--state-dir", stateDir]);
  expect(deployed.code, deployed.stderr).toBe(0);
  manifest = JSON.parse(readFileSync(deployed.stdout.trim(), "utf8")) as Manifest;
  chain = clientsFor(anvil.url, manifest.chainId);

  const port = await freePort();
  serve = spawn(RELAY, ["serve", "--rpc-url", anvil.url, "--state-dir", stateDir, "--port", String(port)], {
    cwd: projectRoot,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  serve.stderr!.on("data", (chunk: Buffer) => (serveLog += chunk.toString()));
  relayerUrl = await ready(serve);
  relay = new RelayClient({ baseUrl: relayerUrl });
}, 180_000);

afterAll(async () => {
  if (serve) await stop(serve);
  await anvil?.stop();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

/** `bin/relay <args>` to completion: exit code, stdout, stderr. */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(RELAY, args, { cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Waits for `relay: ready — relayer <url>` on the serve process's stderr. */
async function ready(child: ChildProcess): Promise<string> {
  const until = Date.now() + 120_000;
  for (;;) {
    const match = /relay: ready — relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(serveLog);
    if (match) return match[1]!;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`relay serve exited before it was ready:\n${serveLog}`);
    if (Date.now() > until) throw new Error(`relay serve was not ready within 120 s:\n${serveLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGTERM to the process this file started (by its PID), SIGKILL after 10 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(child.pid!, "SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

const domain = () => manifest.domain as never;
const vault = () => manifest.contracts.vault as Address;
const token = (symbol: string) => manifest.tokens[symbol]!.address as Address;
const bot = (name: "default" | "reviewed") => privateKeyToAccount(manifest.accounts.bots[name].privateKey as Hex);
const owner = () => privateKeyToAccount(manifest.accounts.owner.privateKey as Hex);
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const balanceOf = (asset: Address, who: Address) => chain.publicClient.readContract({ address: asset, abi: erc20Abi, functionName: "balanceOf", args: [who] });
const used = (intentHash: Hex) => chain.publicClient.readContract({ address: vault(), abi: vaultAbi, functionName: "usedIntents", args: [intentHash] }) as Promise<boolean>;

async function minedOk(txHash: Hex): Promise<void> {
  const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash });
  expect(receipt.status).toBe("success");
  expect(receipt.to?.toLowerCase()).toBe(vault().toLowerCase());
}

function payment(signer: "default" | "reviewed", amount: bigint): PaymentIntent {
  return { bot: bot(signer).address, to: fresh(), token: token("USDC"), amount, deadline: defaultDeadline(), ref: randomRef() };
}

describe("relay deploy and relay serve --rpc-url on anvil", () => {
  it("deploy wrote a devnet manifest for anvil's chain, and serve answers for it", async () => {
    expect(manifest.devnet).toBe(true);
    expect(manifest.chainId).toBe(await chain.publicClient.getChainId());
    expect(await chain.publicClient.getCode({ address: vault() })).toMatch(/^0x[0-9a-f]{10,}/);
    expect((await relay.ready()).status).toBe("ready");
  });

  it("deploy placed the simulating lens through anvil's own deterministic deployer, where relay's lens calls delegate to it", async () => {
    expect((await chain.publicClient.getCode({ address: DETERMINISTIC_DEPLOYER }))?.toLowerCase()).toBe(DETERMINISTIC_DEPLOYER_CODE);
    expect(await chain.publicClient.getCode({ address: SIMULATING_LENS_ADDRESS })).toBe(readArtifact("lens/SimulatingLens").deployedBytecode);
    expect(await lensOverrideCode(chain.publicClient as never)).toBe(DELEGATION_TO_LENS);
  });

  it("anvil answers reads pinned a few blocks back, as a full node does (the relayer pins each group's reads to a block)", async () => {
    // With `--prune-history` and no count anvil keeps only the latest state, and a block mined
    // between the relayer's eth_blockNumber and its pinned eth_call failed the request with 500.
    const pinned = await chain.publicClient.getBlockNumber();
    for (let i = 0; i < 3; i++) await chain.publicClient.request({ method: "evm_mine", params: [] } as never);
    const atPinned = await chain.publicClient.readContract({ address: token("USDC"), abi: erc20Abi, functionName: "balanceOf", args: [vault()], blockNumber: pinned });
    expect(atPinned).toBe(await balanceOf(token("USDC"), vault()));
  });

  it("50 payments at once are all approved and mined", async () => {
    const intents = Array.from({ length: 50 }, () => payment("default", USDC(1)));
    const answers = await Promise.all(intents.map(async (intent) => relay.submitPayment(await signPaymentRequest(bot("default"), domain(), intent))));
    expect(answers.map((a) => a.status)).toEqual(intents.map(() => "approved"));
    for (const intent of intents) expect(await balanceOf(token("USDC"), intent.to)).toBe(USDC(1));
  });

  it("payment: approved on the fast path, mined on anvil, the recipient holds the amount", async () => {
    const intent = payment("default", USDC(3));
    const vaultBefore = await balanceOf(token("USDC"), vault());
    const res = await relay.submitPayment(await signPaymentRequest(bot("default"), domain(), intent));
    expect(res).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    await minedOk((res as { txHash: Hex }).txHash);
    expect(await balanceOf(token("USDC"), intent.to)).toBe(USDC(3));
    expect(vaultBefore - (await balanceOf(token("USDC"), vault()))).toBe(USDC(3));
    expect(await used(hashIntent("payment", domain(), intent))).toBe(true);
  });

  describe("review: held for the owner, who signs in with Ethereum", () => {
    let owners: RelayClient;
    beforeAll(async () => {
      owners = new RelayClient({ baseUrl: relayerUrl });
      await signInWithEthereum(owners, owner(), { chainId: manifest.chainId, baseUrl: relayerUrl });
    });

    async function held(amount: bigint) {
      const intent = payment("reviewed", amount);
      const res = await relay.submitPayment(await signPaymentRequest(bot("reviewed"), domain(), intent, { memo: "anvil invoice" }));
      expect(res.status).toBe("pending_review");
      expect(await balanceOf(token("USDC"), intent.to)).toBe(0n);
      return { intent, requestId: res.requestId };
    }

    it("approve: the owner's ReviewApproval executes it on anvil", async () => {
      const { intent, requestId } = await held(USDC(5));
      const listed = await owners.reviews({ chainId: manifest.chainId, vault: vault() });
      expect(listed.reviews.map((r) => r.requestId)).toContain(requestId);
      const detail = await owners.review(requestId);
      expect(detail.intentHash).toBe(hashIntent("payment", domain(), intent));
      const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const signature = await signReviewApproval(owner(), domain(), { intentHash: detail.intentHash as Hex, deadline });
      const decided = await owners.approveReview(requestId, { deadline: deadline.toString(), signature });
      expect(decided).toMatchObject({ requestId, status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      await minedOk((decided as { txHash: Hex }).txHash);
      expect(await balanceOf(token("USDC"), intent.to)).toBe(USDC(5));
      expect(await used(detail.intentHash as Hex)).toBe(true);
      expect(await relay.getPayment(requestId)).toMatchObject({ status: "approved", txHash: (decided as { txHash: Hex }).txHash });
    });

    it("reject: rejected at the relayer with the owner's reason, its intent cancelled on anvil by the relayer's key, and nothing moved", async () => {
      const { intent, requestId } = await held(USDC(6));
      const vaultBefore = await balanceOf(token("USDC"), vault());
      const blockBefore = await chain.publicClient.getBlockNumber();
      const decided = await owners.rejectReview(requestId, "not our supplier");
      expect(decided).toMatchObject({ requestId, status: "rejected", reason: "not our supplier", errorCode: "OWNER_REJECTED" });
      expect(await relay.getPayment(requestId)).toMatchObject({ status: "rejected" });
      expect(await balanceOf(token("USDC"), intent.to)).toBe(0n);
      expect(await balanceOf(token("USDC"), vault())).toBe(vaultBefore);
      const intentHash = hashIntent("payment", domain(), intent);
      expect(await used(intentHash)).toBe(false);
      // The relayer sends one transaction for it, the cancel of its intent (anvil mines a block per
      // transaction), after the rejection's answer.
      const cancelled = () => chain.publicClient.readContract({ address: vault(), abi: vaultAbi, functionName: "cancelledIntents", args: [intentHash] }) as Promise<boolean>;
      for (const until = Date.now() + 30_000; !(await cancelled()); await new Promise((r) => setTimeout(r, 100))) {
        if (Date.now() > until) throw new Error(`the relayer did not cancel ${intentHash} on anvil`);
      }
      expect(await chain.publicClient.getBlockNumber()).toBe(blockBefore + 1n);
      const block = await chain.publicClient.getBlock({ blockNumber: blockBefore + 1n, includeTransactions: true });
      expect(block.transactions.map((tx) => ({ from: tx.from, to: tx.to, selector: tx.input.slice(0, 10) }))).toEqual([
        { from: devKeyPair(ROLE_INDEX.relayer).address.toLowerCase(), to: vault().toLowerCase(), selector: toFunctionSelector("cancelIntent(bytes32)") },
      ]);
      expect(await balanceOf(token("USDC"), intent.to)).toBe(0n);
      expect(await balanceOf(token("USDC"), vault())).toBe(vaultBefore);
    });
  });

  describe("swaps through anvil's router", () => {
    it("swap: the vault gives up at most maxFromAmount USDC and receives at least minToAmount WETH", async () => {
      const [usdc, weth] = [token("USDC"), token("WETH")];
      const [usdcBefore, wethBefore] = [await balanceOf(usdc, vault()), await balanceOf(weth, vault())];
      const intent = { bot: bot("default").address, fromToken: usdc, toToken: weth, maxFromAmount: USDC(30), minToAmount: WETH(0.001), deadline: defaultDeadline(), ref: randomRef() };
      const res = await relay.submitSwap(await signSwapRequest(bot("default"), domain(), intent));
      expect(res).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      await minedOk((res as { txHash: Hex }).txHash);
      const spent = usdcBefore - (await balanceOf(usdc, vault()));
      expect(spent).toBeGreaterThan(0n);
      expect(spent).toBeLessThanOrEqual(intent.maxFromAmount);
      expect((await balanceOf(weth, vault())) - wethBefore).toBeGreaterThanOrEqual(intent.minToAmount);
      expect(await used(hashIntent("swap", domain(), intent))).toBe(true);
    });

    it("swap-and-pay: one transaction swaps WETH for USDC and pays the recipient", async () => {
      const [usdc, weth] = [token("USDC"), token("WETH")];
      const pay = payment("default", USDC(20));
      const swap = swapForPayment(pay, weth, WETH(0.01), randomRef());
      const wethBefore = await balanceOf(weth, vault());
      const res = await relay.submitPayment(await signSwapAndPayRequest(bot("default"), domain(), pay, swap));
      expect(res).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      await minedOk((res as { txHash: Hex }).txHash);
      expect(await balanceOf(usdc, pay.to)).toBe(USDC(20));
      const wethSpent = wethBefore - (await balanceOf(weth, vault()));
      expect(wethSpent).toBeGreaterThan(0n);
      expect(wethSpent).toBeLessThanOrEqual(swap.maxFromAmount);
      expect(await used(hashIntent("payment", domain(), pay))).toBe(true);
      expect(await used(hashIntent("swap", domain(), swap))).toBe(true);
    });
  });

  it("stopping by PID ends the relay process and anvil, and leaves no temporary state", async () => {
    const pids = [serve!.pid!, anvil.pid];
    await stop(serve!);
    serve = undefined;
    await anvil.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(existsSync(anvil.tempDir)).toBe(false);
    rmSync(stateDir, { recursive: true, force: true });
    expect(existsSync(stateDir)).toBe(false);
  });
});
