// Shared fixture for the contract tests: one in-process chain per test file, with the registry,
// a factory, a vault owned by account 0, the mock tokens, feeds, router, NFT, marketplace and pool.
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  getAddress,
  keccak256,
  parseEventLogs,
  zeroAddress,
  type Abi,
  type AbiItem,
  type Address,
  type Hex,
  type LocalAccount,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import type { BotConfigParams } from "../../src/chain/vault-config.ts";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { startChain, type LocalChain } from "../../src/chain/hardhat.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import { intentTypes, type ExecuteIntent, type PaymentIntent, type SwapIntent, type VaultDomain } from "../../packages/client/src/intent-types.ts";
import { gasWithHeadroom } from "../../packages/client/src/gas.ts";

export const account = (index: number): LocalAccount => privateKeyToAccount(devKeyPair(index).privateKey);

export const USD = (dollars: number): bigint => BigInt(Math.round(dollars * 1e6));
export const PRICE = (dollars: number): bigint => BigInt(Math.round(dollars * 1e8)); // 8-decimal feeds

const ARTIFACTS = [
  "ServiceVault",
  "ServiceRegistry",
  "ServiceVaultFactory",
  "mocks/MockERC20",
  "mocks/MockPriceFeed",
  "mocks/MockSwapRouter",
  "mocks/MockNFT",
  "mocks/MockMarketplace",
  "mocks/MockLendingPool",
  "mocks/MockAllowanceTransfer",
  "mocks/MockMulticallToken",
  "mocks/MockERC1155",
] as const;
export type ArtifactName = (typeof ARTIFACTS)[number];

/** Every error of every contract, so a revert bubbling up from anywhere decodes by name. */
const allErrors: AbiItem[] = (() => {
  const seen = new Map<string, AbiItem>();
  for (const name of ARTIFACTS) {
    for (const item of readArtifact(name).abi) {
      if (item.type !== "error") continue;
      seen.set(`${item.name}(${item.inputs.map((i) => i.type).join(",")})`, item);
    }
  }
  return [...seen.values()];
})();

export function abiOf(name: ArtifactName): Abi {
  const own = readArtifact(name).abi;
  return [...own, ...allErrors.filter((e) => !own.some((o) => o.type === "error" && o.name === (e as { name: string }).name))];
}

export interface Revert {
  name: string;
  args: readonly unknown[];
}

/** Runs `fn`, which must revert; returns the decoded custom error (or `Error` with the reason string). */
export async function revertOf(fn: () => Promise<unknown>): Promise<Revert> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof BaseError)) throw err;
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) {
      if (reverted.data !== undefined) return { name: reverted.data.errorName, args: reverted.data.args ?? [] };
      if (reverted.reason !== undefined) return { name: "Error", args: [reverted.reason] };
    }
    throw err;
  }
  throw new Error("expected a revert, but the call succeeded");
}

export interface Tokens {
  usdc: Address;
  dai: Address;
  weth: Address;
  wbtc: Address;
}

export interface Fixture {
  chain: LocalChain;
  clients: Clients;
  chainId: number;
  owner: LocalAccount;
  bot: LocalAccount;
  relayer: LocalAccount;
  operator: LocalAccount;
  stranger: LocalAccount;
  bot2: LocalAccount;
  registry: Address;
  factory: Address;
  vault: Address;
  tokens: Tokens;
  feeds: Tokens & { eth: Address };
  router: Address;
  nft: Address;
  marketplace: Address;
  lending: Address;
  deploy(name: ArtifactName, args?: readonly unknown[], from?: LocalAccount): Promise<Address>;
  write(from: LocalAccount, to: Address, name: ArtifactName, fn: string, args?: readonly unknown[], value?: bigint): Promise<TransactionReceipt>;
  simulate<T = unknown>(from: LocalAccount, to: Address, name: ArtifactName, fn: string, args?: readonly unknown[], value?: bigint): Promise<T>;
  read<T = unknown>(to: Address, name: ArtifactName, fn: string, args?: readonly unknown[]): Promise<T>;
  events(receipt: TransactionReceipt, name: ArtifactName, eventName: string): { args: Record<string, unknown>; address: Address }[];
  now(): Promise<bigint>;
  increaseTime(seconds: number): Promise<void>;
  domainOf(vault: Address): Promise<VaultDomain>;
  newVault(owner?: LocalAccount): Promise<Address>;
  balanceOf(token: Address, holder: Address): Promise<bigint>;
  signPayment(signer: LocalAccount, intent: PaymentIntent, vault?: Address): Promise<Hex>;
  signExecute(signer: LocalAccount, intent: ExecuteIntent, vault?: Address): Promise<Hex>;
  signSwap(signer: LocalAccount, intent: SwapIntent, vault?: Address): Promise<Hex>;
  signReview(signer: LocalAccount, intentHash: Hex, deadline: bigint, vault?: Address): Promise<Hex>;
  payment(over?: Partial<PaymentIntent>): Promise<PaymentIntent>;
  ref(label: string): Hex;
}

