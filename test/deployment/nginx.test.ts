// The test reverse proxy (test/support/nginx.ts): real nginx, round-robin over real HTTP servers
// on loopback, passing a dead upstream's requests to the next one, and stopping its own process.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startNginx, type NginxProxy } from "../support/nginx.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** An HTTP server on loopback answering every request with its name and the request's body. */
async function upstream(name: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => response.end(JSON.stringify({ name, method: request.method, body, forwardedFor: request.headers["x-forwarded-for"] })));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  server.keepAliveTimeout = 60_000;
  return { url: `http://127.0.0.1:${address.port}`, server };
}

async function proxy(upstreams: string[]): Promise<NginxProxy> {
  const started = await startNginx(upstreams);
  cleanups.push(() => started.stop());
  return started;
}

async function ask(url: string, body?: string): Promise<{ name: string; method: string; body: string; forwardedFor?: string }> {
  const response = await fetch(url, body === undefined ? {} : { method: "POST", body });
  expect(response.status).toBe(200);
  return (await response.json()) as { name: string; method: string; body: string; forwardedFor?: string };
}

describe("startNginx", () => {
  it("sends requests to each upstream in turn, bodies and all, on loopback only", async () => {
    const servers = await Promise.all(["a", "b", "c"].map(upstream));
    const nginx = await proxy(servers.map((s) => s.url));
    expect(nginx.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const names: string[] = [];
    for (let i = 0; i < 9; i++) {
      const answer = await ask(`${nginx.url}/v1/anything`, i % 2 ? `payment ${i}` : undefined);
      expect(answer.body).toBe(i % 2 ? `payment ${i}` : "");
      expect(answer.forwardedFor).toBe("127.0.0.1");
      names.push(answer.name);
    }
    // Round-robin: every window of three consecutive requests reaches all three upstreams.
    for (let i = 0; i + 3 <= names.length; i++) expect(new Set(names.slice(i, i + 3)).size).toBe(3);
    expect(nginx.accessLog().trim().split("\n")).toHaveLength(9);
  });

  it("passes the requests of an upstream that is down to the others", async () => {
    const servers = await Promise.all(["a", "b", "c"].map(upstream));
    const nginx = await proxy(servers.map((s) => s.url));
    servers[1]!.server.closeAllConnections();
    await new Promise((resolve) => servers[1]!.server.close(resolve));
    const names = [];
    for (let i = 0; i < 6; i++) names.push((await ask(nginx.url, "pay")).name);
    expect(new Set(names)).toEqual(new Set(["a", "c"]));
  });

  it("stop() ends the nginx it started and removes its directory", async () => {
    const { url } = await upstream("a");
    const nginx = await startNginx([url]);
    expect(() => process.kill(nginx.pid, 0)).not.toThrow();
    await nginx.stop();
    expect(() => process.kill(nginx.pid, 0)).toThrow();
    expect(existsSync(nginx.dir)).toBe(false);
  });
});
