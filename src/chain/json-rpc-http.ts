// An HTTP JSON-RPC client over node:http, for the CLI's short commands: `relay pay` makes three calls
// and exits, and undici (the relayer's client, json-rpc.ts) costs such a command more than its calls
// do: loading and running ~600 KB of its code (the bundle's largest chunk) and instantiating its
// WebAssembly HTTP parser, on every call. node:http parses with the native llhttp already in Node's
// binary. Same results and the same errors as the relayer's client (json-rpc-wire.ts); no proxy
// support (with NODE_USE_ENV_PROXY, clients.ts uses the relayer's client).
import type { Agent, IncomingMessage } from "node:http";
import { HttpRequestError, ResponseBodyTooLargeError, TimeoutError } from "viem";
import { DEFAULT_TIMEOUT_MS, MAX_RESPONSE_BYTES, callText, endpointOf, failingClient, rpcBody, rpcResult, type Endpoint, type JsonRpcClient } from "./json-rpc-wire.ts";

// process.getBuiltinModule rather than an ES import: importing node:http as an ES module reads all of
// its exports, among them lazy getters (WebSocket) that load Node's built-in undici.
type HttpModule = typeof import("node:http");
const httpFor = (protocol: string): HttpModule => (protocol === "https:" ? process.getBuiltinModule("node:https") : process.getBuiltinModule("node:http")) as HttpModule;

/** A JSON-RPC client for `url` (http or https) over node:http, `timeoutMs` per call. */
export function httpJsonRpcClient(url: string, options: { timeoutMs?: number } = {}): JsonRpcClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let endpoint: Endpoint;
  let http: HttpModule;
  try {
    endpoint = endpointOf(url);
    const protocol = new URL(endpoint.origin).protocol;
    if (protocol !== "http:" && protocol !== "https:") throw new Error(`${protocol} is not http or https`);
    http = httpFor(protocol);
  } catch (error) {
    // Not an http(s) URL: each call fails as viem's transport failed it, with the reason as cause.
    return failingClient(url, error as Error);
  }
  // Keep-alive: a command's calls share a connection. Idle sockets do not hold the process open.
  const agent: Agent = new http.Agent({ keepAlive: true });
  const target = `${endpoint.origin}${endpoint.path}`;
  return {
    request: (args) => send(http, agent, target, endpoint, args, timeoutMs),
    close: async () => agent.destroy(),
  };
}

function send(http: HttpModule, agent: Agent, target: string, endpoint: Endpoint, args: { method: string; params?: unknown }, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const body = rpcBody(args);
    const { url } = endpoint;
    let text: string;
    try {
      text = callText(body);
    } catch (error) {
      return reject(new HttpRequestError({ body, cause: error as Error, url }));
    }
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    // One deadline for the whole call: connecting, sending and reading the whole answer.
    const timer = setTimeout(() => fail(new TimeoutError({ body, url })), timeoutMs);
    const request = http.request(target, {
      method: "POST",
      agent,
      headers: { ...endpoint.headers, "content-length": String(Buffer.byteLength(text)) },
    });
    request.on("error", (error) => fail(new HttpRequestError({ body, cause: error, url })));
    request.on("response", (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MAX_RESPONSE_BYTES) return fail(new ResponseBodyTooLargeError({ maxSize: MAX_RESPONSE_BYTES, size: bytes }));
        chunks.push(chunk);
      });
      response.on("error", (error) => fail(new HttpRequestError({ body, cause: error, url })));
      response.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const type = response.headers["content-type"] ?? "";
        try {
          resolve(rpcResult(body, url, { status: response.statusCode ?? 0, contentType: type, text: Buffer.concat(chunks).toString("utf8") }));
        } catch (error) {
          reject(error);
        }
      });
    });
    request.end(text);
  });
}
