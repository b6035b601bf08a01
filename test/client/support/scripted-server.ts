// A real HTTP server on 127.0.0.1 (random port) that answers from a per-test script and records
// every request it receives, for testing the client's retries against real sockets.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer. `delayMs` holds the answer back (to provoke client timeouts). */
export interface Step {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A request as the server saw it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface ScriptedServer {
  url: string;
  received: Received[];
  /** Answer the next requests with these steps in order; the last step repeats. */
  script(...steps: Step[]): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const received: Received[] = [];
  let steps: Step[] = [{ status: 500, body: { error: "no script", code: "INTERNAL_ERROR" } }];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      const step = steps[Math.min(next, steps.length - 1)];
      next++;
      if (!step) throw new Error("empty script");
      const send = (): void => {
        if (res.destroyed) return;
        const text = step.body === undefined ? "" : typeof step.body === "string" ? step.body : JSON.stringify(step.body);
        res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
        res.end(text);
      };
      if (step.delayMs) setTimeout(send, step.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script(...newSteps) {
      steps = newSteps;
      next = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL on which nothing listens: a port that was just bound and released. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
