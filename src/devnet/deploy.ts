// Deploys the contract suite (registry, factory, mocks) and wires the registry: price feeds, default
// tokens, swap router, authorized relayer. On a supported network's chain id the mock tokens take
// that network's canonical addresses (hardhat_setCode), so bots' production addresses work unchanged;
// Permit2 and x402's Permit2 proxy take theirs on any chain id (permit2.ts).
import { getAddress, zeroAddress, type Address } from "viem";
import type { Clients } from "../chain/clients.ts";
import { readArtifact } from "../chain/artifacts.ts";
import { createSender, type Sender } from "../chain/sender.ts";
import type { KeyPair } from "./accounts.ts";
import { placePermit2 } from "./permit2.ts";
import { placeSimulatingLens } from "./simulating-lens.ts";
import { CANONICAL_TOKENS, NATIVE_PRICE_USD8, TOKENS, tokenName, type TokenSpec, type TokenSymbol } from "./tokens.ts";

/** The registry's default rebalance whitelist, in this order (DESIGN.md: USDC, WETH, USDT). */
export const DEFAULT_REBALANCE_SYMBOLS: readonly TokenSymbol[] = ["USDC", "WETH", "USDT"];

export interface SuiteOptions {
  clients: Clients;
  deployer: KeyPair;
  relayer: Address;
  domainName: string;
  /**
   * Put the mock tokens at the chain's canonical token addresses, and Permit2 and x402's Permit2
   * proxy at theirs, where free (needs `hardhat_setCode`).
   */
  canonicalTokens: boolean;
  /** How the deployer's transactions are sent (default: signed here, createSender). */
  senderFor?: SenderFor;
}

/** The sender of an account's transactions: signed here, or by a node that holds the key (sender.ts). */
export type SenderFor = (account: KeyPair) => Sender;

/** Signs each transaction here with the account's key: works on any node. */
export const signingSenders = (clients: Clients): SenderFor => (account) => createSender(clients, account.privateKey);

export interface Suite {
  registry: Address;
  factory: Address;
  router: Address;
  nft: Address;
  marketplace: Address;
  lending: Address;
  priceFeeds: Record<string, Address>;
  tokens: Record<TokenSymbol, { address: Address; decimals: number }>;
}

export async function deploySuite(options: SuiteOptions): Promise<Suite> {
  const { clients } = options;
  const deployer = (options.senderFor ?? signingSenders(clients))(options.deployer);
  const canonical = options.canonicalTokens ? CANONICAL_TOKENS[clients.chain.id] ?? {} : {};

  const registry = await deployer.deploy("ServiceRegistry");

  const priceFeeds: Record<string, Address> = {};
  const tokens = {} as Suite["tokens"];
  for (const token of TOKENS) {
    priceFeeds[token.symbol] = await deployer.deploy("mocks/MockPriceFeed", [8, token.priceUsd8, `${token.symbol} / USD`]);
    const address = await placeToken(clients, deployer, token, canonical[token.symbol]);
    tokens[token.symbol] = { address, decimals: token.decimals };
  }
  priceFeeds.ETH = await deployer.deploy("mocks/MockPriceFeed", [8, NATIVE_PRICE_USD8, "ETH / USD"]);

  for (const token of TOKENS) {
    const { address } = tokens[token.symbol];
    await deployer.call(registry, "ServiceRegistry", "setPriceFeed", [address, priceFeeds[token.symbol]]);
    await deployer.call(registry, "ServiceRegistry", "approveDefaultToken", [address]);
  }
  // The rebalance whitelist of every vault that sets none of its own (the vault checks it on-chain
  // and the relayer reads it): the stablecoins and ETH, not every default token.
  for (const symbol of DEFAULT_REBALANCE_SYMBOLS) {
    await deployer.call(registry, "ServiceRegistry", "addDefaultRebalanceToken", [tokens[symbol].address]);
  }
  await deployer.call(registry, "ServiceRegistry", "setPriceFeed", [zeroAddress, priceFeeds.ETH]);
  await deployer.call(registry, "ServiceRegistry", "addRelayer", [options.relayer]);

  const router = await deployer.deploy("mocks/MockSwapRouter", [registry]);
  await deployer.call(registry, "ServiceRegistry", "addSwapRouter", [router]);
  const symbols = TOKENS.map((t) => t.symbol);
  for (const [i, a] of symbols.entries()) {
    for (const b of symbols.slice(i + 1)) {
      await deployer.call(router, "mocks/MockSwapRouter", "setPairEnabled", [tokens[a].address, tokens[b].address, true]);
    }
  }

  const factory = await deployer.deploy("ServiceVaultFactory", [registry, options.domainName]);
  const nft = await deployer.deploy("mocks/MockNFT");
  const marketplace = await deployer.deploy("mocks/MockMarketplace", [tokens.USDC.address]);
  const lending = await deployer.deploy("mocks/MockLendingPool");
  if (options.canonicalTokens) await placePermit2(clients);
  await placeSimulatingLens(clients, deployer, await supportsSetCode(clients));

  return { registry, factory, router, nft, marketplace, lending, priceFeeds, tokens };
}

/**
 * A mock token at its canonical address when that address is free (or already holds our mock, as
 * after an earlier deployment on the same chain); at a fresh address when there is none, or when a
 * real contract lives there (a fork).
 */
async function placeToken(clients: Clients, deployer: Sender, token: TokenSpec, canonical: Address | undefined): Promise<Address> {
  // USDC speaks EIP-3009 (x402's exact scheme), under the name USDC signs with on this chain.
  const contract = token.symbol === "USDC" ? "mocks/MockUSDC" : "mocks/MockERC20";
  const mock = readArtifact(contract);
  const name = tokenName(token, clients.chain.id);
  if (canonical !== undefined) {
    const address = getAddress(canonical);
    const code = (await clients.publicClient.getCode({ address })) ?? "0x";
    if (code === mock.deployedBytecode) return address;
    if (code === "0x") {
      await clients.publicClient.request({ method: "hardhat_setCode" as never, params: [address, mock.deployedBytecode] as never });
      await deployer.call(address, contract, "initialize", [name, token.symbol, token.decimals]);
      return address;
    }
  }
  return deployer.deploy(contract, [name, token.symbol, token.decimals]);
}

/** Whether the node lets us place code at fixed addresses (Hardhat, anvil). */
export async function supportsSetCode(clients: Clients): Promise<boolean> {
  try {
    await clients.publicClient.request({ method: "hardhat_getAutomine" as never, params: [] as never });
    return true;
  } catch {
    return false;
  }
}
