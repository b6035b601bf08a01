// The relayer's HTTP JSON-RPC client for a node URL, plugged into viem as an EIP-1193 provider
// (clients.ts). viem's own http transport goes through fetch: a Request object, web streams for the
// body each way, an AbortSignal per call. On a busy relayer that machinery cost more CPU than the
// node calls' own work, so this client hands each call straight to an undici Pool (keep-alive
// connections to the node) and gathers the answer's bytes itself. It answers and fails as viem's
// transport did (json-rpc-wire.ts). The CLI's short commands use json-rpc-http.ts instead.
import { createRequire } from "node:module";
import type { Dispatcher } from "undici";
import { HttpRequestError, ResponseBodyTooLargeError, TimeoutError } from "viem";
import { useEnvProxy } from "./env-proxy.ts";
import { DEFAULT_TIMEOUT_MS, MAX_RESPONSE_BYTES, callText, endpointOf, failingClient, rpcBody, rpcResult, type Endpoint, type JsonRpcClient, type RpcBody } from "./json-rpc-wire.ts";

export { callText, type JsonRpcClient, type JsonRpcRequest } from "./json-rpc-wire.ts";

// undici is loaded by the first client made, not with this module: clients.ts imports this file for
// every command, and a CLI command that talks over node:http (json-rpc-http.ts) would otherwise load
// and run undici for nothing. Only its two dispatchers, not its index: that loads all of undici
// (fetch, WebSocket, caches, mocks: ~110 modules, ~30 MB) to add a request API this client never
// calls (it uses the dispatchers' own dispatch() and close()).
type Undici = Pick<typeof import("undici"), "Pool" | "EnvHttpProxyAgent">;
let undici: Undici | undefined;
function loadUndici(): Undici {
  const require = createRequire(import.meta.url);
  return (undici ??= {
    Pool: require("undici/lib/dispatcher/pool.js") as Undici["Pool"],
    EnvHttpProxyAgent: require("undici/lib/dispatcher/env-http-proxy-agent.js") as Undici["EnvHttpProxyAgent"],
  });
}

/** A JSON-RPC client for `url` (http or https), `timeoutMs` per call. */
export function jsonRpcClient(url: string, options: { timeoutMs?: number } = {}): JsonRpcClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let endpoint: Endpoint;
  let pool: Dispatcher;
  try {
    endpoint = endpointOf(url);
    const { EnvHttpProxyAgent, Pool } = loadUndici();
    // As many connections as calls in flight (like fetch's global agent); idle ones are kept alive
    // and do not hold the process open. Where Node is told to honour HTTP(S)_PROXY for fetch
    // (NODE_USE_ENV_PROXY), so is this client.
    pool = useEnvProxy() ? new EnvHttpProxyAgent() : new Pool(endpoint.origin, { pipelining: 1 });
  } catch (error) {
    // Not an http(s) URL: each call fails as viem's transport failed it, with the reason as cause.
    return failingClient(url, error as Error);
  }
  return {
    request: (args) =>
      new Promise((resolve, reject) => {
        new Call(endpoint, rpcBody(args), timeoutMs, resolve, reject).send(pool);
      }),
    close: () => pool.close(),
  };
}

/** One call in flight: undici's handler for its request, settling the caller's promise once. */
class Call implements Dispatcher.DispatchHandler {
  readonly #endpoint: Endpoint;
  readonly #body: RpcBody;
  readonly #resolve: (value: unknown) => void;
  readonly #reject: (error: unknown) => void;
  readonly #timer: NodeJS.Timeout;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #status = 0;
  #contentType = "";
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(endpoint: Endpoint, body: RpcBody, timeoutMs: number, resolve: (value: unknown) => void, reject: (error: unknown) => void) {
    this.#endpoint = endpoint;
    this.#body = body;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(() => this.#fail(new TimeoutError({ body, url: endpoint.url })), timeoutMs);
  }

  send(pool: Dispatcher): void {
    let text: string;
    try {
      text = callText(this.#body);
    } catch (error) {
      return this.#fail(new HttpRequestError({ body: this.#body, cause: error as Error, url: this.#endpoint.url }));
    }
    try {
      pool.dispatch({ origin: this.#endpoint.origin, path: this.#endpoint.path, method: "POST", headers: this.#endpoint.headers, body: text }, this);
    } catch (error) {
      this.#fail(new HttpRequestError({ body: this.#body, cause: error as Error, url: this.#endpoint.url }));
    }
  }

  /** Settles with `error` and abandons the request (a timed-out call's connection is closed). */
  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#chunks = [];
    this.#controller?.abort(error as Error);
    this.#reject(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Timed out while queued for a connection: never send it.
    if (this.#settled) controller.abort(new Error("the call was abandoned"));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = statusCode;
    const type = headers["content-type"];
    this.#contentType = (Array.isArray(type) ? type[0] : type) ?? "";
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#bytes += chunk.length;
    if (this.#bytes > MAX_RESPONSE_BYTES) return this.#fail(new ResponseBodyTooLargeError({ maxSize: MAX_RESPONSE_BYTES, size: this.#bytes }));
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    const chunks = this.#chunks;
    const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, this.#bytes).toString("utf8");
    this.#chunks = [];
    try {
      this.#resolve(rpcResult(this.#body, this.#endpoint.url, { status: this.#status, contentType: this.#contentType, text }));
    } catch (error) {
      this.#reject(error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    this.#fail(new HttpRequestError({ body: this.#body, cause: error, url: this.#endpoint.url }));
  }
}
