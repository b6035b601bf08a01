// The chain id a JSON-RPC node reports (eth_chainId), for commands given only a node's URL
// (relay serve --rpc-url, relay agents).
import { CliError } from "./io.ts";

export async function fetchChainId(rpcUrl: string): Promise<number> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json()) as { result?: string };
    if (typeof body.result !== "string") throw new Error("no result");
    return Number(BigInt(body.result));
  } catch {
    throw new CliError(`cannot reach a JSON-RPC node at ${rpcUrl}`);
  }
}
