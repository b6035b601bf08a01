// A lean HTTP JSON-RPC client for a node URL, plugged into viem as an EIP-1193 provider (clients.ts).
// viem's own http transport goes through fetch: a Request object, web streams for the body each
// way, an AbortSignal per call. On a busy relayer that machinery cost more CPU than the node calls'
// own work, so this client hands each call straight to an undici Pool (keep-alive connections to the
// node) and gathers the answer's bytes itself.
//
// It keeps viem's behaviour, so everything above it (viem's error mapping, rpc-errors.ts, revert
// decoding) sees what it saw before:
// - a JSON-RPC error answer throws viem's RpcRequestError (its `code` and `data` are the node's);
// - no answer within `timeoutMs` (queueing, sending and reading the whole body) throws TimeoutError;
// - a connection failure throws HttpRequestError with the socket error as its cause; a non-2xx
//   answer that is not a JSON-RPC error throws HttpRequestError with the status;
// - user:password in the URL becomes a Basic Authorization header and leaves the URL, like viem's.
// No retries here: the relayer decides (clients.ts sets viem's retryCount to 0 as before).
import { EnvHttpProxyAgent, Pool, type Dispatcher } from "undici";
import { HttpRequestError, ResponseBodyTooLargeError, RpcRequestError, TimeoutError } from "viem";

export interface JsonRpcRequest {
  method: string;
  params?: unknown;
}

export interface JsonRpcClient {
  /** The EIP-1193 `request`: the call's `result`, or a thrown viem error (see above). */
  request(args: JsonRpcRequest): Promise<unknown>;
  /** Closes the pooled connections (pending calls finish first). */
  close(): Promise<void>;
}

/** viem's default ceilings: 10 s for one call, 10 MiB for one answer. */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 10_485_760;

/** Where to send calls: the pool's origin, the request path, the headers (Basic auth from the URL). */
interface Endpoint {
  origin: string;
  path: string;
  /** The URL without credentials, for errors (viem's getUrl would strip them too). */
  url: string;
  headers: Record<string, string>;
}

function endpointOf(url: string): Endpoint {
  const parsed = new URL(url);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (parsed.username || parsed.password) {
    const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
    parsed.username = "";
    parsed.password = "";
  }
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, url: parsed.toString(), headers };
}

/** A call as sent: viem puts it in its errors' "Request body". */
type RpcBody = {
  jsonrpc: "2.0";
  id: number;
  method: string;
  params?: unknown;
};

let nextId = 0;

function useEnvProxy(): boolean {
  const env = process.env;
  return env.NODE_USE_ENV_PROXY === "1" && Boolean(env.HTTP_PROXY || env.HTTPS_PROXY || env.http_proxy || env.https_proxy);
}

