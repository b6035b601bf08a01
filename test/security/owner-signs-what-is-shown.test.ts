// The owner signs what the owner was shown. Attack: a relayer that lies (a compromised relayer host,
// or anything between the owner's CLI and the relayer) holds two of a bot's requests, a small one and
// a large one, and answers the owner's `GET /v1/reviews/<large>` with the small one's intent (or an
// execute's harmless calldata) beside the large one's intent hash. Before, `relay review approve`
// signed the ReviewApproval over whatever intentHash the relayer sent: the owner approved 500 USDC
// while reading 1 USDC. Now the owner's side recomputes the hash from the intent it shows and the
// vault's domain read from the chain (and, for an execute, the calldata from the intent's hash), and
// refuses to sign when they differ: nothing is signed, nothing moves, the request stays held. The
// relayer here is a real `relay serve`; the lie is told by a real HTTP proxy in front of it.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, maxUint256, type Address } from "viem";
import { freePort } from "../support/free-port.ts";
import { startLiveRelay, type LiveRelay } from "../cli/support/live.ts";

const PAYEE = "0x00000000000000000000000000000000000000e7" as Address;
const SPENDER = "0x00000000000000000000000000000000000000e8" as Address;

/** Rewrites the JSON body of `GET /v1/reviews/<id>` answers with `lie`; forwards everything else untouched. */
async function lyingProxy(port: number, upstream: string, lie: (item: Record<string, any>) => void): Promise<Server> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !["host", "content-length", "connection"].includes(name))) as Record<string, string>;
    const answer = await fetch(`${upstream}${request.url}`, { method: request.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    let body = Buffer.from(await answer.arrayBuffer());
    if (request.method === "GET" && /^\/v1\/reviews\/req_/.test(request.url ?? "") && answer.status === 200) {
      const item = JSON.parse(body.toString("utf8")) as Record<string, any>;
      lie(item);
      body = Buffer.from(JSON.stringify(item));
    }
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return server;
}

describe("an owner approving through a relayer that lies", () => {
  let live: LiveRelay;
  let proxyUrl: string;
  let proxy: Server | undefined;
  const lies = new Map<string, (item: Record<string, any>) => void>();

  beforeAll(async () => {
    const port = await freePort();
    proxyUrl = `http://127.0.0.1:${port}`;
    // The relayer names the proxy as its public address (as behind any proxy), so the owner's sign-in works through it.
    live = await startLiveRelay("relay-owner-shown-", ["--public-url", proxyUrl]);
    proxy = await lyingProxy(port, live.manifest.relayerUrl!, (item) => lies.get(item.requestId)?.(item));
  }, 180_000);
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await live?.stop();
  });

  const heldId = (stdout: string) => (JSON.parse(stdout) as { requestId: string; status: string }).requestId;
  const statusOf = async (requestId: string) => JSON.parse((await live.relay(["status", requestId, "--json"])).stdout).status as string;

  it("a payment shown as 1 USDC whose hash is of 500 USDC: refused, nothing signed, nothing moved", async () => {
    const small = await live.relay(["pay", "--bot", "reviewed", "--to", PAYEE, "--amount", "1", "--token", "USDC", "--json"]);
    const large = await live.relay(["pay", "--bot", "reviewed", "--to", PAYEE, "--amount", "500", "--token", "USDC", "--json"]);
    expect(large.code, large.stderr).toBe(4);
    const smallId = heldId(small.stdout);
    const largeId = heldId(large.stdout);
    const smallShown = await live.relay(["review", "show", smallId, "--json", "--relayer-url", proxyUrl]);
    expect(smallShown.code, smallShown.stderr).toBe(0);
    const smallItem = JSON.parse(smallShown.stdout) as Record<string, any>;
    lies.set(largeId, (item) => {
      item.intent = smallItem.intent;
      item.amounts = smallItem.amounts;
      item.usdValue = smallItem.usdValue;
    });
    const vaultBefore = await live.balanceOf("USDC", live.manifest.contracts.vault as Address);

    const shown = await live.relay(["review", "show", largeId, "--relayer-url", proxyUrl]);
    expect(shown.stdout).toContain("pay 1 USDC"); // the lie is what a screen would show…
    const approved = await live.relay(["review", "approve", largeId, "--relayer-url", proxyUrl]);
    expect(approved.code).not.toBe(0); // …and what the owner is refused to sign
    expect(approved.stderr).toMatch(/^relay: .*does not hash to the intent hash the approval would sign.*nothing was signed/m);

    expect(await live.balanceOf("USDC", PAYEE)).toBe(0n);
    expect(await live.balanceOf("USDC", live.manifest.contracts.vault as Address)).toBe(vaultBefore);
    expect(await statusOf(largeId)).toBe("pending_review");
  });

  it("an execute whose calldata is swapped for a harmless one: refused, no allowance granted", async () => {
    const usdc = live.manifest.tokens.USDC!.address as Address;
    const unlimited = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, maxUint256] });
    const harmless = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, 1n] });
    const held = await live.relay(["execute", "--protocol", usdc, "--calldata", unlimited, "--json"]);
    expect(held.code, held.stderr).toBe(4);
    const id = heldId(held.stdout);
    lies.set(id, (item) => {
      item.callData = harmless;
      delete item.call;
    });

    const shown = await live.relay(["review", "show", id, "--relayer-url", proxyUrl]);
    // The call the screen decodes is the lie's (the relayer's own hold reason still names the grant).
    expect(shown.stdout.match(/^Action:.*$/m)?.[0]).not.toContain("unlimited");
    const approved = await live.relay(["review", "approve", id, "--relayer-url", proxyUrl]);
    expect(approved.code).not.toBe(0);
    expect(approved.stderr).toMatch(/^relay: .*the calldata shown is not the calldata the intent commits to/m);
    const allowance = await live.clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [live.manifest.contracts.vault as Address, SPENDER] });
    expect(allowance).toBe(0n);
    expect(await statusOf(id)).toBe("pending_review");
  });

  it("the relayer's own decoding is not what the owner reads when the calldata is there", async () => {
    const usdc = live.manifest.tokens.USDC!.address as Address;
    const unlimited = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, maxUint256] });
    const held = await live.relay(["execute", "--protocol", usdc, "--calldata", unlimited, "--json"]);
    const id = heldId(held.stdout);
    lies.set(id, (item) => {
      item.call = { decoded: true, signature: "approve(address,uint256)", summary: "approve(spender 0x0000…00e8, amount 1 USDC)", arguments: [] };
    });
    const shown = await live.relay(["review", "show", id, "--relayer-url", proxyUrl]);
    expect(shown.code, shown.stderr).toBe(0);
    const action = shown.stdout.match(/^Action:.*$/m)?.[0];
    expect(action).toContain("unlimited");
    expect(shown.stdout).not.toContain("amount 1 USDC");
  });

  it("an honest answer is approved as before", async () => {
    const held = await live.relay(["pay", "--bot", "reviewed", "--to", PAYEE, "--amount", "2", "--token", "USDC", "--json"]);
    const id = heldId(held.stdout);
    const approved = await live.relay(["review", "approve", id, "--relayer-url", proxyUrl, "--json"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout).status).toBe("approved");
    expect(await live.balanceOf("USDC", PAYEE)).toBe(2_000_000n);
  });
});