let refCounter = 0;

export async function setupFixture(options: { chainId?: number; domainName?: string } = {}): Promise<Fixture> {
  const chain = await startChain({ chainId: options.chainId ?? 84532 });
  const clients = clientsFor(chain.provider, chain.chainId);
  const pc = clients.publicClient;
  const [owner, bot, relayer, operator, stranger, bot2] = [0, 1, 2, 3, 4, 5].map(account) as [
    LocalAccount, LocalAccount, LocalAccount, LocalAccount, LocalAccount, LocalAccount,
  ];

  const deploy: Fixture["deploy"] = async (name, args = [], from = owner) => {
    const artifact = readArtifact(name);
    const hash = await clients.walletFor(from).deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    const receipt = await pc.waitForTransactionReceipt({ hash });
    if (receipt.contractAddress == null) throw new Error(`deploying ${name} failed`);
    return getAddress(receipt.contractAddress);
  };
  const simulate: Fixture["simulate"] = async (from, to, name, fn, args = [], value) => {
    const { result } = await pc.simulateContract({ account: from, address: to, abi: abiOf(name), functionName: fn, args, value });
    return result as never;
  };
  const write: Fixture["write"] = async (from, to, name, fn, args = [], value) => {
    const call = { account: from, address: to, abi: abiOf(name), functionName: fn, args, value };
    const { request } = await pc.simulateContract(call);
    // The estimate with headroom, as relay's own senders send it: mined a second after the estimate, a
    // policy update rewrites bucket words the estimate found unchanged (test/chain/sender.test.ts).
    const gas = gasWithHeadroom(await pc.estimateContractGas(call));
    const hash = await clients.walletFor(from).writeContract({ ...request, gas } as never);
    const receipt = await pc.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${fn} reverted on-chain`);
    return receipt;
  };
  const read: Fixture["read"] = async (to, name, fn, args = []) =>
    (await pc.readContract({ address: to, abi: abiOf(name), functionName: fn, args })) as never;
  const events: Fixture["events"] = (receipt, name, eventName) =>
    parseEventLogs({ abi: abiOf(name), logs: receipt.logs, eventName }).map((l) => ({
      args: l.args as Record<string, unknown>,
      address: l.address,
    }));

  const registry = await deploy("ServiceRegistry");
  const factory = await deploy("ServiceVaultFactory", [registry, options.domainName ?? "ServiceVault"]);
  const token = (name: string, symbol: string, decimals: number) => deploy("mocks/MockERC20", [name, symbol, decimals]);
  const tokens: Tokens = {
    usdc: await token("USD Coin", "USDC", 6),
    dai: await token("Dai Stablecoin", "DAI", 18),
    weth: await token("Wrapped Ether", "WETH", 18),
    wbtc: await token("Wrapped BTC", "WBTC", 8),
  };
  const feed = (price: number, label: string) => deploy("mocks/MockPriceFeed", [8, PRICE(price), label]);
  const feeds = {
    usdc: await feed(1, "USDC / USD"),
    dai: await feed(1, "DAI / USD"),
    weth: await feed(3000, "ETH / USD"),
    wbtc: await feed(60000, "BTC / USD"),
    eth: await feed(3000, "ETH / USD"),
  };
  const router = await deploy("mocks/MockSwapRouter", [registry]);
  const nft = await deploy("mocks/MockNFT");
  const marketplace = await deploy("mocks/MockMarketplace", [tokens.usdc]);
  const lending = await deploy("mocks/MockLendingPool");

  const reg = (fn: string, args: readonly unknown[]) => write(owner, registry, "ServiceRegistry", fn, args);
  await reg("addRelayer", [relayer.address]);
  for (const t of [tokens.usdc, tokens.dai, tokens.weth]) await reg("approveDefaultToken", [t]);
  // The default rebalance whitelist is its own, narrower list: DAI is a default token but not on it.
  for (const t of [tokens.usdc, tokens.weth]) await reg("addDefaultRebalanceToken", [t]);
  for (const k of ["usdc", "dai", "weth", "wbtc"] as const) await reg("setPriceFeed", [tokens[k], feeds[k]]);
  await reg("setPriceFeed", [zeroAddress, feeds.eth]);
  await reg("addSwapRouter", [router]);
  for (const t of [tokens.weth, tokens.dai, tokens.wbtc]) {
    await write(owner, router, "mocks/MockSwapRouter", "setPairEnabled", [tokens.usdc, t, true]);
  }

  const newVault: Fixture["newVault"] = async (vaultOwner = owner) => {
    const receipt = await write(vaultOwner, factory, "ServiceVaultFactory", "deployVault");
    const [deployed] = events(receipt, "ServiceVaultFactory", "VaultDeployed");
    return deployed!.args.vault as Address;
  };
  const vault = await newVault(owner);
  await write(owner, vault, "ServiceVault", "addBotWithPolicy", [bot.address, emptyConfig()]);
  await write(owner, tokens.usdc, "mocks/MockERC20", "mint", [vault, USD(10_000)]);
  await write(owner, tokens.weth, "mocks/MockERC20", "mint", [vault, 10n ** 19n]);
  await clients.walletFor(owner).sendTransaction({ to: vault, value: 10n ** 19n }).then((hash) => pc.waitForTransactionReceipt({ hash }));

  const domainCache = new Map<Address, VaultDomain>();
  const domainOf: Fixture["domainOf"] = async (v) => {
    let d = domainCache.get(v);
    if (d === undefined) {
      const [, name, version, chainId, verifyingContract] = await read<[Hex, string, string, bigint, Address]>(v, "ServiceVault", "eip712Domain");
      d = { name, version, chainId: Number(chainId), verifyingContract };
      domainCache.set(v, d);
    }
    return d;
  };
  const now = async () => (await pc.getBlock()).timestamp;

  const fixture: Fixture = {
    chain, clients, chainId: chain.chainId, owner, bot, relayer, operator, stranger, bot2,
    registry, factory, vault, tokens, feeds, router, nft, marketplace, lending,
    deploy, write, simulate, read, events, now, domainOf, newVault,
    async increaseTime(seconds) {
      await chain.provider.request({ method: "evm_increaseTime", params: [seconds] } as never);
      await chain.provider.request({ method: "evm_mine", params: [] } as never);
    },
    balanceOf: (t, holder) => read<bigint>(t, "mocks/MockERC20", "balanceOf", [holder]),
    signPayment: async (signer, intent, v = vault) =>
      signer.signTypedData({ domain: await domainOf(v), types: { PaymentIntent: intentTypes.PaymentIntent }, primaryType: "PaymentIntent", message: intent }),
    signExecute: async (signer, intent, v = vault) =>
      signer.signTypedData({ domain: await domainOf(v), types: { ExecuteIntent: intentTypes.ExecuteIntent }, primaryType: "ExecuteIntent", message: intent }),
    signSwap: async (signer, intent, v = vault) =>
      signer.signTypedData({ domain: await domainOf(v), types: { SwapIntent: intentTypes.SwapIntent }, primaryType: "SwapIntent", message: intent }),
    signReview: async (signer, intentHash, deadline, v = vault) =>
      signer.signTypedData({
        domain: await domainOf(v),
        types: { ReviewApproval: intentTypes.ReviewApproval },
        primaryType: "ReviewApproval",
        message: { intentHash, deadline },
      }),
    async payment(over = {}) {
      return {
        bot: bot.address,
        to: account(6).address,
        token: tokens.usdc,
        amount: USD(10),
        deadline: (await now()) + 300n,
        ref: fixture.ref("payment"),
        ...over,
      };
    },
    ref: (label) => keccak256(new TextEncoder().encode(`${label}-${++refCounter}`)),
  };
  return fixture;
}

/** A bot configuration with nothing set (no caps). */
export function emptyConfig(over: Partial<BotConfig> = {}): BotConfig {
  return {
    maxPerTxAmount: 0n,
    maxRebalanceAmount: 0n,
    spendingLimits: [],
    aiTriggerThreshold: 0n,
    requireAiVerification: false,
    requireHumanReview: false,
    ...over,
  };
}

export type BotConfig = BotConfigParams;

/** The production vault's BotLimits (its addBot / updateBotConfig): `config` without requireHumanReview. */
export function limitsOf(config: BotConfig): Omit<BotConfig, "requireHumanReview"> {
  const { requireHumanReview: _, ...limits } = config;
  return limits;
}

/** An ExecuteIntent for `callData` on `protocol`, with its calldataHash filled in. */
export function executeIntent(
  f: Fixture,
  protocol: Address,
  callData: Hex,
  deadline: bigint,
  over: Partial<ExecuteIntent> = {},
): ExecuteIntent {
  return { bot: f.bot.address, protocol, calldataHash: keccak256(callData), tokens: [], amounts: [], value: 0n, deadline, ref: f.ref("execute"), ...over };
}

export function calldata(name: ArtifactName, fn: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: readArtifact(name).abi, functionName: fn, args });
}