/** A JSON-RPC client for `url` (http or https), `timeoutMs` per call. */
export function jsonRpcClient(url: string, options: { timeoutMs?: number } = {}): JsonRpcClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let endpoint: Endpoint;
  let pool: Dispatcher;
  try {
    endpoint = endpointOf(url);
    // As many connections as calls in flight (like fetch's global agent); idle ones are kept alive
    // and do not hold the process open. Where Node is told to honour HTTP(S)_PROXY for fetch
    // (NODE_USE_ENV_PROXY), so is this client.
    pool = useEnvProxy() ? new EnvHttpProxyAgent() : new Pool(endpoint.origin, { pipelining: 1 });
  } catch (error) {
    // Not an http(s) URL: each call fails as viem's transport failed it, with the reason as cause.
    return {
      request: ({ method, params }) => Promise.reject(new HttpRequestError({ body: { method, params }, cause: error as Error, url })),
      close: async () => {},
    };
  }
  return {
    request: ({ method, params }) =>
      new Promise((resolve, reject) => {
        const body: RpcBody = { jsonrpc: "2.0", id: nextId++, method, params };
        new Call(endpoint, body, timeoutMs, resolve, reject).send(pool);
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
    const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    this.#chunks = [];
    try {
      this.#resolve(this.#answer(text));
    } catch (error) {
      this.#reject(error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    this.#fail(new HttpRequestError({ body: this.#body, cause: error, url: this.#endpoint.url }));
  }

  /** The call's result from the answer's text, or the error viem's http transport would throw. */
  #answer(text: string): unknown {
    const ok = this.#status >= 200 && this.#status < 300;
    const body = this.#body;
    const url = this.#endpoint.url;
    let data: { result?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      data = JSON.parse(text || "{}") as typeof data;
    } catch (error) {
      // A 2xx answer that is not JSON is a broken node; otherwise report the status and its text.
      if (ok || this.#contentType.startsWith("application/json")) throw new HttpRequestError({ body, cause: error as Error, status: this.#status, url });
      throw new HttpRequestError({ body, details: text || `HTTP ${this.#status}`, status: this.#status, url });
    }
    const error = data?.error;
    const isRpcError = typeof error?.code === "number" && typeof error.message === "string";
    if (isRpcError) throw new RpcRequestError({ body, error: error as { code: number; message: string }, status: ok ? undefined : this.#status, url });
    if (!ok) throw new HttpRequestError({ body, details: JSON.stringify(error) ?? `HTTP ${this.#status}`, status: this.#status, url });
    return data?.result;
  }
}

// JSON.stringify looks at every character of a string for what needs escaping, ~2 ns a character:
// the simulating lens's code (18 KB, in every readAndSimulate call), calldata and signed batches
// (~10 KB) made that the larger part of sending a call. A long string with nothing to escape is
// handed to JSON.stringify as JSON text instead (JSON.rawJSON, which checks it natively, 4x faster);
// the output is the same text.
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
const RAW_MIN_LENGTH = 512;

/**
 * The long strings made raw JSON lately, most recently used first, with what they were made into.
 * The simulating lens's code (18 KB) is in every readAndSimulate call: found here, it is neither
 * scanned nor copied again. A string not here costs a few comparisons, each a length check or a
 * compare of the characters up to the first that differs.
 */
class RecentRaw {
  readonly #entries: Array<{ text: string; raw: unknown }> = [];
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  find(text: string): unknown {
    const entries = this.#entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (entry.text !== text) continue;
      if (i > 0) {
        entries.splice(i, 1);
        entries.unshift(entry);
      }
      return entry.raw;
    }
    return undefined;
  }

  add(text: string, raw: unknown): void {
    this.#entries.unshift({ text, raw });
    if (this.#entries.length > this.#size) this.#entries.pop();
  }
}

const recentRaw = new RecentRaw(8);

/** A call's JSON text: JSON.stringify's (with bigints as viem writes them), faster for long strings. */
export function callText(body: { method: string; params?: unknown }): string {
  return JSON.stringify({ ...body, params: withRawStrings(body.params) });
}

/** `value` with every long string that needs no escaping as raw JSON text, and bigints as decimal strings (as viem's stringify); the rest as is. */
function withRawStrings(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") {
    if (rawJSON === undefined || value.length < RAW_MIN_LENGTH) return value;
    const known = recentRaw.find(value);
    if (known !== undefined) return known;
    // No backslash (it would read as an escape) and no lone surrogate (JSON.stringify escapes
    // those); quotes and control characters make rawJSON throw, and the string stays as it is.
    if (value.indexOf("\\") !== -1 || !(value as unknown as { isWellFormed(): boolean }).isWellFormed()) return value;
    let raw: unknown;
    try {
      raw = rawJSON(`"${value}"`);
    } catch {
      return value;
    }
    recentRaw.add(value, raw);
    return raw;
  }
  if (Array.isArray(value)) return value.map(withRawStrings);
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON !== "function") {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = withRawStrings((value as Record<string, unknown>)[key]);
    return copy;
  }
  return value;
}
