// The logs a call would emit, across its whole call tree: debug_traceCall with the callTracer and
// `withLog`, pinned to the request's block, from the relayer key that would send it. What a call
// does is judged by these effects (an NFT leaving the vault, nft-outflows.ts), not by the name of
// the function it calls: a protocol may move the vault's assets several calls deep.
//
// A frame that reverted took its logs, and those of every call under it, with it: they are left out.
// A node without debug_traceCall (or without the callTracer) answers undefined, and the callers fall
// back to what the calldata says.
import type { Address, Hex } from "viem";
import type { ChainRuntime } from "./chain-runtime.ts";
import { isMethodMissing, rpcFailure } from "./rpc-errors.ts";

export interface TracedLog {
  address: Address;
  topics: readonly Hex[];
  data: Hex;
}

/** Logs of the whole call tree, in order, from frames that did not revert. */
export interface CallTrace {
  reverted: boolean;
  logs: TracedLog[];
}

/** One frame of the callTracer's answer (the fields read here). */
interface Frame {
  error?: string;
  logs?: Array<{ address: Address; topics?: Hex[]; data?: Hex; position?: Hex }>;
  calls?: Frame[];
}

/** debug_traceCall with the callTracer (withLog) of one call at a pinned block; undefined when the node cannot trace. */
export async function traceCall(chain: ChainRuntime, call: { from: Address; to: Address; data: Hex; blockNumber: bigint }): Promise<CallTrace | undefined> {
  let root: Frame;
  try {
    root = (await rpcFailure(() =>
      chain.clients.publicClient.request({
        method: "debug_traceCall",
        params: [{ from: call.from, to: call.to, data: call.data }, `0x${call.blockNumber.toString(16)}`, { tracer: "callTracer", tracerConfig: { withLog: true } }],
      } as never),
    )) as Frame;
  } catch (error) {
    if (isMethodMissing(error) || isTracerRefused(error)) return undefined;
    throw error;
  }
  if (root === null || typeof root !== "object") return undefined;
  const logs: TracedLog[] = [];
  collect(root, logs);
  return { reverted: root.error !== undefined, logs };
}

/**
 * The frame's logs and its calls' logs in execution order: a log's `position` is the number of
 * sub-calls made before it in its frame. Nothing from a frame that reverted, nor from under it.
 */
function collect(frame: Frame, into: TracedLog[]): void {
  if (frame.error !== undefined) return;
  const calls = frame.calls ?? [];
  let next = 0;
  for (const log of frame.logs ?? []) {
    const position = log.position === undefined ? calls.length : Number(log.position);
    for (; next < position && next < calls.length; next++) collect(calls[next]!, into);
    into.push({ address: log.address, topics: log.topics ?? [], data: log.data ?? "0x" });
  }
  for (; next < calls.length; next++) collect(calls[next]!, into);
}

/** A node that has debug_traceCall but refuses the callTracer or its config. */
function isTracerRefused(error: unknown): boolean {
  const message = (error as { message?: string; details?: string }).message ?? "";
  return /tracer|tracerConfig|withLog/i.test(message) && !/execution reverted/i.test(message);
}
