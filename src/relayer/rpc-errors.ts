// Node failures as the relayer's typed errors: anything that means "the node could not be reached
// or did not answer" becomes 500 RPC_ERROR (retryable); nothing else is translated here.
import { relayError, isRelayError } from "../errors.ts";

const transportNames = new Set([
  "HttpRequestError",
  "TimeoutError",
  "WebSocketRequestError",
  "SocketClosedError",
  "UnknownNodeError",
]);

/** An error as the node's client layers nest them: each may carry a name, a code, a message and a cause. */
interface NodeError {
  name?: string;
  code?: unknown;
  message?: string;
  cause?: unknown;
}

/** Whether `error` or one of its causes (up to 8 deep) passes `test`. */
function anyCause(error: unknown, test: (e: NodeError) => boolean): boolean {
  for (let e = error as NodeError | undefined, depth = 0; e && depth < 8; depth++) {
    if (test(e)) return true;
    e = e.cause as NodeError | undefined;
  }
  return false;
}

/** Whether `error` (or one of its causes) says the node was unreachable or timed out. */
export function isTransportFailure(error: unknown): boolean {
  return anyCause(
    error,
    (e) => transportNames.has(e.name ?? "") || (typeof e.code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|UND_ERR_)/.test(e.code)),
  );
}

/** A node's answer that it has no such method (JSON-RPC -32601, or -32004 "not supported" as Hardhat's EDR answers). */
export function isMethodMissing(error: unknown): boolean {
  return anyCause(
    error,
    (e) => e.code === -32601 || e.code === -32004 || /method .*(not found|not supported|does not exist|not available)|unknown method|unsupported method/i.test(e.message ?? ""),
  );
}

/** A synchronous send the node took but gave up waiting for (EIP-7966's code 4; anvil: "Transaction confirmation timeout"). */
export function isSyncTimeout(error: unknown): boolean {
  return anyCause(error, (e) => e.code === 4 || /confirmation timeout|timed? ?out/i.test(e.message ?? ""));
}

/** Runs a node call; a transport failure becomes RPC_ERROR (other errors pass through unchanged). */
export async function rpcFailure<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isRelayError(error) && isTransportFailure(error)) {
      throw relayError("RPC_ERROR", "the blockchain node did not answer", { cause: error });
    }
    throw error;
  }
}
