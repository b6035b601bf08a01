// The devnet's mock tokens, their prices, and where each lives on the supported networks, so that a
// bot's production token addresses work unchanged against the devnet.
import type { Address } from "viem";

export type TokenSymbol = "USDC" | "USDT" | "DAI" | "WETH" | "WBTC";

export interface TokenSpec {
  symbol: TokenSymbol;
  name: string;
  decimals: number;
  /** USD price with 8 decimals, as a Chainlink feed reports it. */
  priceUsd8: bigint;
  /** Amount (whole tokens) the seeded vault holds. */
  vaultFunding: bigint;
}

export const TOKENS: readonly TokenSpec[] = [
  { symbol: "USDC", name: "USD Coin", decimals: 6, priceUsd8: 1_00000000n, vaultFunding: 1_000_000n },
  { symbol: "USDT", name: "Tether USD", decimals: 6, priceUsd8: 1_00000000n, vaultFunding: 1_000_000n },
  { symbol: "DAI", name: "Dai Stablecoin", decimals: 18, priceUsd8: 1_00000000n, vaultFunding: 1_000_000n },
  { symbol: "WETH", name: "Wrapped Ether", decimals: 18, priceUsd8: 3_000_00000000n, vaultFunding: 100n },
  { symbol: "WBTC", name: "Wrapped BTC", decimals: 8, priceUsd8: 60_000_00000000n, vaultFunding: 10n },
];

/**
 * A token's name on a chain: USDC's is what the real USDC there answers to `name()` and signs its
 * EIP-712 domain with ("USDC" on the test networks, "USD Coin" on the main ones; version "2" on all).
 */
export function tokenName(token: Pick<TokenSpec, "symbol" | "name">, chainId: number): string {
  if (token.symbol === "USDC" && (chainId === 84532 || chainId === 421614)) return "USDC";
  return token.name;
}

/** The EIP-712 version of the devnet's USDC (MockUSDC.version()), as the real USDC's. */
export const USDC_EIP712_VERSION = "2";

/** Native ETH is priced by the registry's feed for address(0), at WETH's price. */
export const NATIVE_PRICE_USD8 = 3_000_00000000n;

/** Canonical token addresses per supported network (public, well-known deployments). */
export const CANONICAL_TOKENS: Readonly<Record<number, Partial<Record<TokenSymbol, Address>>>> = {
  8453: {
    USDC: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    USDT: "0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2",
    DAI: "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb",
    WETH: "0x4200000000000000000000000000000000000006",
  },
  84532: {
    USDC: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    WETH: "0x4200000000000000000000000000000000000006",
  },
  42161: {
    USDC: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
    USDT: "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9",
    DAI: "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1",
    WETH: "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1",
    WBTC: "0x2f2a2543B76A4166549F7aaB2e75Bef0aefC5B0f",
  },
  421614: {
    USDC: "0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d",
    WETH: "0x980B62Da83eFf3D4576C647993b0c1D7faf17c73",
  },
};

export const SUPPORTED_CHAIN_IDS = [8453, 84532, 42161, 421614, 31337] as const;

export function isSupportedChainId(chainId: number): boolean {
  return (SUPPORTED_CHAIN_IDS as readonly number[]).includes(chainId);
}

/** The networks' names, as wallets and explorers show them (GET /v1/chains answers them). */
export const NETWORK_NAMES: Readonly<Record<(typeof SUPPORTED_CHAIN_IDS)[number], string>> = {
  8453: "Base",
  84532: "Base Sepolia",
  42161: "Arbitrum One",
  421614: "Arbitrum Sepolia",
  31337: "Local development chain",
};

export function networkName(chainId: number): string {
  return NETWORK_NAMES[chainId as keyof typeof NETWORK_NAMES] ?? `Chain ${chainId}`;
}
