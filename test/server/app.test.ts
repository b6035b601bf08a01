// The server's error envelope, for its own failures and the framework's. A probe route stands in
// for the API routes that take bodies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { BODY_LIMIT_BYTES, buildApp } from "../../src/server/app.ts";
import { relayError } from "../../src/errors.ts";

describe("relayer HTTP server: error envelope", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = buildApp({ chainIds: [84532] });
    app.post("/probe", async (request) => request.body);
    app.get<{ Params: { id: string } }>("/items/:id", async (request) => ({ id: request.params.id }));
    app.get("/limited", async () => {
      throw relayError("RATE_LIMITED", "bot", { retryAfterSeconds: 3 });
    });
    app.get("/broken", async () => {
      throw new Error("secret rpc http://10.0.0.1:8545 exploded");
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const post = (payload: string, contentType = "application/json") =>
    app.inject({ method: "POST", url: "/probe", payload, headers: { "content-type": contentType } });

  it("answers /healthz with the chains served", async () => {
    const res = await app.inject({ method: "GET", url: "/healthz" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok", chainIds: [84532] });
  });

  it("unknown route: 404 NOT_FOUND naming the route", async () => {
    const res = await app.inject({ method: "GET", url: "/v1/nope?x=1" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: "Not found", code: "NOT_FOUND", details: "no route GET /v1/nope" });
  });

  it("routes match by path, parameters decoded; a trailing slash or another case is another route", async () => {
    const ok = await app.inject({ method: "GET", url: "/items/a%20b?x=1" });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ id: "a b" });
    for (const url of ["/items/a/", "/Items/a", "/items/a/b"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ code: "NOT_FOUND" });
    }
    expect((await app.inject({ method: "POST", url: "/items/a" })).statusCode).toBe(404);
  });

  it("a URL that is not validly percent-encoded, or a path segment over the length limit: 400 INVALID_REQUEST", async () => {
    const bad = await app.inject({ method: "GET", url: "/items/%E0%A4%A" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: "Invalid request", code: "INVALID_REQUEST", details: "the URL is not validly percent-encoded" });
    const long = await app.inject({ method: "GET", url: `/items/${"a".repeat(101)}` });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual({ error: "Invalid request", code: "INVALID_REQUEST", details: "a path segment of the URL is too long" });
  });

  it("body over the limit: 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await post(JSON.stringify({ memo: "x".repeat(BODY_LIMIT_BYTES) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("wrong content type: 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await post("a=1", "application/x-www-form-urlencoded");
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
  });

  it("malformed JSON: 400 INVALID_REQUEST", async () => {
    const res = await post("{not json");
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "Invalid request", code: "INVALID_REQUEST", details: "body is not valid JSON" });
  });

  it("an empty JSON body: 400 INVALID_REQUEST", async () => {
    const res = await post("");
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "Invalid request", code: "INVALID_REQUEST", details: "body is empty" });
  });

  // Prototype poisoning: such bodies are refused as Fastify's own parser refuses them, spelled out
  // or hidden behind \u escapes, at any depth, and never reach a route.
  it.each([
    ['{"__proto__":{"polluted":true}}'],
    ['{"memo":"x","metadata":{"__proto__":{"a":"1"}}}'],
    ['{"\\u005f_proto__":{"polluted":true}}'],
    ['{"a":[1,{"b":[{"__pro\\u0074o__":{}}]}]}'],
    ['{"constructor":{"prototype":{"polluted":true}}}'],
    ['[{"x":{"constructor":{"\\u0070rototype":{}}}}]'],
  ])("a prototype-poisoning body %s: 400 INVALID_REQUEST", async (body) => {
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "Invalid request", code: "INVALID_REQUEST", details: "body is not valid JSON" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keys that only resemble the poisoning ones, and \\u escapes elsewhere, pass through as parsed", async () => {
    for (const body of ['{"constructor":"x","memo":"__proto__ constructor"}', '{"constructor":{"name":"x"}}', '{"memo":"caf\\u00e9 \\u2603","proto":{}}']) {
      const res = await post(body);
      expect(res.statusCode, body).toBe(200);
      expect(res.json(), body).toEqual(JSON.parse(body));
    }
  });

  it("a RelayError keeps its code and sets Retry-After", async () => {
    const res = await app.inject({ method: "GET", url: "/limited" });
    expect(res.statusCode).toBe(429);
    expect(res.headers["retry-after"]).toBe("3");
    expect(res.json()).toEqual({ error: "Rate limit exceeded", code: "RATE_LIMITED", details: "bot" });
  });

  it("an unexpected failure: 500 INTERNAL_ERROR without its message, stack or URLs", async () => {
    const res = await app.inject({ method: "GET", url: "/broken" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: expect.any(String), code: "INTERNAL_ERROR" });
    expect(res.body).not.toMatch(/secret|10\.0\.0\.1|at /);
  });
});
