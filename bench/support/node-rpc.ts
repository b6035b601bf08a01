// A bare JSON-RPC caller for the benches' direct transactions and reads: one undici Pool of
// keep-alive connections to the node and nothing else, so a direct payment's figures carry as
// little client overhead as a bot's leanest client would.
import { Pool } from "undici";

export interface NodeRpc {
  /** The call's result; a JSON-RPC error answer throws, its message prefixed by the method. */
  call(method: string, params: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

export function nodeRpc(url: string, connections: number): NodeRpc {
  const pool = new Pool(url, { connections, pipelining: 1 });
  let id = 0;
  return {
    async call(method, params) {
      const res = await pool.request({ path: "/", method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) });
      const answer = (await res.body.json()) as { result?: unknown; error?: { message: string } };
      if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
      return answer.result;
    },
    close: () => pool.close(),
  };
}
