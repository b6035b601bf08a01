// The CLI's fetch over node:http (src/cli/http-fetch.ts) against the global fetch, on the same real
// HTTP server: what the relay client reads of an answer (status, headers, body text) is the same; a
// refused connection fails the same way (the retry lines print its message); a redirect is followed;
// an abort rejects with the signal's reason; and a whole RelayClient works over it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import type { FetchFunction } from "../../packages/client/src/http.ts";
import { cliFetch } from "../../src/cli/http-fetch.ts";
import { freePort } from "../support/free-port.ts";

let server: Server;
let base: string;
let handle: (req: IncomingMessage, body: string, res: ServerResponse) => void = () => {};
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => handle(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const ours = cliFetch();
const init = (more: Partial<Parameters<FetchFunction>[1]> = {}): Parameters<FetchFunction>[1] => ({
  method: "GET",
  headers: { accept: "application/json" },
  signal: new AbortController().signal,
  ...more,
});

/** What the relay client reads of an answer. */
async function seen(send: FetchFunction, url: string, options = init()) {
  const response = await send(url, options);
  return { status: response.status, retryAfter: response.headers.get("Retry-After"), requestId: response.headers.get("x-request-id"), missing: response.headers.get("x-none"), text: await response.text() };
}

describe("the CLI's fetch, beside the global fetch", () => {
  it("gives the same status, headers and body text, a POST body and its headers arriving whole", async () => {
    const received: Array<{ method?: string; type?: string; key?: string; body: string }> = [];
    handle = (req, body, res) => {
      received.push({ method: req.method, type: req.headers["content-type"], key: req.headers["idempotency-key"] as string | undefined, body });
      res.writeHead(429, { "content-type": "application/json", "retry-after": "7", "x-request-id": "req_1" }).end('\ufeff{"error":"slow down","note":"é ✓"}');
    };
    const post = () => init({ method: "POST", headers: { "content-type": "application/json", "idempotency-key": "k1" }, body: '{"amount":"5","memo":"café"}' });
    const [a, b] = [await seen(ours, `${base}/v1/payments`, post()), await seen(fetch, `${base}/v1/payments`, post())];
    expect(a).toEqual(b);
    expect(a).toMatchObject({ status: 429, retryAfter: "7", requestId: "req_1", missing: null });
    expect(received[0]).toEqual(received[1]);
    expect(received[0]).toEqual({ method: "POST", type: "application/json", key: "k1", body: '{"amount":"5","memo":"café"}' });
  });

  it("a refused connection: TypeError \"fetch failed\" with the socket's error as cause, as fetch", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/healthz`;
    const [a, b] = await Promise.all([ours(closed, init()).catch((e: unknown) => e), fetch(closed, init()).catch((e: unknown) => e)]);
    for (const error of [a, b]) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("fetch failed");
      expect(((error as Error).cause as { code?: string }).code).toBe("ECONNREFUSED");
    }
  });

  it("follows a redirect, as fetch", async () => {
    handle = (req, _body, res) => {
      if (req.url === "/old") return res.writeHead(308, { location: "/new" }).end();
      res.writeHead(200, { "content-type": "application/json" }).end(`{"at":"${req.url}"}`);
    };
    expect(await seen(ours, `${base}/old`)).toEqual(await seen(fetch, `${base}/old`));
    expect((await seen(ours, `${base}/old`)).text).toBe('{"at":"/new"}');
  });

  it("an abort rejects with the signal's reason", async () => {
    handle = () => {}; // never answers
    const controller = new AbortController();
    const pending = ours(`${base}/slow`, init({ signal: controller.signal }));
    const reason = new Error("stop");
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it("carries a RelayClient: an answer, and an API error with its code", async () => {
    handle = (req, _body, res) => {
      if (req.url === "/healthz") return res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"no such payment","code":"NOT_FOUND"}');
    };
    const client = new RelayClient({ baseUrl: base, fetch: ours, retry: { maxAttempts: 1 } });
    expect(await client.health()).toEqual({ ok: true });
    await expect(client.getPayment("req_x")).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" });
  });
});
