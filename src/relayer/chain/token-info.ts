// Symbol and decimals of a token the relayer knows: native ETH under either of its names, or one of
// the chain's configured tokens. One lookup for review items, call decoding and the AI scan input.
import { ETH_TOKEN, isEth } from "../../chain/eth.ts";

/** Symbol and decimals, as the relayer shows a token. */
export interface TokenInfo {
  symbol: string;
  decimals: number;
}

/** `tokens`: the chain's configured tokens by lower-case address (dispatcher.tokenInfo). */
export function tokenInfoOf(token: string, tokens: ReadonlyMap<string, TokenInfo>): TokenInfo | undefined {
  return isEth(token) ? ETH_TOKEN : tokens.get(token.toLowerCase());
}

/** The chain's configured tokens (config `tokens`, by symbol) as the lookup tokenInfoOf takes. */
export function configuredTokens(tokens: Readonly<Record<string, { address: string; decimals: number }>>): Map<string, TokenInfo> {
  return new Map(Object.entries(tokens).map(([symbol, token]) => [token.address.toLowerCase(), { symbol, decimals: token.decimals }]));
}
