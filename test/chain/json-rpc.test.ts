// The lean JSON-RPC clients behind every URL's viem clients (src/chain/json-rpc.ts, the relayer's over
// undici; src/chain/json-rpc-http.ts, the CLI's over node:http; each test runs on both): on a real anvil
// it answers what viem's own http transport answers, results and node errors alike (the error
// classes, codes and revert data viem's error mapping and the relayer's revert decoding read); a
// node that is down, silent, or answering garbage gives the transport errors rpc-errors.ts turns
// into RPC_ERROR; credentials in the URL become a Basic header and appear in no error.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, http, HttpRequestError, RpcRequestError, TimeoutError, type Address, type Hex } from "viem";
import { clientsFor, chainFor, type ClientsOptions } from "../../src/chain/clients.ts";
import { callText, jsonRpcClient as undiciClient } from "../../src/chain/json-rpc.ts";
import { httpJsonRpcClient } from "../../src/chain/json-rpc-http.ts";
import { rpcFailure, isTransportFailure } from "../../src/relayer/rpc-errors.ts";
import { startAnvil, type Anvil } from "../support/anvil.ts";
import { freePort } from "../support/free-port.ts";

const CHAIN_ID = 31337;
/** Runtime code that reverts with Error("nope"): PUSH the encoded reason to memory, then REVERT. */
const REVERTING_CODE = (() => {
  const reason = "08c379a0" + (32).toString(16).padStart(64, "0") + (4).toString(16).padStart(64, "0") + Buffer.from("nope").toString("hex").padEnd(64, "0");
  // CODECOPY the reason (appended after the 12-byte prelude) to memory 0, then REVERT(0, len).
  const len = reason.length / 2;
  const prelude = `61${len.toString(16).padStart(4, "0")}600c60003961${len.toString(16).padStart(4, "0")}6000fd`;
  return `0x${prelude}${reason}` as Hex;
})();
const TARGET = "0x00000000000000000000000000000000000c0ffe" as Address;

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
});
afterAll(async () => {
  await anvil?.stop();
});

/** Each lean client, by clientsFor's name for it. */
const transports = [
  ["undici", undiciClient],
  ["node:http", httpJsonRpcClient],
] as const satisfies readonly (readonly [NonNullable<ClientsOptions["transport"]>, typeof undiciClient])[];

async function caught(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected a rejection");
}

