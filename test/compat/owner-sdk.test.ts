// The production SDK's owner side, unmodified, against the real `relay serve --domain-name AxonVault`:
// its own helpers and ABIs (deployVault, predictVaultAddress, addBot, getBotConfig, updateBotConfig,
// removeBot, deposit, the operator's ceilings, ERC-1271, version, slippage preview, rebalance list,
// destination checks) on relay's factory and vault, then a bot added this way pays through relay.
// Every answer is checked against the chain as relay's own ABI reads it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, parseEventLogs, toEventSelector, toFunctionSelector, type Abi, type AbiEvent, type AbiFunction, type Address, type Hex, type PublicClient, type WalletClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { projectRoot } from "../../src/paths.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

// The production SDK's build (MIT), from where it sits beside the checkout (../shared/axon-sdk) or
// where RELAY_AXON_SDK names it; without it this file is reported skipped, by name.
const SDK = process.env.RELAY_AXON_SDK ?? path.join(projectRoot, "..", "shared", "axon-sdk", "dist", "index.js");

type Ceilings = { maxPerTxAmount: bigint; maxBotDailyLimit: bigint; maxOperatorBots: bigint; vaultDailyAggregate: bigint; minAiTriggerFloor: bigint };
type BotInput = { maxPerTxAmount: number; maxRebalanceAmount: number; spendingLimits: { amount: number; maxCount: number; windowSeconds: number }[]; aiTriggerThreshold: number; requireAiVerification: boolean };
/** The SDK's exports this file uses, as the SDK declares them. */
interface Sdk {
  AxonVaultAbi: Abi;
  AxonVaultFactoryAbi: Abi;
  AxonRegistryAbi: Abi;
  WINDOW: { ONE_HOUR: bigint; ONE_DAY: bigint };
  deployVault(w: WalletClient, p: PublicClient, relayerUrl: string): Promise<Address>;
  predictVaultAddress(p: PublicClient, owner: Address, nonce: number, relayerUrl: string): Promise<Address>;
  addBot(w: WalletClient, p: PublicClient, vault: Address, bot: Address, config: BotInput): Promise<Hex>;
  updateBotConfig(w: WalletClient, p: PublicClient, vault: Address, bot: Address, config: BotInput): Promise<Hex>;
  removeBot(w: WalletClient, p: PublicClient, vault: Address, bot: Address): Promise<Hex>;
  getBotConfig(p: PublicClient, vault: Address, bot: Address): Promise<Record<string, unknown>>;
  isBotActive(p: PublicClient, vault: Address, bot: Address): Promise<boolean>;
  deposit(w: WalletClient, p: PublicClient, vault: Address, token: string, amount: bigint, ref?: Hex): Promise<Hex>;
  encodeRef(text: string): Hex;
  getOperatorCeilings(p: PublicClient, vault: Address): Promise<Ceilings>;
  operatorMaxDrainPerDay(c: Ceilings): number;
  isErc1271BotsEnabled(p: PublicClient, vault: Address): Promise<boolean>;
  getVaultVersion(p: PublicClient, vault: Address): Promise<number>;
  getVaultOwner(p: PublicClient, vault: Address): Promise<Address>;
  getVaultOperator(p: PublicClient, vault: Address): Promise<Address>;
  isVaultPaused(p: PublicClient, vault: Address): Promise<boolean>;
  getDomainSeparator(p: PublicClient, vault: Address): Promise<Hex>;
  previewSwapSlippage(p: PublicClient, vault: Address, from: Address, fromAmount: bigint, to: Address, toAmount: bigint): Promise<{ wouldPass: boolean; fromUsd: bigint; toUsd: bigint; minToUsd: bigint }>;
  getMaxSwapSlippageBps(p: PublicClient, vault: Address): Promise<bigint>;
  getRebalanceTokenCount(p: PublicClient, vault: Address): Promise<number>;
  isRebalanceTokenWhitelisted(p: PublicClient, vault: Address, token: Address): Promise<boolean>;
  isDestinationAllowed(p: PublicClient, vault: Address, bot: Address, to: Address): Promise<{ allowed: boolean; reason?: string }>;
  AxonClient: new (config: Record<string, unknown>) => {
    pay(input: Record<string, unknown>): Promise<{ requestId: string; status: string; txHash?: string; reason?: string }>;
    poll(requestId: string): Promise<{ status: string; txHash?: string }>;
  };
}

