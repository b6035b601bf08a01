import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChain, type LocalChain } from "../../src/chain/hardhat.ts";
import { startRpcServer, type RpcServer } from "../../src/chain/rpc-server.ts";

describe("JSON-RPC server over an in-process chain", () => {
  let chain: LocalChain;
  let rpc: RpcServer;
  const post = (body: unknown, init: RequestInit = {}) =>
    fetch(rpc.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), ...init });

  beforeAll(async () => {
    chain = await startChain({ chainId: 31337 });
    rpc = await startRpcServer(chain.provider, 0);
  });
  afterAll(async () => {
    await rpc.close();
    await chain.close();
  });

  it("binds to loopback on the port it was given (0 = a free one)", () => {
    expect(rpc.url).toBe(`http://127.0.0.1:${rpc.port}`);
    expect(rpc.port).toBeGreaterThan(0);
  });

  it("answers single and batch requests with their ids", async () => {
    expect(await (await post({ jsonrpc: "2.0", id: 7, method: "eth_chainId", params: [] })).json()).toEqual({ jsonrpc: "2.0", id: 7, result: "0x7a69" });
    const batch = (await (await post([
      { jsonrpc: "2.0", id: 1, method: "eth_chainId" },
      { jsonrpc: "2.0", id: 2, method: "eth_blockNumber" },
    ])).json()) as { id: number; result: string }[];
    expect(batch.map((r) => r.id)).toEqual([1, 2]);
    expect(batch[1]!.result).toMatch(/^0x[0-9a-f]+$/);
  });

  it("returns JSON-RPC errors for unknown methods, bad JSON and wrong HTTP methods", async () => {
    const unknown = (await (await post({ jsonrpc: "2.0", id: 3, method: "eth_nope" })).json()) as { error: { code: number } };
    expect(unknown.error.code).toBeLessThan(0);
    const bad = await fetch(rpc.url, { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect((await fetch(rpc.url)).status).toBe(405);
  });
});
