// What goes over the wire of a JSON-RPC call, for both of relay's HTTP JSON-RPC clients (the relayer's
// undici pool, json-rpc.ts; the CLI's node:http one, json-rpc-http.ts): the endpoint of a node URL,
// a call's JSON text, and its answer read back into the call's result or the error viem's own http
// transport would throw, so that everything above the clients (viem's error mapping, rpc-errors.ts,
// revert decoding) sees what it saw with viem's transport:
// - a JSON-RPC error answer throws viem's RpcRequestError (its `code` and `data` are the node's);
// - no answer within `timeoutMs` (queueing, sending and reading the whole body) throws TimeoutError;
// - a connection failure throws HttpRequestError with the socket error as its cause; a non-2xx
//   answer that is not a JSON-RPC error throws HttpRequestError with the status;
// - user:password in the URL becomes a Basic Authorization header and leaves the URL, like viem's.
// No retries: the relayer decides (clients.ts sets viem's retryCount to 0 as before).
import { HttpRequestError, RpcRequestError } from "viem";

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
export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 10_485_760;

/** Where to send calls: the node's origin, the request path, the headers (Basic auth from the URL). */
export interface Endpoint {
  origin: string;
  path: string;
  /** The URL without credentials, for errors (viem's getUrl would strip them too). */
  url: string;
  headers: Record<string, string>;
}

/** The endpoint of a node URL; throws when it is not a URL. */
export function endpointOf(url: string): Endpoint {
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
export type RpcBody = {
  jsonrpc: "2.0";
  id: number;
  method: string;
  params?: unknown;
};

let nextId = 0;

/** The body of a new call (ids count up per process). */
export function rpcBody({ method, params }: JsonRpcRequest): RpcBody {
  return { jsonrpc: "2.0", id: nextId++, method, params };
}

/** An HTTP answer to a call: its status, content type and whole body text. */
export interface RpcAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** The call's result from its answer, or the error viem's http transport would throw. */
export function rpcResult(body: RpcBody, url: string, answer: RpcAnswer): unknown {
  const { status, contentType, text } = answer;
  const ok = status >= 200 && status < 300;
  let data: { result?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    data = JSON.parse(text || "{}") as typeof data;
  } catch (error) {
    // A 2xx answer that is not JSON is a broken node; otherwise report the status and its text.
    if (ok || contentType.startsWith("application/json")) throw new HttpRequestError({ body, cause: error as Error, status, url });
    throw new HttpRequestError({ body, details: text || `HTTP ${status}`, status, url });
  }
  const error = data?.error;
  const isRpcError = typeof error?.code === "number" && typeof error.message === "string";
  if (isRpcError) throw new RpcRequestError({ body, error: error as { code: number; message: string }, status: ok ? undefined : status, url });
  if (!ok) throw new HttpRequestError({ body, details: JSON.stringify(error) ?? `HTTP ${status}`, status, url });
  return data?.result;
}

/** A client whose every call fails as viem's transport failed a URL that is not http(s), the reason as cause. */
export function failingClient(url: string, cause: Error): JsonRpcClient {
  return {
    request: ({ method, params }) => Promise.reject(new HttpRequestError({ body: { method, params }, cause, url })),
    close: async () => {},
  };
}

// JSON.stringify looks at every character of a string for what needs escaping, ~2 ns a character:
// the simulating lens's code (18 KB, in every readAndSimulate call where the chain does not have the
// lens deployed to delegate to), calldata and signed batches
// (~10 KB) made that the larger part of sending a call. A long string with nothing to escape is
// handed to JSON.stringify as JSON text instead (JSON.rawJSON, which checks it natively, 4x faster);
// the output is the same text.
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
const RAW_MIN_LENGTH = 512;

/**
 * The long strings seen more than once lately, with the raw JSON they were made into, most recently
 * used first. The simulating lens's code (18 KB) is in every readAndSimulate call where it is not
 * delegated to (src/relayer/chain/lens-code.ts): found here, it is
 * neither scanned nor copied again. A string seen once (a call's calldata, a signed transaction) is
 * only remembered by its fingerprint (its length and a few of its characters, no reference to it):
 * kept, the one-off strings and their raw copies would outlive the young generation's collections.
 * Seen again with the same fingerprint, it is kept. A string not kept costs a few comparisons, each a
 * length check or a compare of the characters up to the first that differs. Finding one allocates nothing.
 */
class RecentRaw {
  readonly #texts: string[] = [];
  readonly #raws: unknown[] = [];
  readonly #size: number;
  readonly #seen: number[];
  #nextSeen = 0;

  constructor(size: number) {
    this.#size = size;
    this.#seen = new Array<number>(size).fill(-1);
  }

  find(text: string): unknown {
    const texts = this.#texts;
    const raws = this.#raws;
    for (let i = 0; i < texts.length; i++) {
      if (texts[i] !== text) continue;
      const raw = raws[i];
      this.#putFirst(i, text, raw);
      return raw;
    }
    return undefined;
  }

  /** Keeps `raw` for `text` if a string with its fingerprint was seen lately; otherwise notes the fingerprint. */
  add(text: string, raw: unknown): void {
    const print = fingerprint(text);
    const seen = this.#seen;
    const at = seen.indexOf(print);
    if (at === -1) {
      seen[this.#nextSeen] = print;
      this.#nextSeen = (this.#nextSeen + 1) % seen.length;
      return;
    }
    seen[at] = -1;
    // Into a new last slot while there is room, else over the least recently used one.
    if (this.#texts.length < this.#size) {
      this.#texts.push(text);
      this.#raws.push(raw);
    }
    this.#putFirst(this.#texts.length - 1, text, raw);
  }

  /** `text` and `raw` first, the entries before slot `at` moved one down over it, in place. */
  #putFirst(at: number, text: string, raw: unknown): void {
    const texts = this.#texts;
    const raws = this.#raws;
    for (let j = at; j > 0; j--) {
      texts[j] = texts[j - 1]!;
      raws[j] = raws[j - 1];
    }
    texts[0] = text;
    raws[0] = raw;
  }
}

/** A non-negative 31-bit number (never the empty slot, -1) from a string's length and 33 of its characters spread over it. */
function fingerprint(text: string): number {
  const length = text.length;
  let hash = length | 0;
  const step = Math.max(1, Math.floor(length / 32));
  for (let i = length - 1; i >= 0 && i >= length - 32 * step; i -= step) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 1;
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
    for (const key of Object.keys(value)) {
      const item = withRawStrings((value as Record<string, unknown>)[key]);
      // An own "__proto__" key (JSON.parse makes one) assigned would set the copy's prototype instead.
      if (key === "__proto__") Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
      else copy[key] = item;
    }
    return copy;
  }
  return value;
}
