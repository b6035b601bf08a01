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

  it("runs the after-answer hook once the node answered and before the caller hears back; what it throws is dropped", async () => {
    const seen: Array<{ method: string; pending: bigint; callerHeard: boolean }> = [];
    let answered = false;
    rpc.setAfterAnswer(async (method) => {
      const block = (await chain.provider.request({ method: "eth_getBlockByNumber", params: ["pending", false] } as never)) as { timestamp: string };
      seen.push({ method, pending: BigInt(block.timestamp), callerHeard: answered });
    });
    const before = await post({ jsonrpc: "2.0", id: 1, method: "evm_increaseTime", params: [86_400] });
    answered = true;
    expect(((await before.json()) as { result: unknown }).result).toBeDefined();
    expect(seen.map((s) => [s.method, s.callerHeard])).toEqual([["evm_increaseTime", false]]);
    // The node already counts the move: the block it would mine now is a day ahead of the wall clock.
    expect(seen[0]!.pending).toBeGreaterThanOrEqual(BigInt(Math.floor(Date.now() / 1000)) + 86_400n - 1n);

    // A call the node refuses never reaches the hook; a hook that throws leaves the answer as it is.
    await post({ jsonrpc: "2.0", id: 2, method: "eth_nope" });
    expect(seen).toHaveLength(1);
    rpc.setAfterAnswer(async () => {
      throw new Error("the relayer is gone");
    });
    expect(await (await post({ jsonrpc: "2.0", id: 3, method: "eth_chainId" })).json()).toEqual({ jsonrpc: "2.0", id: 3, result: "0x7a69" });
    rpc.setAfterAnswer(undefined);
    expect(await (await post({ jsonrpc: "2.0", id: 4, method: "eth_chainId" })).json()).toEqual({ jsonrpc: "2.0", id: 4, result: "0x7a69" });
  });
});
