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

/** Whether `error` (or one of its causes) says the node was unreachable or timed out. */
export function isTransportFailure(error: unknown): boolean {
  for (let e = error as { name?: string; cause?: unknown; code?: string } | undefined, depth = 0; e && depth < 8; depth++) {
    if (transportNames.has(e.name ?? "")) return true;
    if (typeof e.code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|UND_ERR_)/.test(e.code)) return true;
    e = e.cause as typeof e;
  }
  return false;
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
