// Exposes an in-process chain's EIP-1193 provider as Ethereum JSON-RPC over HTTP (single and batch
// requests), bound to loopback only. Methods of relay's own (relay_snapshot, relay_revert: the
// testing harness's, src/devnet/snapshots.ts) can be added beside the node's; they answer first. A
// hook may follow the node's answers (`relay serve` learns time travel there: cli/commands/serve.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { EIP1193Provider } from "viem";
import { readBody } from "../http-body.ts";

export const MAX_RPC_BODY_BYTES = 50 * 1024 * 1024;

interface RpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** A method this server answers itself instead of the node: its JSON-RPC params in, its result out. */
export type LocalMethod = (params: unknown[]) => Promise<unknown>;

/** A JSON-RPC error a local method throws: its code and message reach the caller as they are. */
export class RpcMethodError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** Called with a method's name once the node answered it. */
export type AfterAnswer = (method: string) => Promise<void>;

export interface RpcServer {
  readonly url: string;
  readonly port: number;
  /** Adds methods answered here, not by the node (replacing any added before); undefined removes them. */
  setLocalMethods(methods: ReadonlyMap<string, LocalMethod> | undefined): void;
  /**
   * Awaits `hook` after the node answered a call of `method` and before the caller hears back
   * (replacing any set before); undefined removes it. What the hook throws is dropped: the node's
   * answer stands, and the chain has already done what was asked.
   */
  setAfterAnswer(hook: AfterAnswer | undefined): void;
  close(): Promise<void>;
}

export async function startRpcServer(provider: EIP1193Provider, port = 8545, host = "127.0.0.1"): Promise<RpcServer> {
  let local: ReadonlyMap<string, LocalMethod> = new Map();
  let afterAnswer: AfterAnswer | undefined;
  const answer: Answer = async (method, params) => {
    const own = local.get(method);
    if (own) return own(params);
    const result = await provider.request({ method, params } as never);
    await afterAnswer?.(method).catch(() => {});
    return result;
  };
  const server = createServer((req, res) => void handle(answer, req, res));
  server.keepAliveTimeout = 65_000;
  await listen(server, port, host);
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    setLocalMethods: (methods) => {
      local = methods ?? new Map();
    },
    setAfterAnswer: (hook) => {
      afterAnswer = hook;
    },
    close: () => closeServer(server),
  };
}

type Answer = (method: string, params: unknown[]) => Promise<unknown>;

async function handle(answer: Answer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "OPTIONS") return reply(res, 204, undefined);
  if (req.method !== "POST") return reply(res, 405, rpcError(null, -32600, "JSON-RPC requests must be POSTed"));
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req, MAX_RPC_BODY_BYTES, () => new Error("too large")));
  } catch (error) {
    const tooLarge = (error as Error).message === "too large";
    return reply(res, tooLarge ? 413 : 400, rpcError(null, -32700, tooLarge ? "request body too large" : "parse error"));
  }
  if (Array.isArray(body)) {
    if (body.length === 0) return reply(res, 400, rpcError(null, -32600, "empty batch"));
    const answers = await Promise.all(body.map((one) => call(answer, one as RpcRequest)));
    return reply(res, 200, answers);
  }
  return reply(res, 200, await call(answer, body as RpcRequest));
}

async function call(answer: Answer, request: RpcRequest): Promise<object> {
  const id = request?.id ?? null;
  if (typeof request !== "object" || request === null || typeof request.method !== "string") {
    return rpcError(id, -32600, "invalid request");
  }
  try {
    const params = Array.isArray(request.params) ? request.params : [];
    const result = await answer(request.method, params);
    return { jsonrpc: "2.0", id, result: result ?? null };
  } catch (error) {
    const e = error as { code?: unknown; message?: string; data?: unknown };
    const code = typeof e.code === "number" ? e.code : -32603;
    return rpcError(id, code, e.message ?? "internal error", e.data);
  }
}

function rpcError(id: unknown, code: number, message: string, data?: unknown): object {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

function reply(res: ServerResponse, status: number, payload: unknown): void {
  const text = payload === undefined ? "" : JSON.stringify(payload, (_k, v) => (typeof v === "bigint" ? `0x${v.toString(16)}` : v));
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "access-control-allow-origin": "*",
    "access-control-allow-headers": "content-type",
  });
  res.end(text);
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
