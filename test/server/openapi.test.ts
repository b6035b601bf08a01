// The OpenAPI document: every route with its methods, request bodies that are the validation
// schemas themselves, resolvable references, every error code, and the route that serves it.
import { describe, expect, it } from "vitest";
import { ownerRequestBodyJsonSchemas, requestBodyJsonSchemas } from "../../src/api/schemas.ts";
import { responseSchemas } from "../../src/api/responses.ts";
import { errorCodes, statusOf } from "../../src/errors.ts";
import { buildApp } from "../../src/server/app.ts";
import { buildOpenApiDocument, documentedRoutes, registerOpenApiRoute } from "../../src/server/openapi.ts";

type Json = Record<string, any>;

const doc = buildOpenApiDocument({ serverUrl: "http://127.0.0.1:8787", chainIds: [84532, 31337] }) as Json;
const op = (method: string, path: string): Json => doc.paths[path][method];

/** Every route of SPEC.md and DESIGN.md section 6, written out independently of the builder. */
const expectedRoutes: Record<string, string[]> = {
  "/v1/payments": ["post"],
  "/v1/payments/{requestId}": ["get"],
  "/v1/execute": ["post"],
  "/v1/execute/{requestId}": ["get"],
  "/v1/swap": ["post"],
  "/v1/swap/{requestId}": ["get"],
  "/v1/x402": ["post"],
  "/v1/x402/{requestId}": ["get"],
  "/v1/vault/{address}/value": ["get"],
  "/v1/vault/{address}/rebalance-tokens": ["get"],
  "/v1/vault/{address}/rebalance-token/{token}": ["get"],
  "/v1/vault/{address}/balance/{token}": ["get"],
  "/v1/vault/{address}/balances": ["get"],
  "/v1/vault/{address}/bot/{bot}/status": ["get"],
  "/v1/vault/{address}/info": ["get"],
  "/v1/vault/{address}/bot/{bot}/destination/{to}": ["get"],
  "/v1/vault/{address}/protocol/{protocol}": ["get"],
  "/v1/chains": ["get"],
  "/v1/auth/nonce": ["post"],
  "/v1/auth/login": ["post"],
  "/v1/reviews": ["get"],
  "/v1/reviews/{requestId}": ["get"],
  "/v1/reviews/{requestId}/approve": ["post"],
  "/v1/reviews/{requestId}/reject": ["post"],
  "/v1/tos/status": ["get"],
  "/v1/tos/accept": ["post"],
  "/healthz": ["get"],
  "/readyz": ["get"],
  "/metrics": ["get"],
  "/v1/openapi.json": ["get"],
};

