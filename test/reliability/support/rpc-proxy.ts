// A loopback JSON-RPC proxy with switchable faults, for the node-fault tests. It forwards each POST
// to a real node and records every method it saw. Faults:
//   refuse()                        the listener closes and open sockets are destroyed (ECONNREFUSED)
//   fault(method, { delayMs })      wait, then forward and answer (if the caller is still there)
//   fault(method, "blackhole")      read the request, never forward it, never answer
//   fault(method, "drop-response")  forward to the node, then destroy the socket instead of answering
//   fault(method, "reset")          destroy the socket without forwarding
// `method` "*" applies to every method; a method's own fault wins over "*".
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ProxyFault = "blackhole" | "drop-response" | "reset" | { delayMs: number };

/** One JSON-RPC call the proxy received, and what it did with it. */
export interface SeenCall {
  method: string;
  params: unknown[];
  /** "forwarded" (answered normally), or the fault applied. */
  handling: "forwarded" | "delayed" | "blackhole" | "drop-response" | "reset";
  /** For forwarded calls (also drop-response): the node's answer. */
  response?: { result?: unknown; error?: { code: number; message: string } };
}

export interface RpcProxy {
  readonly url: string;
  readonly port: number;
  /** Every call seen, in arrival order. */
  readonly seen: SeenCall[];
  /** The calls of one method. */
  calls(method: string): SeenCall[];
  fault(method: string, fault: ProxyFault): void;
  /** Removes every fault (does not re-open a refused listener; see accept()). */
  clearFaults(): void;
  /** Closes the listener and destroys every open socket: new connections are refused. */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

interface RpcBody {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  const faults = new Map<string, ProxyFault>();
  const seen: SeenCall[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void handle(req, res).catch(() => req.socket.destroy()));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await listenOn(0);
  const port = (server.address() as AddressInfo).port;

  function listenOn(p: number): Promise<void> {
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(p, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: RpcBody | RpcBody[];
    try {
      body = JSON.parse(text) as RpcBody | RpcBody[];
    } catch {
      body = {};
    }
    const calls = (Array.isArray(body) ? body : [body]).map((b) => ({
      method: typeof b.method === "string" ? b.method : "",
      params: Array.isArray(b.params) ? (b.params as unknown[]) : [],
    }));
    const fault = calls.map((c) => faults.get(c.method)).find((f) => f !== undefined) ?? faults.get("*");
    const entries: SeenCall[] = calls.map((c) => ({ ...c, handling: "forwarded" }));
    seen.push(...entries);
    const mark = (handling: SeenCall["handling"]) => entries.forEach((e) => (e.handling = handling));

    if (fault === "reset") {
      mark("reset");
      req.socket.destroy();
      return;
    }
    if (fault === "blackhole") {
      mark("blackhole");
      return;
    }
    if (typeof fault === "object") {
      mark("delayed");
      await new Promise((r) => setTimeout(r, fault.delayMs));
    }
    let answer: string;
    try {
      const upstreamRes = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: text });
      answer = await upstreamRes.text();
    } catch {
      req.socket.destroy();
      return;
    }
    try {
      const parsed = JSON.parse(answer) as SeenCall["response"] | SeenCall["response"][];
      (Array.isArray(parsed) ? parsed : [parsed]).forEach((r, i) => entries[i] && (entries[i].response = r));
    } catch {
      // not JSON: leave the responses unrecorded
    }
    if (fault === "drop-response") {
      mark("drop-response");
      req.socket.destroy();
      return;
    }
    if (res.destroyed || req.socket.destroyed) return;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
    res.end(answer);
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    calls: (method) => seen.filter((c) => c.method === method),
    fault: (method, fault) => void faults.set(method, fault),
    clearFaults: () => faults.clear(),
    async refuse() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async accept() {
      if (!server.listening) await listenOn(port);
    },
    async close() {
      faults.clear();
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
