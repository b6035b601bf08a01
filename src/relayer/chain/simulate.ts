// Simulation with eth_call pinned to a block, before anything is signed or sent; and the swap
// route, chosen from the configured routers' quotes at the same block.
import { decodeFunctionResult, encodeFunctionData, formatUnits, type Address, type Hex } from "viem";
import { decodeRevert, revertDataOf } from "../../chain/revert-decode.ts";
import { configuredTokens, tokenInfoOf } from "./token-info.ts";
import type { SwapRequest } from "../../api/validate.ts";
import { isRelayError, relayError, type RelayError } from "../../errors.ts";
import type { ChainRuntime } from "./chain-runtime.ts";
import { routerAbi, routerCalldata, vaultAbi, type SwapRoute } from "./intents.ts";
import { isTransportFailure, rpcFailure } from "../rpc-errors.ts";
import { gasWithHeadroom } from "../../../packages/client/src/gas.ts";

export interface SimulationOk {
  success: true;
  gasEstimate?: bigint;
}

/** Gas for one payment when it is not estimated (ERC-20 transfer or ETH send plus the vault's checks). */
export const PAYMENT_GAS = 250_000n;

/** The gas limit to send with: the estimate with headroom (gasWithHeadroom), or PAYMENT_GAS for a payment. */
export function gasLimitOf(sim: SimulationOk): bigint {
  return sim.gasEstimate === undefined ? PAYMENT_GAS : gasWithHeadroom(sim.gasEstimate);
}

/**
 * eth_call of the exact transaction (from the relayer, to the vault) at `blockNumber`. A revert is
 * 422 SIMULATION_FAILED with the decoded reason in `details` (a slippage revert is 422
 * SWAP_SLIPPAGE_EXCEEDED, the vault's ProtocolNotApproved is 403 PROTOCOL_NOT_APPROVED); a node
 * failure is 500 RPC_ERROR. With `estimate`, also eth_estimateGas at the same block.
 */
export async function simulate(
  chain: ChainRuntime,
  call: { from: Address; to: Address; data: Hex; blockNumber: bigint; estimate?: boolean },
): Promise<SimulationOk> {
  const client = chain.clients.publicClient;
  try {
    const [, gas] = await Promise.all([
      client.call({ account: call.from, to: call.to, data: call.data, blockNumber: call.blockNumber }),
      call.estimate ? client.estimateGas({ account: call.from, to: call.to, data: call.data, blockNumber: call.blockNumber }) : undefined,
    ]);
    return gas === undefined ? { success: true } : { success: true, gasEstimate: gas };
  } catch (error) {
    if (isTransportFailure(error)) throw relayError("RPC_ERROR", "the blockchain node did not answer", { cause: error });
    throw simulationError(revertDataOf(error), error);
  }
}

/**
 * The error for a simulation that reverted with `revertData`: 422 SIMULATION_FAILED with the decoded
 * reason, 422 SWAP_SLIPPAGE_EXCEEDED for a slippage revert, 403 PROTOCOL_NOT_APPROVED when the vault
 * refuses the protocol.
 */
export function simulationError(revertData: Hex | undefined, cause?: unknown): RelayError {
  const reason = decodeRevert(revertData);
  if (/^InsufficientOutput|^SlippageExceeded|^SwapBelowFloor/.test(reason)) return relayError("SWAP_SLIPPAGE_EXCEEDED", reason, { cause });
  // The relayer's own checks refuse these first; the chain may still change between read and simulation.
  if (/^StalePrice\(|^InvalidPrice\(/.test(reason)) return relayError("PRICE_FEED_STALE", reason, { cause });
  if (/^IntentCancelled\(/.test(reason)) return relayError("INTENT_REJECTED", `${reason}: this intent was cancelled on-chain: its owner refused it`, { cause });
  // checkPolicy refuses unapproved protocols first; should the vault still refuse one, that is
  // the policy answer, not a failed call.
  if (/^ProtocolNotApproved\(/.test(reason)) {
    return relayError("PROTOCOL_NOT_APPROVED", `${reason}: on a registry default token only approve calls are allowed`, { cause });
  }
  return relayError("SIMULATION_FAILED", reason, { cause });
}

/**
 * Whether a simulation stopped at the vault's review gate (ReviewRequired): every check before it
 * passed, and the vault will run the call only with the owner's ReviewApproval.
 */
export function stoppedAtReviewGate(error: unknown): boolean {
  return isRelayError(error) && error.code === "SIMULATION_FAILED" && /^ReviewRequired\(/.test(error.details ?? "");
}

/**
 * Whether a simulation stopped at the vault's AI hold (AiApprovalRequired): the request executes
 * only with the scanners' verdicts or the owner's ReviewApproval, and is simulated again with them.
 */
export function stoppedAtAiGate(error: unknown): boolean {
  return isRelayError(error) && error.code === "SIMULATION_FAILED" && /^AiApprovalRequired\(/.test(error.details ?? "");
}

/**
 * The best route for a swap among the chain's routers: the highest quote for exactly
 * `maxFromAmount`. No router quoting the pair → 422 NO_SWAP_ROUTE. The swap must yield at least
 * `minOut`: the larger of the bot's `minToAmount` and the vault's floor (the feed-priced value of
 * `maxFromAmount` less the owner's slippage tolerance, which the vault enforces on-chain whatever
 * the bot signed). A best quote below it → 422 SWAP_SLIPPAGE_EXCEEDED; the router is told `minOut`.
 */
export async function chooseRoute(chain: ChainRuntime, request: SwapRequest, blockNumber: bigint, floor: bigint): Promise<SwapRoute> {
  const i = request.intent;
  const minOut = floor > i.minToAmount ? floor : i.minToAmount;
  const quotes = await Promise.all(
    chain.config.routers.map(async (router) => {
      try {
        const { data } = await rpcFailure(() =>
          chain.clients.publicClient.call({
            to: router,
            data: encodeFunctionData({ abi: routerAbi, functionName: "quote", args: [i.fromToken, i.toToken, i.maxFromAmount] }),
            blockNumber,
          }),
        );
        const out = decodeFunctionResult({ abi: routerAbi, functionName: "quote", data: data ?? "0x" }) as bigint;
        return { router, out };
      } catch (error) {
        if ((error as { code?: string }).code === "RPC_ERROR") throw error;
        return undefined; // this router has no route for the pair
      }
    }),
  );
  const best = quotes.filter((q) => q !== undefined).sort((a, b) => (a.out > b.out ? -1 : a.out < b.out ? 1 : 0))[0];
  if (!best) throw relayError("NO_SWAP_ROUTE", `no router quotes ${i.fromToken} → ${i.toToken}`);
  if (best.out < minOut) {
    const out = inUnitsOf(chain, i.toToken);
    const which = minOut === i.minToAmount ? `minToAmount ${out(i.minToAmount)}` : `the vault's slippage floor ${out(minOut)} (minToAmount is ${out(i.minToAmount)})`;
    throw relayError("SWAP_SLIPPAGE_EXCEEDED", `best quote ${out(best.out)} is below ${which}`);
  }
  return { router: best.router, swapCalldata: routerCalldata(request, request.vaultAddress, minOut), quotedOut: best.out };
}

/** Amounts of `token` as people read them ("0.5 WETH") when the chain's config knows it, else base units. */
function inUnitsOf(chain: ChainRuntime, token: Address): (amount: bigint) => string {
  const info = tokenInfoOf(token, configuredTokens(chain.config.tokens));
  return info === undefined ? (amount) => `${amount} base units` : (amount) => `${formatUnits(amount, info.decimals)} ${info.symbol}`;
}