/** Follows a local `#/a/b` reference; undefined when it leads nowhere. */
function resolve(pointer: string): unknown {
  if (!pointer.startsWith("#/")) return undefined;
  let node: unknown = doc;
  for (const part of pointer.slice(2).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function* walk(node: unknown, path = "#"): Generator<[string, Json]> {
  if (typeof node !== "object" || node === null) return;
  yield [path, node as Json];
  for (const [key, child] of Object.entries(node)) yield* walk(child, `${path}/${key}`);
}

const operations = (): Array<[string, string, Json]> =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([m, o]) => [path, m, o as Json] as [string, string, Json]));

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1.0, JSON-serializable, with the server and an info description", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    expect(doc.servers).toEqual([{ url: "http://127.0.0.1:8787" }]);
    expect(doc.info.description).toMatch(/EIP-712/);
    expect(doc.info.description).toMatch(/Idempotency-Key/);
    expect(buildOpenApiDocument({ chainIds: [1] })).not.toHaveProperty("servers");
  });

  it("documents exactly the routes of the API, with their methods", () => {
    const documented = Object.fromEntries(Object.entries(doc.paths as Json).map(([p, item]) => [p, Object.keys(item).sort()]));
    expect(documented).toEqual(expectedRoutes);
  });

  it("lists the documented routes as fastify patterns for wiring checks", () => {
    expect(documentedRoutes).toHaveLength(Object.keys(expectedRoutes).length);
    expect(documentedRoutes).toContainEqual({
      method: "GET",
      path: "/v1/vault/{address}/bot/{bot}/destination/{to}",
      url: "/v1/vault/:address/bot/:bot/destination/:to",
    });
  });

  it("declares every path parameter, and only those", () => {
    for (const [path, method, o] of operations()) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = ((o.parameters ?? []) as Json[]).map((p) => (p.$ref ? resolve(p.$ref) : p) as Json).filter((p) => p.in === "path");
      expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual(inPath.sort());
      expect(declared.every((p) => p.required === true)).toBe(true);
    }
  });

  it("resolves every $ref within the document", () => {
    let refs = 0;
    for (const [where, node] of walk(doc)) {
      if (typeof node.$ref !== "string") continue;
      refs++;
      expect(resolve(node.$ref), `${where} → ${node.$ref}`).toBeDefined();
    }
    expect(refs).toBeGreaterThan(50);
  });

  it("uses the validation schemas themselves as request bodies", () => {
    const body = (method: string, path: string) => op(method, path).requestBody.content["application/json"].schema;
    expect(body("post", "/v1/payments")).toBe(requestBodyJsonSchemas.payment);
    expect(body("post", "/v1/execute")).toBe(requestBodyJsonSchemas.execute);
    expect(body("post", "/v1/swap")).toBe(requestBodyJsonSchemas.swap);
    expect(body("post", "/v1/auth/nonce")).toBe(ownerRequestBodyJsonSchemas.authNonce);
    expect(body("post", "/v1/auth/login")).toBe(ownerRequestBodyJsonSchemas.login);
    expect(body("post", "/v1/reviews/{requestId}/approve")).toBe(ownerRequestBodyJsonSchemas.reviewApprove);
    expect(body("post", "/v1/reviews/{requestId}/reject")).toBe(ownerRequestBodyJsonSchemas.reviewReject);
    for (const [path, method, o] of operations()) {
      if (method === "get") expect(o.requestBody, `${method} ${path}`).toBeUndefined();
    }
  });

  it("answers 200 with the client's response shapes", () => {
    const okSchema = (method: string, path: string) => op(method, path).responses["200"].content["application/json"].schema;
    expect(okSchema("post", "/v1/payments")).toEqual({ $ref: "#/components/schemas/PaymentResponse" });
    expect(okSchema("get", "/v1/swap/{requestId}")).toEqual({ $ref: "#/components/schemas/PaymentResponse" });
    expect(okSchema("get", "/v1/execute/{requestId}")).toEqual({ $ref: "#/components/schemas/ExecuteResponse" });
    expect(okSchema("get", "/v1/vault/{address}/balances")).toEqual({ $ref: "#/components/schemas/TokenBalances" });
    expect(okSchema("post", "/v1/reviews/{requestId}/reject")).toEqual({ $ref: "#/components/schemas/ReviewDecision" });
    expect(okSchema("get", "/v1/chains")).toEqual({ $ref: "#/components/schemas/ChainList" });
    // The default rebalance list and the domain are read from the chain: absent while it does not answer.
    expect((responseSchemas.ChainInfo as Json).required).toEqual([
      "chainId", "name", "factoryAddress", "registryAddress", "routers", "devnet", "tokens",
    ]);
    expect(op("get", "/metrics").responses["200"].content).toHaveProperty(["text/plain; version=0.0.4"]);
    const payment = responseSchemas.PaymentResponse as Json;
    expect(payment.required).toEqual(["requestId", "status"]);
    expect(Object.keys(payment.properties)).toEqual([
      "requestId", "status", "txHash", "pollUrl", "estimatedResolutionMs", "reason", "errorCode", "swapOptions", "simulationResult", "digest",
    ]);
    // Every rejected answer names its cause; SWAP_REQUIRED comes with the swaps that would cover the payment.
    expect(payment.properties.errorCode.enum).toEqual(["SWAP_REQUIRED", "OWNER_REJECTED", "REVIEW_EXPIRED", "EXECUTION_FAILED"]);
    expect((responseSchemas.ExecuteResponse as Json).properties.errorCode.enum).toEqual(payment.properties.errorCode.enum);
    expect(payment.properties.swapOptions.items).toEqual({ $ref: "#/components/schemas/SwapOption" });
    expect((responseSchemas.SwapOption as Json).required).toEqual(["fromToken", "symbol", "maxFromAmount", "quotedOut", "toToken", "minToAmount"]);
    expect((responseSchemas.ReviewItem as Json).required).toEqual([
      "requestId", "kind", "status", "chainId", "vault", "bot", "intentHash", "createdAt", "deadline", "heldBecause",
    ]);
  });

  it("describes the error envelope with every error code, and each code under its own status", () => {
    const error = doc.components.schemas.Error as Json;
    expect(error.required).toEqual(["error", "code"]);
    expect(error.properties.code.enum).toEqual(errorCodes);
    const used = new Set<string>();
    for (const [path, method, o] of operations()) {
      expect(o.responses.default, `${method} ${path}`).toEqual({ $ref: "#/components/responses/Error" });
      for (const [status, response] of Object.entries(o.responses as Json)) {
        if (status === "200" || status === "default") continue;
        const codes = response.content["application/json"].schema.allOf[1].properties.code.enum as string[];
        for (const code of codes) {
          expect(statusOf(code as never), `${method} ${path} ${code}`).toBe(Number(status));
          used.add(code);
        }
      }
    }
    // METHOD_NOT_ALLOWED is only reachable through `default`: no route answers 405 today.
    expect(errorCodes.filter((code) => !used.has(code))).toEqual(["METHOD_NOT_ALLOWED"]);
  });

  it("lists the codes SPEC.md gives for POST /v1/payments, with Retry-After on 429", () => {
    const responses = op("post", "/v1/payments").responses as Json;
    const codes = (status: string) => responses[status].content["application/json"].schema.allOf[1].properties.code.enum;
    expect(codes("400")).toEqual(expect.arrayContaining(["INVALID_REQUEST", "INVALID_SIGNATURE", "DEADLINE_EXPIRED"]));
    expect(codes("403")).toEqual(expect.arrayContaining(["BOT_NOT_ACTIVE", "EXCEEDS_PER_TX_LIMIT"]));
    expect(codes("409")).toEqual(expect.arrayContaining(["IDEMPOTENCY_CONFLICT"]));
    expect(codes("422")).toEqual(expect.arrayContaining(["INSUFFICIENT_BALANCE", "SIMULATION_FAILED"]));
    expect(codes("429")).toEqual(["RATE_LIMITED"]);
    expect(responses["429"].headers["Retry-After"]).toEqual({ $ref: "#/components/headers/RetryAfter" });
    const params = (op("post", "/v1/payments").parameters as Json[]).map((p) => resolve(p.$ref) as Json);
    expect(params).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header" }));
  });

  it("puts bearer security on the review routes only, and chainId on every vault read", () => {
    for (const [path, method, o] of operations()) {
      expect(o.security !== undefined, `${method} ${path}`).toBe(path.startsWith("/v1/reviews"));
      if (path.startsWith("/v1/vault/")) expect(o.parameters).toContainEqual({ $ref: "#/components/parameters/ChainId" });
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.parameters.ChainId.schema.enum).toEqual([84532, 31337]);
  });

  it("is served at GET /v1/openapi.json", async () => {
    const app = buildApp({ chainIds: [84532] });
    registerOpenApiRoute(app, doc);
    try {
      const res = await app.inject({ method: "GET", url: "/v1/openapi.json" });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.json()).toEqual(doc);
    } finally {
      await app.close();
    }
  });
});
