// What an execute takes out of the vault, measured rather than declared: its simulation runs with the
// vault's balances read around it (SimulatingLens.simulateOutflows), and every decrease is priced by
// the registry's feeds. A bot that declares `tokens: []` and calls `USDC.transfer(x, 20000e6)` is then
// valued at $20,000 and meets the per-tx, daily, velocity and AI-threshold rules at that value.
import { toFunctionSelector, zeroAddress, zeroHash, type Address, type Hex } from "viem";
import type { ExecuteRequest } from "../api/validate.ts";
import type { ChainRuntime } from "./chain-runtime.ts";
import { selectorOf } from "./path.ts";

/** `transfer(address,uint256)`: ERC-20 only (ERC-721 has no such function). */
const ERC20_TRANSFER = toFunctionSelector("transfer(address,uint256)");

/** One token (address(0) = ETH) leaving the vault, with its USD value (6 decimals). */
export interface Outflow {
  token: Address;
  amount: bigint;
  usd: bigint;
}

/** The outflows of a simulated execute and their total value. */
export interface Valuation {
  outflows: Outflow[];
  usdValue: bigint;
  /** False when some outflow's token has no usable price feed. */
  priced: boolean;
  /** True when some outflow's feed is stale or not positive. */
  priceStale: boolean;
}

/**
 * The vault's outflows when `data` (the execute's vault call) runs from relayer key `from` at
 * `blockNumber`, over the tokens it could move (see watchedTokens) and ETH; priced at the
 * same block. Undefined on a node without eth_call state overrides, or when the call reverts (the
 * ordinary simulation reports that): the vault itself still bounds what a protocol call moves.
 */
export async function measureOutflows(
  chain: ChainRuntime,
  from: Address,
  request: ExecuteRequest,
  data: Hex,
  blockNumber: bigint,
): Promise<Valuation | undefined> {
  if (!(await chain.supportsStateOverride())) return undefined;
  const watched = watchedTokens(chain, request);
  const moved = await chain.simulateOutflows(from, request.vaultAddress, data, watched, blockNumber);
  if (!moved?.ok) return undefined;
  const taken = watched.flatMap((token, i) => (moved.outflows[i]! > 0n ? [{ token, amount: moved.outflows[i]! }] : []));
  if (moved.ethOutflow > 0n) taken.push({ token: zeroAddress, amount: moved.ethOutflow });
  if (taken.length === 0) return { outflows: [], usdValue: 0n, priced: true, priceStale: false };

  const prices = await chain.snapshots(
    taken.map(({ token, amount }) => ({ vault: request.vaultAddress, bot: request.intent.bot, intentHash: zeroHash, tokens: [token], amounts: [amount] })),
    blockNumber,
  );
  const outflows = taken.map((out, i) => ({ ...out, usd: prices[i]!.usdValue }));
  return {
    outflows,
    usdValue: outflows.reduce((sum, out) => sum + out.usd, 0n),
    priced: prices.every((p) => p.priced),
    priceStale: prices.some((p) => p.priceStale),
  };
}

/**
 * The declared tokens, the chain's configured ERC-20s and, for an ERC-20 `transfer`, the called
 * token itself (the vault bounds only declared and registry-default tokens on-chain), once each.
 * ETH is measured apart. Other called contracts are not measured: an NFT's balanceOf counts items,
 * which no feed prices (NFT transfers get the AI scan instead).
 */
function watchedTokens(chain: ChainRuntime, request: ExecuteRequest): Address[] {
  const seen = new Map<string, Address>();
  const configured = Object.values(chain.config.tokens).map((t) => t.address);
  const called = selectorOf(request.callData) === ERC20_TRANSFER ? [request.intent.protocol] : [];
  for (const token of [...request.intent.tokens, ...called, ...configured]) {
    if (token.toLowerCase() !== zeroAddress) seen.set(token.toLowerCase(), token);
  }
  return [...seen.values()];
}
