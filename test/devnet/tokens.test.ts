import { describe, expect, it } from "vitest";
import { isAddress } from "viem";
import { CANONICAL_TOKENS, SUPPORTED_CHAIN_IDS, TOKENS, tokenName } from "../../src/devnet/tokens.ts";

describe("token table", () => {
  it("lists canonical addresses only for supported networks, each a valid EIP-55 address", () => {
    for (const [chainId, tokens] of Object.entries(CANONICAL_TOKENS)) {
      expect(SUPPORTED_CHAIN_IDS).toContain(Number(chainId));
      for (const address of Object.values(tokens)) expect(isAddress(address!, { strict: true }), address).toBe(true);
    }
  });

  it("names USDC as the real USDC on each network names itself and signs its EIP-712 domain", () => {
    const usdc = TOKENS.find((t) => t.symbol === "USDC")!;
    expect(tokenName(usdc, 84532)).toBe("USDC");
    expect(tokenName(usdc, 421614)).toBe("USDC");
    expect(tokenName(usdc, 8453)).toBe("USD Coin");
    expect(tokenName(usdc, 42161)).toBe("USD Coin");
    expect(tokenName(TOKENS.find((t) => t.symbol === "USDT")!, 84532)).toBe("Tether USD");
  });

  it("has the five mock tokens with their real decimals", () => {
    expect(Object.fromEntries(TOKENS.map((t) => [t.symbol, t.decimals]))).toEqual({ USDC: 6, USDT: 6, DAI: 18, WETH: 18, WBTC: 8 });
  });
});
