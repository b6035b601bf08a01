import { describe, expect, it } from "vitest";
import { isAddress } from "viem";
import { CANONICAL_TOKENS, SUPPORTED_CHAIN_IDS, TOKENS } from "../../src/devnet/tokens.ts";

describe("token table", () => {
  it("lists canonical addresses only for supported networks, each a valid EIP-55 address", () => {
    for (const [chainId, tokens] of Object.entries(CANONICAL_TOKENS)) {
      expect(SUPPORTED_CHAIN_IDS).toContain(Number(chainId));
      for (const address of Object.values(tokens)) expect(isAddress(address!, { strict: true }), address).toBe(true);
    }
  });

  it("has the five mock tokens with their real decimals", () => {
    expect(Object.fromEntries(TOKENS.map((t) => [t.symbol, t.decimals]))).toEqual({ USDC: 6, USDT: 6, DAI: 18, WETH: 18, WBTC: 8 });
  });
});
