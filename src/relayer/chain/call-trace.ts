// The logs of a call's whole call tree, as the node runs it: debug_traceCall with the callTracer and
// its logs (`{tracer: "callTracer", tracerConfig: {withLog: true}}`, answered by Hardhat's EDR, anvil
// and geth-like nodes). What a call grants or moves is judged from these logs (grants.ts), wherever
// in the tree it happens: a multicall, a nested one, a delegatecall. A balance read around the call
// (outflows.ts) cannot see a right granted now and used later.
//
// Whether the node traces is asked once per chain (like ChainRuntime.supportsStateOverride); a node
// that cannot trace gives undefined, and the caller decides without guessing (relayer.ts holds the
// execute for the owner's review).
import type { Address, Hex } from "viem";
import { relayError } from "../../errors.ts";
import type { ChainRuntime } from "./chain-runtime.ts";
import { rpcFailure } from "../rpc-errors.ts";

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
  type?: string;
  error?: string;
  calls?: Frame[];
  logs?: { address: Address; topics?: Hex[]; data?: Hex; position?: Hex | number }[];
}

const TRACER = { tracer: "callTracer", tracerConfig: { withLog: true } } as const;
/** A call to an address with no code: what the probe traces. */
const PROBE = { to: "0x00000000000000000000000000000000000042aa", data: "0x" } as const;

const support = new WeakMap<ChainRuntime, Promise<boolean>>();

/** debug_traceCall with the callTracer (withLog) of one call at a pinned block; undefined when the node cannot trace. */
export async function traceCall(
  chain: ChainRuntime,
  call: { from: Address; to: Address; data: Hex; blockNumber: bigint; value?: bigint },
): Promise<CallTrace | undefined> {
  if (!(await supportsTrace(chain))) return undefined;
  const tx = { from: call.from, to: call.to, data: call.data, ...(call.value ? { value: `0x${call.value.toString(16)}` } : {}) };
  const top = await request(chain, [tx, `0x${call.blockNumber.toString(16)}`, TRACER]).catch((error: unknown) => {
    throw relayError("RPC_ERROR", "the node could not trace the call", { cause: error });
  });
  if (!isFrame(top)) throw relayError("RPC_ERROR", "the node's call trace has no call frame");
  const logs: TracedLog[] = [];
  collect(top, logs);
  return { reverted: top.error !== undefined, logs };
}

/**
 * Whether the node answers debug_traceCall with the callTracer and its logs: asked once per chain
 * (a no-op call traced at the latest block); after an unreachable node, asked again.
 */
export function supportsTrace(chain: ChainRuntime): Promise<boolean> {
  let known = support.get(chain);
  if (!known) {
    known = request(chain, [PROBE, "latest", TRACER]).then(isFrame, (error: unknown) => {
      if ((error as { code?: string }).code === "RPC_ERROR") throw error;
      return false; // no such method, or the node refused the tracer or its options
    });
    known.catch(() => support.delete(chain));
    support.set(chain, known);
  }
  return known;
}

function request(chain: ChainRuntime, params: readonly unknown[]): Promise<unknown> {
  return rpcFailure(() => chain.clients.publicClient.request({ method: "debug_traceCall", params } as never));
}

function isFrame(value: unknown): value is Frame {
  return typeof value === "object" && value !== null && typeof (value as Frame).type === "string";
}

/**
 * The frame's logs and its sub-calls', in the order they were emitted: a log's `position` is the
 * number of the frame's sub-calls made before it. A reverted frame's effects (and its sub-calls')
 * are undone, so its logs are left out.
 */
function collect(frame: Frame, into: TracedLog[]): void {
  if (frame.error !== undefined) return;
  const calls = frame.calls ?? [];
  let next = 0;
  for (const log of frame.logs ?? []) {
    const position = Number(log.position ?? calls.length);
    for (; next < position && next < calls.length; next++) collect(calls[next]!, into);
    into.push({ address: log.address, topics: log.topics ?? [], data: log.data ?? "0x" });
  }
  for (; next < calls.length; next++) collect(calls[next]!, into);
}