describe("a call's JSON text", () => {
  it("is JSON.stringify's for any params, long strings included (hex, quotes, backslashes, control characters, lone surrogates)", () => {
    const long = fc.oneof(
      fc.uint8Array({ minLength: 256, maxLength: 3000 }).map((b) => `0x${Buffer.from(b).toString("hex")}`),
      fc.tuple(fc.string({ unit: "binary", minLength: 0, maxLength: 40 }), fc.integer({ min: 300, max: 2000 })).map(([s, n]) => "ab".repeat(n) + s),
      fc.string({ unit: "binary", minLength: 500, maxLength: 1500 }),
      fc.constantFrom("\\n".repeat(600), '"'.repeat(600), "\u0001".repeat(600), "\ud800".repeat(600), "é".repeat(600)),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, long, fc.jsonValue(), fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(fc.string(), tie("node"), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(fc.string(), fc.option(fc.array(value, { maxLength: 4 }), { nil: undefined }), (method, params) => {
        const body = { jsonrpc: "2.0", id: 7, method, params };
        expect(callText(body)).toBe(JSON.stringify(body));
      }),
      { numRuns: 300 },
    );
  });

  it("is JSON.stringify's when the same long strings come back call after call (kept ones and look-alikes)", () => {
    // Look-alikes: the same length and the same characters but one, each a different string.
    const base = "0x" + "a1".repeat(2000);
    const lookAlikes = Array.from({ length: 6 }, (_, i) => base.slice(0, 1001) + "bcdef0"[i] + base.slice(1002));
    const pool = fc.constantFrom(...lookAlikes, "0x" + "ff".repeat(900), "q".repeat(700) + '"', "\\".repeat(600), "0x" + "00".repeat(300));
    fc.assert(
      fc.property(fc.array(fc.array(pool, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 30 }), (calls) => {
        for (const params of calls) {
          const body = { jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: params[0], code: params[1] }, params[2] ?? "latest"] };
          expect(callText(body)).toBe(JSON.stringify(body));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps an object's own __proto__ key as a key, as JSON.stringify does (found by the property above)", () => {
    // JSON.parse makes __proto__ an own key (an object literal would set the prototype instead).
    for (const params of ['[{"__proto__":false}]', '[{"__proto__":{"a":"0x01"},"b":1}]', '[{"x":{"__proto__":[1,2]}}]']) {
      const body = { jsonrpc: "2.0", id: 7, method: "eth_call", params: JSON.parse(params) as unknown[] };
      expect(callText(body)).toBe(JSON.stringify(body));
    }
  });

  it("writes bigints as decimal strings, as viem's transport did", () => {
    expect(callText({ method: "evm_increaseTime", params: [3600n, { n: 1n << 70n }] })).toBe(`{"method":"evm_increaseTime","params":["3600",{"n":"${1n << 70n}"}]}`);
  });
});

for (const [transport, jsonRpcClient] of transports) {
  /** The same call through viem's http transport and through clientsFor (the lean client). */
  function bothClients() {
    const reference = createPublicClient({ chain: chainFor(CHAIN_ID, anvil.url), transport: http(anvil.url, { retryCount: 0 }), cacheTime: 0 });
    const lean = clientsFor(anvil.url, CHAIN_ID, { transport }).publicClient;
    return { reference, lean };
  }

  describe(`${transport}: on a real anvil`, () => {
    it("answers what viem's http transport answers", async () => {
      const { reference, lean } = bothClients();
      expect(await lean.getChainId()).toBe(CHAIN_ID);
      expect(await lean.getBlockNumber()).toBe(await reference.getBlockNumber());
      const [a, b] = await Promise.all([lean.getBlock({ blockTag: "latest" }), reference.getBlock({ blockTag: "latest" })]);
      expect(a).toEqual(b);
      const account = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" as Address;
      expect(await lean.getBalance({ address: account })).toBe(await reference.getBalance({ address: account }));
      // Many calls at once share the pool's connections and each gets its own answer.
      const numbers = await Promise.all(Array.from({ length: 64 }, (_, i) => lean.request({ method: "eth_getBlockByNumber", params: ["0x0", false] }).then((block) => [i, (block as { number: Hex }).number])));
      expect(numbers).toEqual(Array.from({ length: 64 }, (_, i) => [i, "0x0"]));
    });

    it("a reverting eth_call throws viem's error with the node's code and revert data, as viem's transport does", async () => {
      const { reference, lean } = bothClients();
      const call = (client: typeof lean) => client.call({ to: TARGET, data: "0x", stateOverride: [{ address: TARGET, code: REVERTING_CODE }] });
      const [ours, theirs] = await Promise.all([caught(call(lean)), caught(call(reference))]);
      expect(ours.name).toBe(theirs.name);
      expect((ours as { shortMessage?: string }).shortMessage).toBe((theirs as { shortMessage?: string }).shortMessage);
      const raw = (error: unknown) => (error as { walk(fn: (e: unknown) => boolean): { code?: number; data?: unknown } }).walk((e) => e instanceof RpcRequestError);
      expect(raw(ours).code).toBe(raw(theirs).code);
      expect(raw(ours).data).toBe(raw(theirs).data);
      expect(String(raw(ours).data)).toContain(Buffer.from("nope").toString("hex"));
      // Not a transport failure: the relayer reports the revert, not RPC_ERROR.
      expect(isTransportFailure(ours)).toBe(false);
    });

    it("goes through HTTP(S)_PROXY when Node is told to honour it (NODE_USE_ENV_PROXY=1), as fetch does (undici's client, whichever was asked for)", async () => {
      // A proxy that records the host of every request it carries, forwarded (absolute-form) or tunnelled (CONNECT).
      const tunnels: string[] = [];
      const proxy = createServer((req, res) => {
        const target = new URL(req.url ?? "");
        tunnels.push(target.host);
        const forward = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        forward.on("error", () => res.destroy());
        req.pipe(forward);
      });
      proxy.on("connect", (req, socket, head) => {
        tunnels.push(req.url ?? "");
        const [host, port] = (req.url ?? "").split(":");
        const upstream = connect(Number(port), host, () => {
          socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          upstream.write(head);
          upstream.pipe(socket).pipe(upstream);
        });
        upstream.on("error", () => socket.destroy());
        socket.on("error", () => upstream.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      const saved = { NODE_USE_ENV_PROXY: process.env.NODE_USE_ENV_PROXY, HTTP_PROXY: process.env.HTTP_PROXY };
      try {
        process.env.NODE_USE_ENV_PROXY = "1";
        process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        // node:http has no proxy support on every supported Node: clientsFor gives undici's client then.
        expect(await clientsFor(anvil.url, CHAIN_ID, { transport }).publicClient.getChainId()).toBe(CHAIN_ID);
        expect(tunnels).toEqual([new URL(anvil.url).host]);
      } finally {
        for (const [key, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[key];
          else process.env[key] = value;
        }
        proxy.closeAllConnections();
        await new Promise<void>((resolve) => proxy.close(() => resolve()));
      }
    });

    it("an unknown method throws the same mapped error as viem's transport", async () => {
      const { reference, lean } = bothClients();
      const ask = (client: typeof lean) => client.request({ method: "relay_noSuchMethod" as never, params: [] as never });
      const [ours, theirs] = await Promise.all([caught(ask(lean)), caught(ask(reference))]);
      expect(ours.name).toBe(theirs.name);
      expect(ours.code).toBe(theirs.code);
    });
  });

  describe(`${transport}: a node that fails`, () => {
    let server: Server;
    let url: string;
    let handle: (req: IncomingMessage, body: string, res: import("node:http").ServerResponse) => void = () => {};
    const seenAuth: (string | undefined)[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        seenAuth.push(req.headers.authorization);
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () => handle(req, body, res));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("refusing connections: HttpRequestError, a transport failure, RPC_ERROR", async () => {
      const closedPort = await freePort();
      const client = jsonRpcClient(`http://127.0.0.1:${closedPort}`);
      const error = await caught(client.request({ method: "eth_blockNumber" }));
      expect(error).toBeInstanceOf(HttpRequestError);
      expect(isTransportFailure(error)).toBe(true);
      const relayed = await caught(rpcFailure(() => clientsFor(`http://127.0.0.1:${closedPort}`, CHAIN_ID, { transport }).publicClient.getBlockNumber()));
      expect(relayed.code).toBe("RPC_ERROR");
    });

    it("silent past the timeout: TimeoutError after about timeoutMs, RPC_ERROR; the client still works after", async () => {
      handle = () => {}; // never answers
      const client = jsonRpcClient(url, { timeoutMs: 300 });
      const started = Date.now();
      const error = await caught(client.request({ method: "eth_blockNumber" }));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect((await caught(rpcFailure(() => clientsFor(url, CHAIN_ID, { timeoutMs: 300, transport }).publicClient.getBlockNumber()))).code).toBe("RPC_ERROR");
      handle = (_req, _body, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x2a" }));
      expect(await client.request({ method: "eth_blockNumber" })).toBe("0x2a");
      await client.close();
    });

    it("a body that stalls after the headers also times out", async () => {
      handle = (_req, _body, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"jsonrpc":"2.0","id":1,');
      };
      const error = await caught(jsonRpcClient(url, { timeoutMs: 300 }).request({ method: "eth_blockNumber" }));
      expect(error).toBeInstanceOf(TimeoutError);
    });

    it("an error status without a JSON-RPC error, or an answer that is not JSON: HttpRequestError with the status", async () => {
      handle = (_req, _body, res) => res.writeHead(503, { "content-type": "text/plain" }).end("overloaded");
      const unavailable = await caught(jsonRpcClient(url).request({ method: "eth_blockNumber" }));
      expect(unavailable).toBeInstanceOf(HttpRequestError);
      expect(unavailable.status).toBe(503);
      expect(unavailable.message).toContain("overloaded");
      expect(isTransportFailure(unavailable)).toBe(true);
      handle = (_req, _body, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>");
      expect(await caught(jsonRpcClient(url).request({ method: "eth_blockNumber" }))).toBeInstanceOf(HttpRequestError);
    });

    it("a JSON-RPC error under an error status keeps its code (viem maps it, e.g. a rate limit)", async () => {
      handle = (_req, _body, res) => res.writeHead(429, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32005, message: "limit exceeded" } }));
      const direct = await caught(jsonRpcClient(url).request({ method: "eth_blockNumber" }));
      expect(direct).toBeInstanceOf(RpcRequestError);
      expect(direct.code).toBe(-32005);
      const mapped = await caught(clientsFor(url, CHAIN_ID, { transport }).publicClient.getBlockNumber());
      expect(mapped.name).toBe("LimitExceededRpcError");
    });

    it("sends the call as one JSON-RPC request; user:password in the URL becomes a Basic header, named in no error", async () => {
      let sent: { jsonrpc?: string; method?: string; params?: unknown } = {};
      handle = (_req, body, res) => {
        sent = JSON.parse(body) as typeof sent;
        res.writeHead(500, { "content-type": "text/plain" }).end("no");
      };
      seenAuth.length = 0;
      const withKey = url.replace("http://", "http://alice:s3cr%40t@") + "/v2/path?x=1";
      const error = await caught(jsonRpcClient(withKey).request({ method: "eth_getBalance", params: ["0x00", "latest"] }));
      expect(sent).toMatchObject({ jsonrpc: "2.0", method: "eth_getBalance", params: ["0x00", "latest"] });
      expect(seenAuth).toEqual([`Basic ${Buffer.from("alice:s3cr@t").toString("base64")}`]);
      expect(error.message).not.toContain("s3cr");
      expect(error.message).not.toContain("alice");
    });

    it("a URL that is not http(s) fails each call with HttpRequestError, as viem's transport did", async () => {
      const error = await caught(jsonRpcClient("not a url").request({ method: "eth_blockNumber" }));
      expect(error).toBeInstanceOf(HttpRequestError);
    });
  });
}
