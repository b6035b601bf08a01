// The SIWE routes on the relayer's app: answer shapes, 400s naming the body field, 401s in the
// error envelope, and a session token that a protected route accepts.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../../src/server/app.ts";
import { OwnerAuth } from "../../../src/server/auth/owner-auth.ts";
import { MAX_SIWE_MESSAGE_LENGTH, registerAuthRoutes } from "../../../src/server/routes/auth.ts";
import { buildSiweMessage } from "../../../packages/client/src/siwe-message.ts";

const owner = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const target = { domain: "127.0.0.1:8787", uri: "http://127.0.0.1:8787" };

let app: FastifyInstance;
beforeAll(async () => {
  app = buildApp({ chainIds: [31337] });
  const auth = new OwnerAuth({ ...target, secret: new Uint8Array(32).fill(1), chainIds: [31337] });
  registerAuthRoutes(app, auth);
  // A stand-in owner route, protected the way the review routes are.
  app.get("/owner-only", async (request) => ({ owner: auth.authenticate(request.headers.authorization) }));
  await app.ready();
});
afterAll(() => app.close());

async function nonce(): Promise<string> {
  const res = await app.inject({ method: "POST", url: "/v1/auth/nonce", payload: {} });
  return res.json<{ nonce: string }>().nonce;
}

async function signedMessage(change: { chainId?: number } = {}): Promise<{ message: string; signature: string }> {
  const message = buildSiweMessage({ ...target, address: owner.address, chainId: 31337, nonce: await nonce(), issuedAt: new Date(), ...change });
  return { message, signature: await owner.signMessage({ message }) };
}

const login = (payload: unknown) => app.inject({ method: "POST", url: "/v1/auth/login", payload: JSON.stringify(payload), headers: { "content-type": "application/json" } });

describe("POST /v1/auth/nonce", () => {
  it("answers {nonce, expiresAt}, not cacheable, with or without a body", async () => {
    for (const res of [await app.inject({ method: "POST", url: "/v1/auth/nonce", payload: {} }), await app.inject({ method: "POST", url: "/v1/auth/nonce" })]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers["cache-control"]).toBe("no-store");
      const body = res.json<Record<string, unknown>>();
      expect(Object.keys(body).sort()).toEqual(["expiresAt", "nonce"]);
      expect(body.nonce).toMatch(/^[0-9a-f]{80}$/);
      expect(Date.parse(body.expiresAt as string)).toBeGreaterThan(Date.now());
    }
  });
});

describe("POST /v1/auth/login", () => {
  it("answers {token, address, expiresAt} for a signed message, and the token opens an owner route", async () => {
    const res = await login(await signedMessage());
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const session = res.json<{ token: string; address: string; expiresAt: string }>();
    expect(Object.keys(session).sort()).toEqual(["address", "expiresAt", "token"]);
    expect(session.address).toBe(owner.address);
    const owned = await app.inject({ method: "GET", url: "/owner-only", headers: { authorization: `Bearer ${session.token}` } });
    expect(owned.json()).toEqual({ owner: owner.address });
  });

  it.each<[string, unknown, string]>([
    ["a body that is not an object", ["message"], "body must be a JSON object"],
    ["no message", { signature: "0x" }, "message is required"],
    ["a null message", { message: null, signature: "0x" }, "message is required"],
    ["a message that is not a string", { message: 5, signature: "0x" }, "message must be a string"],
    ["a message that is too long", { message: "x".repeat(MAX_SIWE_MESSAGE_LENGTH + 1), signature: "0x" }, `message must be at most ${MAX_SIWE_MESSAGE_LENGTH} characters`],
    ["no signature", { message: "m" }, "signature is required"],
    ["a signature that is not a string", { message: "m", signature: ["0x"] }, "signature must be a string"],
  ])("400 INVALID_REQUEST for %s", async (_name, payload, details) => {
    const res = await login(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "Invalid request", code: "INVALID_REQUEST", details });
  });

  it("401 UNAUTHORIZED in the error envelope for a refused login", async () => {
    const res = await login(await signedMessage({ chainId: 1 }));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: "Authentication required", code: "UNAUTHORIZED", details: "chain ID 1 is not served (served: 31337)" });
  });

  it("401 for a replayed login", async () => {
    const attempt = await signedMessage();
    expect((await login(attempt)).statusCode).toBe(200);
    const replay = await login(attempt);
    expect(replay.statusCode).toBe(401);
    expect(replay.json<{ details: string }>().details).toMatch(/already used/);
  });
});

describe("a protected route", () => {
  it("401 UNAUTHORIZED without a token", async () => {
    const res = await app.inject({ method: "GET", url: "/owner-only" });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: "Authentication required", code: "UNAUTHORIZED", details: "missing Authorization header; sign in with POST /v1/auth/login" });
  });
});
