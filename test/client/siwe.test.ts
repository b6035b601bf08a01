// signInWithEthereum end to end: a RelayClient against the relayer app listening on 127.0.0.1 with
// the SIWE routes and a stand-in owner route.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { privateKeyToAccount, toAccount } from "viem/accounts";
import { RelayApiError, RelayClient, signInWithEthereum } from "../../packages/client/src/index.ts";
import { buildApp } from "../../src/server/app.ts";
import { OwnerAuth } from "../../src/server/auth/owner-auth.ts";
import { registerAuthRoutes } from "../../src/server/routes/auth.ts";
import { parseSiweMessage, siweTarget, type SiweMessage } from "../../packages/client/src/siwe-message.ts";
import { freePort } from "../support/free-port.ts";

const owner = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");

let app: FastifyInstance;
let baseUrl: string;
/** The SIWE messages the relayer received, parsed. */
const received: SiweMessage[] = [];

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  app = buildApp({ chainIds: [31337] });
  const auth = new OwnerAuth({ ...siweTarget(baseUrl), secret: new Uint8Array(32).fill(3), chainIds: [31337] });
  registerAuthRoutes(app, auth);
  app.addHook("preHandler", async (request) => {
    if (request.url === "/v1/auth/login") received.push(parseSiweMessage((request.body as { message: string }).message));
  });
  // Stands in for the review routes: who is signed in.
  app.get("/v1/reviews", async (request) => ({ reviews: [], owner: auth.authenticate(request.headers.authorization) }));
  await app.listen({ host: "127.0.0.1", port });
});
afterAll(() => app.close());

function client(): RelayClient {
  return new RelayClient({ baseUrl, retry: { maxAttempts: 1 } });
}

describe("signInWithEthereum", () => {
  it("signs in over HTTP and makes the client send the token on owner routes", async () => {
    const relay = client();
    await expect(relay.reviews()).rejects.toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    const result = await signInWithEthereum(relay, owner, { chainId: 31337, baseUrl, statement: "Sign in to review held requests." });
    expect(result.address).toBe(owner.address);
    expect(Date.parse(String(result.expiresAt))).toBeGreaterThan(Date.now());
    expect(await relay.reviews()).toEqual({ reviews: [], owner: owner.address });
  });

  it("writes a message bound to the relayer: its host as domain, its URL as URI, the nonce it issued", async () => {
    received.length = 0;
    await signInWithEthereum(client(), owner, { chainId: 31337, baseUrl: `${baseUrl}/` });
    const [message] = received;
    expect(message).toMatchObject({ domain: new URL(baseUrl).host, uri: baseUrl, chainId: 31337, address: owner.address, version: "1" });
    expect(message!.statement).toBeUndefined();
    expect(Math.abs(Date.parse(message!.issuedAt) - Date.now())).toBeLessThan(60_000);
  });

  it("accepts a signer whose signatures carry v as 0/1", async () => {
    const lowV = toAccount({
      address: owner.address,
      signMessage: async ({ message }) => {
        const signature = await owner.signMessage({ message });
        return `${signature.slice(0, 130)}${(Number.parseInt(signature.slice(130), 16) - 27).toString(16).padStart(2, "0")}` as Hex;
      },
      signTransaction: owner.signTransaction,
      signTypedData: owner.signTypedData,
    });
    const relay = client();
    await signInWithEthereum(relay, lowV, { chainId: 31337, baseUrl });
    expect(await relay.reviews()).toMatchObject({ owner: owner.address });
  });

  it("rejects with the relayer's 401 when it refuses, and leaves the client signed out", async () => {
    const relay = client();
    const failure = await signInWithEthereum(relay, owner, { chainId: 1, baseUrl }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RelayApiError);
    expect(failure).toMatchObject({ status: 401, code: "UNAUTHORIZED", details: "chain ID 1 is not served (served: 31337)" });
    await expect(relay.reviews()).rejects.toMatchObject({ status: 401 });
  });

  it("refuses a message for another relayer's URL", async () => {
    const other = baseUrl.replace("127.0.0.1", "localhost");
    await expect(signInWithEthereum(client(), owner, { chainId: 31337, baseUrl: other })).rejects.toMatchObject({
      status: 401,
      details: expect.stringMatching(/domain "localhost:\d+" is not this relayer's/),
    });
  });

  it("stops when the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(signInWithEthereum(client(), owner, { chainId: 31337, baseUrl, signal: controller.signal })).rejects.toThrow("stop");
  });
});