const VAULT_ABI = readArtifact("ServiceVault").abi;
const FACTORY_ABI = readArtifact("ServiceVaultFactory").abi;
const REGISTRY_ABI = readArtifact("ServiceRegistry").abi;
const usd = (dollars: number) => BigInt(Math.round(dollars * 1e6));

describe.skipIf(!existsSync(SDK))("the production SDK's owner helpers on the devnet (relay serve --domain-name AxonVault, the SDK at ../shared/axon-sdk or RELAY_AXON_SDK)", () => {
  const stateDir = tempDir("relay-owner-sdk-");
  let relay: SpawnedRelay;
  let manifest: Manifest;
  let sdk: Sdk;
  let pc: PublicClient;
  let relayerUrl: string;
  let usdc: Address;
  let weth: Address;
  let vault: Address;
  const ownerKey = generatePrivateKey();
  const owner = privateKeyToAccount(ownerKey);
  const depositorKey = generatePrivateKey();
  const depositor = privateKeyToAccount(depositorKey);
  const operatorKey = generatePrivateKey();
  const operator = privateKeyToAccount(operatorKey);
  const botKey = generatePrivateKey();
  const bot = privateKeyToAccount(botKey);
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  let wallets: Record<"owner" | "depositor" | "operator", WalletClient>;

  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    pc.readContract({ address: vault, abi: VAULT_ABI, functionName, args }) as Promise<T>;
  const balance = (token: Address, who: Address) => pc.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  /** A write through the SDK's own ABI, as a script on the SDK would send it; its receipt. */
  async function sdkWrite(who: keyof typeof wallets, functionName: string, args: readonly unknown[]) {
    const w = wallets[who];
    const hash = await w.writeContract({ address: vault, abi: sdk.AxonVaultAbi, functionName, args, account: w.account!, chain: w.chain } as never);
    return pc.waitForTransactionReceipt({ hash });
  }
  /** The SDK-ABI error name a call reverts with (simulated: nothing is sent). */
  async function sdkRevert(who: keyof typeof wallets, functionName: string, args: readonly unknown[], value?: bigint): Promise<string> {
    const w = wallets[who];
    const abi = [...sdk.AxonVaultAbi, ...VAULT_ABI.filter((i) => i.type === "error")];
    try {
      await pc.simulateContract({ address: vault, abi, functionName, args, account: w.account!, value } as never);
    } catch (error) {
      const cause = (error as { cause?: { data?: { errorName?: string } } }).cause;
      return cause?.data?.errorName ?? "unknown";
    }
    return "none";
  }
  const setBalance = (who: Address, wei: bigint) => pc.request({ method: "hardhat_setBalance" as never, params: [who, `0x${wei.toString(16)}`] as never });
  const mint = async (token: Address, to: Address, amount: bigint) => {
    const minter = createWalletClient({ account: privateKeyToAccount(manifest.accounts.owner.privateKey as Hex), chain: wallets.owner.chain!, transport: http(manifest.rpcUrl) });
    const hash = await minter.writeContract({ address: token, abi: readArtifact("mocks/MockERC20").abi, functionName: "mint", args: [to, amount] });
    await pc.waitForTransactionReceipt({ hash });
  };

  beforeAll(async () => {
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--domain-name", "AxonVault"]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
    relayerUrl = manifest.relayerUrl!;
    usdc = manifest.tokens.USDC!.address as Address;
    weth = manifest.tokens.WETH!.address as Address;
    sdk = (await import(SDK)) as Sdk;
    const chain = defineChain({ id: manifest.chainId, name: "relay devnet", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [manifest.rpcUrl] } } });
    pc = createPublicClient({ chain, transport: http(manifest.rpcUrl) }) as PublicClient;
    const wallet = (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(manifest.rpcUrl) });
    wallets = { owner: wallet(ownerKey), depositor: wallet(depositorKey), operator: wallet(operatorKey) };
    for (const who of [owner.address, depositor.address, operator.address]) await setBalance(who, 10n ** 20n);
  }, 180_000);
  afterAll(() => {
    if (relay?.child.exitCode === null) relay.child.kill("SIGKILL");
  });

  it("the SDK's vault, factory and registry ABIs are relay's, but for what relay keeps its own (docs/design.md)", () => {
    const outputs = (f: AbiFunction) => JSON.stringify(f.outputs.map((o) => [o.type, "components" in o ? o.components?.map((c) => c.type) : undefined]));
    const missing = (sdkAbi: Abi, ours: Abi) => {
      const functions = new Map(ours.filter((i): i is AbiFunction => i.type === "function").map((f) => [toFunctionSelector(f), f]));
      const events = new Map(ours.filter((i): i is AbiEvent => i.type === "event").map((e) => [toEventSelector(e), e]));
      const gaps: string[] = [];
      for (const item of sdkAbi) {
        if (item.type === "function") {
          const mine = functions.get(toFunctionSelector(item));
          if (mine === undefined) gaps.push(`function ${item.name}`);
          else if (outputs(mine) !== outputs(item)) gaps.push(`returns of ${item.name}`);
          else if ((mine.stateMutability === "view" || mine.stateMutability === "pure") !== (item.stateMutability === "view" || item.stateMutability === "pure")) gaps.push(`mutability of ${item.name}`);
        } else if (item.type === "event") {
          const mine = events.get(toEventSelector(item));
          if (mine === undefined) gaps.push(`event ${item.name}`);
          else if (mine.inputs.some((input, k) => Boolean(input.indexed) !== Boolean(item.inputs[k]!.indexed))) gaps.push(`indexing of ${item.name}`);
        }
      }
      return gaps.sort();
    };
    // What relay keeps its own: its executions return the intent's hash and emit its own events; a clone
    // is initialized with its owner only; the vault signs nothing for its bots (ERC-1271 off).
    expect(missing(sdk.AxonVaultAbi, VAULT_ABI)).toEqual([
      "event Initialized",
      "event OracleCheckSkipped",
      "event PaymentExecuted",
      "event ProtocolExecuted",
      "event SwapExecuted",
      "function initialize",
      "returns of MAX_SPENDING_LIMITS",
      "returns of executePayment",
      "returns of executeProtocol",
      "returns of executeSwap",
    ]);
    // The factory has no owner of its own (nothing in it is administered).
    expect(missing(sdk.AxonVaultFactoryAbi, FACTORY_ABI)).toEqual([
      "event OwnershipTransferStarted",
      "event OwnershipTransferred",
      "function acceptOwnership",
      "function owner",
      "function pendingOwner",
      "function renounceOwnership",
      "function transferOwnership",
    ]);
    // The registry prices with Chainlink-style feeds per token (setPriceFeed), not a Uniswap oracle.
    expect(missing(sdk.AxonRegistryAbi, REGISTRY_ABI)).toEqual([
      "event OracleConfigUpdated",
      "function setOracleConfig",
      "function uniswapV3Factory",
      "function usdcAddress",
      "function wethAddress",
    ]);
  });

  it("deployVault deploys at the address predictVaultAddress(owner, nonce) gave, owned by the caller", async () => {
    const predicted = await sdk.predictVaultAddress(pc, owner.address, 0, relayerUrl);
    expect(await pc.getCode({ address: predicted })).toBeUndefined();
    vault = await sdk.deployVault(wallets.owner, pc, relayerUrl);
    expect(vault.toLowerCase()).toBe(predicted.toLowerCase());
    expect(await pc.readContract({ address: manifest.contracts.factory as Address, abi: FACTORY_ABI, functionName: "isVault", args: [vault] })).toBe(true);
    expect(await sdk.getVaultOwner(pc, vault)).toBe(owner.address);
    // The next one is nonce 1, somewhere else.
    const next = await sdk.predictVaultAddress(pc, owner.address, 1, relayerUrl);
    expect(next).not.toBe(predicted);
    expect(await pc.readContract({ address: manifest.contracts.factory as Address, abi: sdk.AxonVaultFactoryAbi, functionName: "ownerVaultCount", args: [owner.address] })).toBe(1n);
    // The vault signs on the production domain name.
    const [, name] = await read<[Hex, string]>("eip712Domain");
    expect(name).toBe("AxonVault");
    expect(await sdk.getDomainSeparator(pc, vault)).toMatch(/^0x[0-9a-f]{64}$/);
  });

  const limits: BotInput = {
    maxPerTxAmount: 100,
    maxRebalanceAmount: 50,
    spendingLimits: [{ amount: 500, maxCount: 20, windowSeconds: 86_400 }],
    aiTriggerThreshold: 0,
    requireAiVerification: false,
  };

  it("addBot then getBotConfig: what was set, active, with the time it was added", async () => {
    await sdk.addBot(wallets.owner, pc, vault, bot.address, limits);
    const block = await pc.getBlock();
    expect(await sdk.getBotConfig(pc, vault, bot.address)).toEqual({
      isActive: true,
      registeredAt: block.timestamp,
      maxPerTxAmount: usd(100),
      maxRebalanceAmount: usd(50),
      spendingLimits: [{ amount: usd(500), maxCount: 20n, windowSeconds: 86_400n }],
      aiTriggerThreshold: 0n,
      requireAiVerification: false,
    });
    expect(await sdk.isBotActive(pc, vault, bot.address)).toBe(true);
    // Relay's own reading of the same bot: no mandatory human review when added this way.
    expect(await read<{ requireHumanReview: boolean; maxPerTxAmount: bigint }>("getBotPolicy", [bot.address])).toMatchObject({ requireHumanReview: false, maxPerTxAmount: usd(100) });
  });

  it("updateBotConfig replaces the limits; a bot relay holds for human review keeps that rule", async () => {
    await sdk.updateBotConfig(wallets.owner, pc, vault, bot.address, { ...limits, maxPerTxAmount: 200, aiTriggerThreshold: 150 });
    expect(await sdk.getBotConfig(pc, vault, bot.address)).toMatchObject({ isActive: true, maxPerTxAmount: usd(200), aiTriggerThreshold: usd(150) });
    // A reviewed bot (relay's policy) updated through the production shape stays reviewed.
    const reviewed = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await wallets.owner.writeContract({ address: vault, abi: VAULT_ABI, functionName: "addBotWithPolicy", args: [reviewed, { maxPerTxAmount: 0n, maxRebalanceAmount: 0n, spendingLimits: [], aiTriggerThreshold: 0n, requireAiVerification: false, requireHumanReview: true }], account: owner, chain: wallets.owner.chain });
    await pc.waitForTransactionReceipt({ hash });
    await sdk.updateBotConfig(wallets.owner, pc, vault, reviewed, limits);
    expect(await read<{ requireHumanReview: boolean; maxPerTxAmount: bigint }>("getBotPolicy", [reviewed])).toMatchObject({ requireHumanReview: true, maxPerTxAmount: usd(100) });
    // Only the owner changes limits: the operator and a stranger cannot.
    expect(await sdkRevert("depositor", "updateBotConfig", [bot.address, { ...limits, maxPerTxAmount: 10n ** 12n, maxRebalanceAmount: 0n, spendingLimits: [], aiTriggerThreshold: 0n }])).toBe("NotOwner");
  });

  it("deposit: anyone funds the vault in a token or ETH with a ref, and the owner reads it in Deposited", async () => {
    await mint(usdc, depositor.address, usd(1_000));
    const ref = sdk.encodeRef("invoice 42");
    const before = await balance(usdc, vault);
    const hash = await sdk.deposit(wallets.depositor, pc, vault, usdc, usd(1_000), ref);
    expect(await balance(usdc, vault)).toBe(before + usd(1_000));
    const receipt = await pc.getTransactionReceipt({ hash });
    const [event] = parseEventLogs({ abi: sdk.AxonVaultAbi, logs: receipt.logs, eventName: "Deposited" }) as unknown as { args: { from: Address; token: Address; amount: bigint; ref: Hex } }[];
    expect(event?.args).toEqual({ from: depositor.address, token: usdc, amount: usd(1_000), ref });
    // The owner finds it later by its ref, from the chain's logs.
    const logs = await pc.getContractEvents({ address: vault, abi: sdk.AxonVaultAbi, eventName: "Deposited", fromBlock: 0n });
    expect(logs.map((l) => (l as unknown as { args: { ref: Hex } }).args.ref)).toContain(ref);
    const ethBefore = await pc.getBalance({ address: vault });
    await sdk.deposit(wallets.depositor, pc, vault, "ETH", 10n ** 16n);
    expect(await pc.getBalance({ address: vault })).toBe(ethBefore + 10n ** 16n);
    // ETH sent with a token deposit, or a wrong ETH amount, is refused.
    const eth = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
    expect(await sdkRevert("depositor", "deposit", [usdc, 1n, ref], 1n)).toBe("UnexpectedETH");
    expect(await sdkRevert("depositor", "deposit", [eth, 2n, ref], 1n)).toBe("AmountMismatch");
    expect(await sdkRevert("depositor", "deposit", [usdc, 0n, ref])).toBe("ZeroAmount");
  });

  it("operatorCeilings: getOperatorCeilings and operatorMaxDrainPerDay read what the owner set; the operator adds bots only within them", async () => {
    expect(await sdk.getOperatorCeilings(pc, vault)).toEqual({ maxPerTxAmount: 0n, maxBotDailyLimit: 0n, maxOperatorBots: 0n, vaultDailyAggregate: 0n, minAiTriggerFloor: 0n });
    await sdkWrite("owner", "setOperator", [operator.address]);
    expect(await sdk.getVaultOperator(pc, vault)).toBe(operator.address);
    const ceilings = { maxPerTxAmount: usd(50), maxBotDailyLimit: usd(200), maxOperatorBots: 2n, vaultDailyAggregate: usd(300), minAiTriggerFloor: usd(40) };
    await sdkWrite("owner", "setOperatorCeilings", [ceilings]);
    const set = await sdk.getOperatorCeilings(pc, vault);
    expect(set).toEqual(ceilings);
    expect(sdk.operatorMaxDrainPerDay(set)).toBe(300);

    const within: BotInput = { maxPerTxAmount: 50, maxRebalanceAmount: 0, spendingLimits: [{ amount: 200, maxCount: 0, windowSeconds: 86_400 }], aiTriggerThreshold: 40, requireAiVerification: false };
    const first = privateKeyToAccount(generatePrivateKey()).address;
    await sdk.addBot(wallets.operator, pc, vault, first, within);
    expect(await read("botAddedByOperator", [first])).toBe(operator.address);
    const second = privateKeyToAccount(generatePrivateKey()).address;
    const asArgs = (b: BotInput) => ({
      maxPerTxAmount: usd(b.maxPerTxAmount),
      maxRebalanceAmount: usd(b.maxRebalanceAmount),
      spendingLimits: b.spendingLimits.map((l) => ({ amount: usd(l.amount), maxCount: BigInt(l.maxCount), windowSeconds: BigInt(l.windowSeconds) })),
      aiTriggerThreshold: usd(b.aiTriggerThreshold),
      requireAiVerification: b.requireAiVerification,
    });
    // Above each ceiling, refused: per tx, no per-tx cap, per day, no daily limit, AI trigger, the aggregate.
    expect(await sdkRevert("operator", "addBot", [second, asArgs({ ...within, maxPerTxAmount: 51 })])).toBe("ExceedsOperatorCeiling");
    expect(await sdkRevert("operator", "addBot", [second, asArgs({ ...within, maxPerTxAmount: 0 })])).toBe("ExceedsOperatorCeiling");
    expect(await sdkRevert("operator", "addBot", [second, asArgs({ ...within, spendingLimits: [{ amount: 201, maxCount: 0, windowSeconds: 86_400 }] })])).toBe("ExceedsOperatorCeiling");
    expect(await sdkRevert("operator", "addBot", [second, asArgs({ ...within, spendingLimits: [{ amount: 10, maxCount: 0, windowSeconds: 3_600 }] })])).toBe("ExceedsOperatorCeiling");
    expect(await sdkRevert("operator", "addBot", [second, asArgs({ ...within, spendingLimits: [] })])).toBe("ExceedsOperatorCeiling");
    expect(await sdkRevert("operator", "addBot", [second, asArgs({ ...within, aiTriggerThreshold: 0 })])).toBe("ExceedsOperatorCeiling");
    expect(await sdkRevert("operator", "addBot", [second, asArgs({ ...within, aiTriggerThreshold: 41 })])).toBe("ExceedsOperatorCeiling");
    expect(await sdkRevert("operator", "addBot", [second, asArgs(within)])).toBe("ExceedsOperatorCeiling"); // 200 + 200 > 300
    await sdk.addBot(wallets.operator, pc, vault, second, { ...within, spendingLimits: [{ amount: 100, maxCount: 0, windowSeconds: 86_400 }] });
    const third = privateKeyToAccount(generatePrivateKey()).address;
    expect(await sdkRevert("operator", "addBot", [third, asArgs({ ...within, spendingLimits: [{ amount: 1, maxCount: 0, windowSeconds: 86_400 }] })])).toBe("OperatorBotLimitReached");
    // The operator changes no limits and no ceilings.
    expect(await sdkRevert("operator", "updateBotConfig", [first, asArgs(within)])).toBe("NotOwner");
    expect(await sdkRevert("operator", "setOperatorCeilings", [{ ...ceilings, maxOperatorBots: 9n }])).toBe("NotOwner");
    // Removing one frees its place.
    await sdk.removeBot(wallets.operator, pc, vault, second);
    expect(await read("operatorBotCount")).toBe(1n);
  });

  it("isErc1271BotsEnabled is false and stays so: setErc1271Bots(true) is refused", async () => {
    expect(await sdk.isErc1271BotsEnabled(pc, vault)).toBe(false);
    expect(await sdkRevert("owner", "setErc1271Bots", [true])).toBe("Erc1271BotsUnsupported");
    await sdkWrite("owner", "setErc1271Bots", [false]);
    expect(await sdk.isErc1271BotsEnabled(pc, vault)).toBe(false);
  });

  it("getVaultVersion, isVaultPaused, getMaxSwapSlippageBps and previewSwapSlippage", async () => {
    expect(await sdk.getVaultVersion(pc, vault)).toBe(1);
    expect(await sdk.isVaultPaused(pc, vault)).toBe(false);
    expect(await sdk.getMaxSwapSlippageBps(pc, vault)).toBe(100n);
    await sdkWrite("owner", "setMaxSwapSlippageBps", [200n]);
    expect(await sdk.getMaxSwapSlippageBps(pc, vault)).toBe(200n);
    expect(await read<bigint>("swapSlippageBps")).toBe(200n); // one setting, both names
    const fromUsd = await read<bigint>("oracleUsdValue", [usdc, usd(1_000)]);
    expect(fromUsd).toBe(usd(1_000));
    const wethFor1000 = await pc.readContract({ address: manifest.contracts.registry as Address, abi: readArtifact("ServiceRegistry").abi, functionName: "amountForUsd", args: [weth, usd(1_000)] }) as bigint;
    const fair = await sdk.previewSwapSlippage(pc, vault, usdc, usd(1_000), weth, wethFor1000);
    expect(fair).toMatchObject({ wouldPass: true, fromUsd: usd(1_000), minToUsd: usd(980) });
    const short = await sdk.previewSwapSlippage(pc, vault, usdc, usd(1_000), weth, (wethFor1000 * 97n) / 100n);
    expect(short.wouldPass).toBe(false);
    expect(short.toUsd < short.minToUsd).toBe(true);
  });

  it("getRebalanceTokenCount and isRebalanceTokenWhitelisted follow the owner's list", async () => {
    expect(await sdk.getRebalanceTokenCount(pc, vault)).toBe(0);
    await sdkWrite("owner", "addRebalanceTokens", [[usdc, weth]]);
    expect(await sdk.getRebalanceTokenCount(pc, vault)).toBe(2);
    expect(await sdk.isRebalanceTokenWhitelisted(pc, vault, weth)).toBe(true);
    await sdkWrite("owner", "removeRebalanceTokens", [[weth]]);
    expect(await sdk.getRebalanceTokenCount(pc, vault)).toBe(1);
    expect(await sdk.isRebalanceTokenWhitelisted(pc, vault, weth)).toBe(false);
  });

  it("isDestinationAllowed answers as the vault's own rule (checkDestination)", async () => {
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const both = async (to: Address) => {
      const sdkAnswer = await sdk.isDestinationAllowed(pc, vault, bot.address, to);
      const [allowed] = await read<[boolean, string]>("checkDestination", [bot.address, to]);
      expect(sdkAnswer.allowed).toBe(allowed);
      return sdkAnswer;
    };
    expect(await both(merchant)).toEqual({ allowed: true });
    // approvedProtocolCount counts the owner's approvals once each.
    const protocol = manifest.contracts.lending as Address;
    const count = () => pc.readContract({ address: vault, abi: sdk.AxonVaultAbi, functionName: "approvedProtocolCount" });
    await sdkWrite("owner", "approveProtocol", [protocol]);
    await sdkWrite("owner", "approveProtocol", [protocol]);
    expect(await count()).toBe(1n);
    await sdkWrite("owner", "revokeProtocol", [protocol]);
    expect(await count()).toBe(0n);
    await sdkWrite("owner", "addGlobalBlacklist", [other]);
    expect((await both(other)).allowed).toBe(false);
    await sdkWrite("owner", "addBotDestination", [bot.address, merchant]);
    expect((await both(merchant)).allowed).toBe(true);
    expect((await both(privateKeyToAccount(generatePrivateKey()).address)).allowed).toBe(false);
    await sdkWrite("owner", "addGlobalDestination", [other]);
    expect((await both(other)).allowed).toBe(false); // the blacklist wins
    await sdkWrite("owner", "removeGlobalBlacklist", [other]);
    await sdkWrite("owner", "removeGlobalDestination", [other]);
  });

  it("the bot added with the SDK pays through relay (the SDK's AxonClient), and the chain shows it", async () => {
    const client = new sdk.AxonClient({ vaultAddress: vault, chainId: manifest.chainId, relayerUrl, botPrivateKey: botKey });
    const vaultBefore = await balance(usdc, vault);
    const merchantBefore = await balance(usdc, merchant);
    const result = await client.pay({ to: merchant, token: usdc, amount: usd(25), memo: "owner-sdk" });
    let status = result;
    for (let i = 0; i < 200 && !["approved", "rejected", "failed"].includes(status.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = { ...status, ...(await client.poll(result.requestId)) };
    }
    expect(status).toMatchObject({ status: "approved" });
    expect(await balance(usdc, merchant)).toBe(merchantBefore + usd(25));
    expect(await balance(usdc, vault)).toBe(vaultBefore - usd(25));
  });

  it("removeBot deactivates the bot: getBotConfig reads it inactive and zero, and it pays no more", async () => {
    await sdk.removeBot(wallets.owner, pc, vault, bot.address);
    expect(await sdk.isBotActive(pc, vault, bot.address)).toBe(false);
    expect(await sdk.getBotConfig(pc, vault, bot.address)).toEqual({
      isActive: false, registeredAt: 0n, maxPerTxAmount: 0n, maxRebalanceAmount: 0n, spendingLimits: [], aiTriggerThreshold: 0n, requireAiVerification: false,
    });
    const client = new sdk.AxonClient({ vaultAddress: vault, chainId: manifest.chainId, relayerUrl, botPrivateKey: botKey });
    const before = await balance(usdc, vault);
    const refused = await client.pay({ to: merchant, token: usdc, amount: usd(1) }).then(
      (r) => r,
      (error: Error) => ({ status: "refused", reason: error.message }),
    );
    expect(refused.status).not.toBe("approved");
    expect(await balance(usdc, vault)).toBe(before);
  });
});
