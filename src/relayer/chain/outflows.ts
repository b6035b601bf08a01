// What an execute takes out of the vault, measured rather than declared: its simulation runs with the
// vault's balances read around it (SimulatingLens.simulateOutflows), and every decrease is priced by
// the registry's feeds. A bot that declares `tokens: []` and calls `USDC.transfer(x, 20000e6)` is then
// valued at $20,000 and meets the per-tx, daily, velocity and AI-threshold rules at that value.
import { toFunctionSelector, zeroAddress, zeroHash, type Address, type Hex } from "viem";
import type { ExecuteRequest } from "../../api/validate.ts";
import { isEth } from "../../chain/eth.ts";
import type { ChainRuntime } from "./chain-runtime.ts";
import type { UnpricedOutflow } from "./nft-outflows.ts";
import { selectorOf } from "./selector.ts";

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
  const named = addressesIn(request.callData);
  if (named === undefined) return { outflows: [], usdValue: 0n, priced: false, priceStale: false };
  const watched = watchedTokens(chain, request, named);
  const moved = await chain.simulateOutflows(from, request.vaultAddress, data, watched, blockNumber);
  if (!moved?.ok) return undefined;
  const taken = watched.flatMap((token, i) => (moved.outflows[i]! > 0n ? [{ token, amount: moved.outflows[i]! }] : []));
  if (moved.ethOutflow > 0n) taken.push({ token: zeroAddress, amount: moved.ethOutflow });
  if (taken.length === 0) return { outflows: [], usdValue: 0n, priced: true, priceStale: false };

  const prices = await pricesOf(chain, request, taken, blockNumber);
  const outflows = taken.map((out, i) => ({ ...out, usd: prices[i]!.usdValue }));
  return {
    outflows,
    usdValue: outflows.reduce((sum, out) => sum + out.usd, 0n),
    priced: prices.every((p) => p.priced),
    priceStale: prices.some((p) => p.priceStale),
  };
}

/**
 * The ERC-20s the call's trace saw leave the vault (`transfers`, nft-outflows.ts tokenOutflowsIn)
 * that have no usable price, at `blockNumber`: outflows relay cannot price, which the owner decides
 * (path.ts). Tokens the measured valuation already priced are not asked again; the others, whether
 * the balance measure watched them or not, are priced at their traced total.
 */
export async function unpricedTokens(
  chain: ChainRuntime,
  request: ExecuteRequest,
  transfers: ReadonlyMap<Address, bigint>,
  measured: readonly Outflow[],
  blockNumber: bigint,
): Promise<UnpricedOutflow[]> {
  const known = new Set(measured.map((out) => out.token.toLowerCase()));
  const asked = [...transfers].flatMap(([token, amount]) => (amount > 0n && !known.has(token.toLowerCase()) ? [{ token, amount }] : []));
  if (asked.length === 0) return [];
  const prices = await pricesOf(chain, request, asked, blockNumber);
  return asked.flatMap(({ token, amount }, i) => (prices[i]!.priced && !prices[i]!.priceStale ? [] : [{ standard: "erc20" as const, token, amount }]));
}

/** Each amount of a token priced by the registry's feeds at `blockNumber`, in one lens call. */
function pricesOf(chain: ChainRuntime, request: ExecuteRequest, amounts: readonly { token: Address; amount: bigint }[], blockNumber: bigint) {
  return chain.snapshots(
    amounts.map(({ token, amount }) => ({ vault: request.vaultAddress, bot: request.intent.bot, intentHash: zeroHash, tokens: [token], amounts: [amount] })),
    blockNumber,
  );
}

/**
 * The declared tokens, the chain's configured ERC-20s, for an ERC-20 `transfer` the called token
 * itself, and every address the calldata names (a protocol may pull a token it is told of through
 * an allowance the owner granted earlier), once each: the vault bounds on-chain only the declared
 * and registry-default tokens and the called protocol's own token. An address that is no token reads as a balance of 0 and moves
 * nothing. ETH is measured apart. The called contract is not measured otherwise: an NFT's
 * balanceOf counts items, which no feed prices (an NFT leaving the vault is found in the
 * call's trace instead, and the owner decides: nft-outflows.ts).
 */
function watchedTokens(chain: ChainRuntime, request: ExecuteRequest, named: readonly Address[]): Address[] {
  const seen = new Map<string, Address>();
  const configured = Object.values(chain.config.tokens).map((t) => t.address);
  const called = selectorOf(request.callData) === ERC20_TRANSFER ? [request.intent.protocol] : [];
  for (const token of [...request.intent.tokens, ...called, ...configured, ...named]) {
    if (!isEth(token)) seen.set(token.toLowerCase(), token);
  }
  return [...seen.values()];
}

/** Most addresses named by one call that are measured; a call naming more is not valued (the owner's review). */
const MAX_NAMED_ADDRESSES = 64;

/**
 * The addresses among the calldata's arguments, in order, once each: every 32-byte word whose top 12
 * bytes are zero and whose value is at least 2^128 (an amount that small is no address; a real
 * address is below it once in 2^32). Undefined when there are more than MAX_NAMED_ADDRESSES: the
 * outflows cannot be bounded cheaply, so the call is left unpriced and goes to the owner.
 */
function addressesIn(callData: Hex): Address[] | undefined {
  const found = new Map<string, Address>();
  for (let at = 10; at + 64 <= callData.length; at += 64) {
    const word = callData.slice(at, at + 64);
    if (!/^0{24}/.test(word) || /^0{32}/.test(word)) continue;
    const address = `0x${word.slice(24)}` as Address;
    found.set(address.toLowerCase(), address);
    if (found.size > MAX_NAMED_ADDRESSES) return undefined;
  }
  return [...found.values()];
}
