// ChainRuntime.readAndSimulate on a real devnet: one eth_call (SimulatingLens at the relayer key's
// address by a state override) gives the same snapshots as the deployless lens at that block, and
// each simulation's outcome as if it ran alone from that state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFunctionResult, encodeFunctionData, keccak256, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { validateBody } from "../../src/api/validate.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signExecuteIntent, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor } from "../../src/chain/clients.ts";
import type { ExecuteIntent, PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { ChainRuntime, type SnapshotQuery } from "../../src/relayer/chain/chain-runtime.ts";
import { intentHashOf } from "../../src/relayer/intake/checks.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { batchCalldata, vaultAbi } from "../../src/relayer/chain/intents.ts";
import { executionCalldata, snapshotQuery } from "../../src/relayer/kinds/index.ts";
import { decodeRevert } from "../../src/chain/revert-decode.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("ChainRuntime.readAndSimulate", () => {
  let devnet: Devnet;
  let runtime: ChainRuntime;
  let relayer: Address;

  beforeAll(async () => {
    const stateDir = tempDir("relay-simlens-");
    devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
    const config = parseRelayerConfig({ stateDir, chains: [chainFromManifest(devnet.manifest)] });
    runtime = new ChainRuntime(config.chains[0]!, devnet.chain.provider);
    relayer = privateKeyToAccount(devnet.manifest.accounts.relayer.privateKey as Hex).address;
  });
  afterAll(() => devnet?.close());

  async function payment(intent: Partial<PaymentIntent> = {}) {
    const m = devnet.manifest;
    const bot = privateKeyToAccount(m.accounts.bots.default.privateKey as Hex);
    const full: PaymentIntent = {
      bot: bot.address,
      to: "0x000000000000000000000000000000000000dEaD",
      token: m.tokens.USDC!.address as Address,
      amount: 2_000_000n,
      deadline: defaultDeadline(),
      ref: randomRef(),
      ...intent,
    };
    const signature = await signPaymentIntent(bot, m.domain as never, full);
    const request = validateBody("payment", paymentRequestBody(m.domain as never, full, signature, { idempotencyKey: crypto.randomUUID() }));
    const query: SnapshotQuery = snapshotQuery(request, intentHashOf(request, await runtime.domainOf(request.vaultAddress)));
    return { request, query, data: executionCalldata(request), vault: request.vaultAddress };
  }

  it("is available on the devnet, whose calls at latest run at the latest block", async () => {
    expect(await runtime.supportsStateOverride()).toBe(true);
  });

  it("reads the snapshots the deployless lens reads at the block it reports", async () => {
    const [a, b] = await Promise.all([payment(), payment({ amount: 7n })]);
    const { snapshots, outcomes } = await runtime.readAndSimulate([a.query, b.query], []);
    expect(outcomes).toEqual([]);
    expect(snapshots[0]!.blockNumber).toBe(await runtime.latestBlock());
    expect(snapshots).toEqual(await runtime.snapshots([a.query, b.query], snapshots[0]!.blockNumber));
  });

  it("undoes each simulation's effects: the same payment simulated twice passes twice", async () => {
    const p = await payment();
    const call = { from: relayer, to: p.vault, data: p.data };
    const { outcomes } = await runtime.readAndSimulate([p.query], [call, call]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect((await runtime.snapshot(p.query)).intentUsed).toBe(false);
  });

  it("gives a reverting simulation its revert data, and runs each from its own key's address", async () => {
    const [good, tooBig] = await Promise.all([payment(), payment({ amount: 10n ** 30n })]);
    const stranger = privateKeyToAccount(`0x${"5a".repeat(32)}`).address;
    const { outcomes } = await runtime.readAndSimulate(
      [good.query],
      [
        { from: relayer, to: tooBig.vault, data: tooBig.data },
        { from: stranger, to: good.vault, data: good.data },
        { from: relayer, to: good.vault, data: batchCalldata([good.request, tooBig.request]) },
      ],
    );
    expect(outcomes[0]!.ok).toBe(false);
    expect(decodeRevert(outcomes[0]!.result)).toMatch(/^ExceedsPerTxLimit\(/);
    expect(outcomes[1]!.ok).toBe(false);
    expect(decodeRevert(outcomes[1]!.result)).toBe("NotAuthorizedRelayer()");
    expect(outcomes[2]!.ok).toBe(true);
    expect(decodeFunctionResult({ abi: vaultAbi, functionName: "executePaymentBatch", data: outcomes[2]!.result })).toEqual([true, false]);
  });

  describe("simulateOutflows", () => {
    const zero = "0x0000000000000000000000000000000000000000" as Address;

    /** A bot-signed executeProtocol that supplies `amount` USDC to the lending pool (approved by the owner first). */
    async function supplyCall(amount: bigint) {
      const m = devnet.manifest;
      const owner = privateKeyToAccount(m.accounts.owner.privateKey as Hex);
      const lending = m.contracts.lending as Address;
      const vault = m.contracts.vault as Address;
      const clients = clientsFor(devnet.chain.provider, m.chainId);
      const hash = await clients.walletFor(owner).writeContract({
        address: vault, abi: vaultAbi, functionName: "approveProtocol", args: [lending], chain: null, account: owner,
      } as never);
      await clients.publicClient.waitForTransactionReceipt({ hash });
      const usdc = m.tokens.USDC!.address as Address;
      const bot = privateKeyToAccount(m.accounts.bots.default.privateKey as Hex);
      const callData = encodeFunctionData({ abi: readArtifact("mocks/MockLendingPool").abi, functionName: "supply", args: [usdc, amount] });
      const intent: ExecuteIntent = {
        bot: bot.address, protocol: lending, calldataHash: keccak256(callData), tokens: [usdc], amounts: [amount],
        value: 0n, deadline: defaultDeadline(), ref: randomRef(),
      };
      const signature = await signExecuteIntent(bot, m.domain as never, intent);
      const data = encodeFunctionData({ abi: vaultAbi, functionName: "executeProtocol", args: [intent, signature, callData] });
      return { vault, usdc, weth: m.tokens.WETH!.address as Address, data, clients };
    }

    it("reports exactly what a protocol call takes out of the vault, and nothing persists", async () => {
      const { vault, usdc, weth, data, clients } = await supplyCall(1_234_567n);
      const balance = (token: Address) =>
        clients.publicClient.readContract({ address: token, abi: readArtifact("mocks/MockERC20").abi, functionName: "balanceOf", args: [vault] }) as Promise<bigint>;
      const [usdcBefore, wethBefore, ethBefore] = [await balance(usdc), await balance(weth), await clients.publicClient.getBalance({ address: vault })];
      const block = await runtime.latestBlock();

      const sim = await runtime.simulateOutflows(relayer, vault, data, [usdc, weth, zero], block);
      expect(sim).toBeDefined();
      expect(sim!.ok).toBe(true);
      expect(sim!.outflows).toEqual([1_234_567n, 0n, 0n]);
      expect(sim!.ethOutflow).toBe(0n);

      // Nothing persisted: balances, and the intent is still unused (the same call simulates again).
      expect([await balance(usdc), await balance(weth), await clients.publicClient.getBalance({ address: vault })]).toEqual([usdcBefore, wethBefore, ethBefore]);
      expect((await runtime.simulateOutflows(relayer, vault, data, [usdc], block))!.outflows).toEqual([1_234_567n]);
    });

    it("runs from the relayer key's address: from a stranger the vault refuses and nothing is reported out", async () => {
      const { vault, usdc, data } = await supplyCall(5n);
      const stranger = privateKeyToAccount(`0x${"5a".repeat(32)}`).address;
      const sim = await runtime.simulateOutflows(stranger, vault, data, [usdc], await runtime.latestBlock());
      expect(sim!.ok).toBe(false);
      expect(decodeRevert(sim!.result)).toBe("NotAuthorizedRelayer()");
      expect(sim!.outflows).toEqual([0n]);
    });
  });

  describe("the lens's owner-policy fields", () => {
    const write = async (from: "owner" | "deployer", address: Address, contract: string, functionName: string, args: readonly unknown[]) => {
      const m = devnet.manifest;
      const key = (from === "owner" ? m.accounts.owner : m.accounts.deployer ?? m.accounts.owner).privateKey as Hex;
      const account = privateKeyToAccount(key);
      const clients = clientsFor(devnet.chain.provider, m.chainId);
      const hash = await clients.walletFor(account).writeContract({ address, abi: readArtifact(contract).abi, functionName, args, chain: null, account } as never);
      await clients.publicClient.waitForTransactionReceipt({ hash });
    };

    it("reports a cancelled intent, the swap floor and tolerance, and the bot's swap window, on both lens paths", async () => {
      const p = await payment();
      const m = devnet.manifest;
      await write("owner", p.vault, "ServiceVault", "cancelIntent", [p.query.intentHash]);
      await write("owner", p.vault, "ServiceVault", "setBotSwapLimit", [p.query.bot, 500_000_000n, 86_400n]);
      const usdc = m.tokens.USDC!.address as Address;
      const weth = m.tokens.WETH!.address as Address;
      const swap: SnapshotQuery = { vault: p.vault, bot: p.query.bot, tokens: [usdc], amounts: [300_000_000n], intentHash: p.query.intentHash, toToken: weth };
      const clients = clientsFor(devnet.chain.provider, m.chainId);
      const floor = (await clients.publicClient.readContract({
        address: p.vault, abi: vaultAbi, functionName: "swapFloor", args: [usdc, weth, 300_000_000n],
      })) as bigint;
      expect(floor).toBeGreaterThan(0n);

      const [pay, sw] = await runtime.snapshots([p.query, swap]);
      expect(pay!.intentCancelled).toBe(true);
      expect([pay!.swapSlippageBps, pay!.swapFloor]).toEqual([0n, 0n]); // not a swap query
      expect(sw).toMatchObject({ swapSlippageBps: 100n, swapFloor: floor, swapLimit: { amount: 500_000_000n, maxCount: 0n, windowSeconds: 86_400n } });
      expect(pay!.swapLimit).toEqual({ amount: 0n, maxCount: 0n, windowSeconds: 0n }); // read for swap queries only
      const { snapshots } = await runtime.readAndSimulate([p.query, swap], []);
      expect(snapshots).toEqual(await runtime.snapshots([p.query, swap], snapshots[0]!.blockNumber));
    });

    it("tells a stale feed (priceStale) from a missing one (priced false only)", async () => {
      const m = devnet.manifest;
      const p = await payment();
      const feed = m.contracts.priceFeeds.USDC as Address;
      const block = await devnet.chain.provider.request({ method: "eth_getBlockByNumber", params: ["latest", false] } as never) as { timestamp: Hex };
      await write("deployer", feed, "mocks/MockPriceFeed", "setUpdatedAt", [BigInt(block.timestamp) - 2n * 86_400n]);
      try {
        const stale = await runtime.snapshot(p.query);
        expect([stale.priced, stale.priceStale]).toEqual([false, true]);
        const noFeed = await runtime.snapshot({ ...p.query, tokens: ["0x00000000000000000000000000000000000f00d0"], amounts: [1n] });
        expect([noFeed.priced, noFeed.priceStale]).toEqual([false, false]);
      } finally {
        await write("deployer", feed, "mocks/MockPriceFeed", "setUpdatedAt", [0n]);
      }
      const fresh = await runtime.snapshot(p.query);
      expect([fresh.priced, fresh.priceStale]).toEqual([true, false]);
    });
  });
});
