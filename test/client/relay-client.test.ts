import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Address } from "viem";
import {
  RelayApiError,
  RelayClient,
  RelayUnreachableError,
  StillPendingError,
  type PaymentRequestBody,
  type PaymentResponse,
  type RetryEvent,
  type RetryPolicy,
} from "../../packages/client/src/index.ts";
import { refusedUrl, startScriptedServer, type ScriptedServer } from "./support/scripted-server.ts";

const VAULT = "0x1111111111111111111111111111111111111111" as Address;
const TOKEN = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address;
const BOT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Address;

const payment: PaymentRequestBody = {
  chainId: 84532,
  vaultAddress: VAULT,
  bot: BOT,
  to: "0x2222222222222222222222222222222222222222",
  token: TOKEN,
  amount: "5000000",
  deadline: "1900000000",
  ref: `0x${"ab".repeat(32)}`,
  signature: `0x${"cd".repeat(64)}1b`,
  idempotencyKey: "6f1c0d3e-1a2b-4c3d-8e4f-5a6b7c8d9e0f",
};
const approved: PaymentResponse = { requestId: "req-1", status: "approved", txHash: `0x${"12".repeat(32)}` };
const pending: PaymentResponse = { requestId: "req-1", status: "pending_review", pollUrl: "/v1/payments/req-1" };

/** Small delays so every test stays fast; real defaults are in DEFAULT_RETRY_POLICY. */
const fast: Partial<RetryPolicy> = { baseDelayMs: 5, maxDelayMs: 20, aiVerificationDelayMs: { min: 10, max: 20 } };

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

function client(extra: Partial<RetryPolicy> = {}, timeoutMs = 1_000): { relay: RelayClient; retries: RetryEvent[] } {
  const retries: RetryEvent[] = [];
  const relay = new RelayClient({ baseUrl: server.url, timeoutMs, retry: { ...fast, ...extra, onRetry: (e) => retries.push(e) } });
  return { relay, retries };
}

describe("automatic retries of a payment submit", () => {
  it("429 with Retry-After: waits that long, then resends the same body and key", async () => {
    server.script({ status: 429, headers: { "retry-after": "1" }, body: { error: "slow down", code: "RATE_LIMITED" } }, { status: 200, body: approved });
    const { relay, retries } = client();
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(server.received).toHaveLength(2);
    expect(retries.map((r) => r.delayMs)).toEqual([1000]);
    const [first, second] = server.received;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    expect(second!.body).toBe(first!.body);
    expect(JSON.parse(second!.body)).toEqual(payment);
    expect(first!.headers["idempotency-key"]).toBe(payment.idempotencyKey);
    expect(second!.headers["idempotency-key"]).toBe(payment.idempotencyKey);
    expect(second!.method).toBe("POST");
    expect(second!.url).toBe("/v1/payments");
  });

  it("500 RPC_ERROR, then 200", async () => {
    server.script({ status: 500, body: { error: "node down", code: "RPC_ERROR" } }, { status: 200, body: approved });
    const { relay, retries } = client();
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(server.received).toHaveLength(2);
    expect(retries[0]!.error).toBeInstanceOf(RelayApiError);
    expect(retries[0]!.error).toMatchObject({ code: "RPC_ERROR", retryable: true });
  });

  it("500 INTERNAL_ERROR twice, then 200, always the same body", async () => {
    const internal = { status: 500, body: { error: "oops", code: "INTERNAL_ERROR" } };
    server.script(internal, internal, { status: 200, body: approved });
    const { relay, retries } = client();
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(server.received).toHaveLength(3);
    expect(new Set(server.received.map((r) => r.body)).size).toBe(1);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("tells each retry how many attempts are allowed and how long the call may still take", async () => {
    const internal = { status: 500, body: { error: "oops", code: "INTERNAL_ERROR" } };
    server.script(internal, internal, { status: 200, body: approved });
    const { relay, retries } = client({ maxAttempts: 4, totalTimeoutMs: 30_000 });
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(retries.map((r) => r.maxAttempts)).toEqual([4, 4]);
    for (const retry of retries) {
      expect(retry.remainingMs).toBeGreaterThan(0);
      expect(retry.remainingMs).toBeLessThanOrEqual(30_000);
    }
    // The deadline is the call's: the second retry has less time left than the first.
    expect(retries[1]!.remainingMs).toBeLessThan(retries[0]!.remainingMs);
  });

  it("500 AI_VERIFICATION_TIMEOUT waits within the configured AI range", async () => {
    server.script({ status: 500, body: { error: "agents late", code: "AI_VERIFICATION_TIMEOUT" } }, { status: 200, body: approved });
    const { relay, retries } = client({ aiVerificationDelayMs: { min: 40, max: 60 } });
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(40);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(60);
  });

  it("400 is never retried and surfaces the error envelope", async () => {
    server.script({
      status: 400,
      headers: { "x-request-id": "rid-7" },
      body: { error: "bad signature", code: "INVALID_SIGNATURE", details: "signer mismatch" },
    });
    const { relay, retries } = client();
    const error = await relay.submitPayment(payment).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RelayApiError);
    expect(error).toMatchObject({ status: 400, code: "INVALID_SIGNATURE", details: "signer mismatch", requestId: "rid-7", retryable: false });
    expect(server.received).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it("409 is never retried", async () => {
    server.script({ status: 409, body: { error: "key reused", code: "IDEMPOTENCY_CONFLICT" } }, { status: 200, body: approved });
    const { relay } = client();
    await expect(relay.submitPayment(payment)).rejects.toMatchObject({ status: 409, code: "IDEMPOTENCY_CONFLICT", retryable: false });
    expect(server.received).toHaveLength(1);
  });

  it("a response slower than timeoutMs aborts that attempt; the retry succeeds", async () => {
    server.script({ status: 200, body: approved, delayMs: 1_000 }, { status: 200, body: approved });
    const { relay, retries } = client({}, 100);
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(server.received).toHaveLength(2);
    expect(retries[0]!.error).toBeInstanceOf(RelayUnreachableError);
    expect((retries[0]!.error as RelayUnreachableError).timedOut).toBe(true);
    expect(server.received[1]!.body).toBe(server.received[0]!.body);
  });

  it("an AbortSignal stops a Retry-After wait at once", async () => {
    server.script({ status: 429, headers: { "retry-after": "30" }, body: { error: "slow down", code: "RATE_LIMITED" } }, { status: 200, body: approved });
    const controller = new AbortController();
    const relay = new RelayClient({ baseUrl: server.url, retry: { ...fast, onRetry: () => setTimeout(() => controller.abort(), 10) } });
    const started = Date.now();
    const error = await relay.submitPayment(payment, { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(server.received).toHaveLength(1);
  });

  it("an already aborted signal sends nothing", async () => {
    server.script({ status: 200, body: approved });
    const { relay } = client();
    await expect(relay.submitPayment(payment, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(server.received).toHaveLength(0);
  });

  it("gives up after maxAttempts with the last error", async () => {
    server.script({ status: 503, body: { error: "busy", code: "SERVICE_UNAVAILABLE" } });
    const { relay } = client({ maxAttempts: 3 });
    await expect(relay.submitPayment(payment)).rejects.toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
    expect(server.received).toHaveLength(3);
  });

  it("a Retry-After beyond the cap ends the call with the 429", async () => {
    server.script({ status: 429, headers: { "retry-after": "120" }, body: { error: "slow down", code: "RATE_LIMITED" } });
    const { relay } = client({ maxRetryAfterMs: 5_000 });
    await expect(relay.submitPayment(payment)).rejects.toMatchObject({ status: 429, retryAfterSeconds: 120 });
    expect(server.received).toHaveLength(1);
  });

  it("stops before a wait that would pass the overall deadline", async () => {
    server.script({ status: 429, headers: { "retry-after": "1" }, body: { error: "slow down", code: "RATE_LIMITED" } });
    const { relay, retries } = client({ totalTimeoutMs: 500 });
    await expect(relay.submitPayment(payment)).rejects.toMatchObject({ status: 429 });
    expect(retries).toHaveLength(0);
  });

  it("an error body that is not the envelope still gives a typed error", async () => {
    server.script({ status: 502, headers: { "content-type": "text/html" }, body: "<html>bad gateway</html>" }, { status: 200, body: approved });
    const { relay, retries } = client();
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(retries[0]!.error).toMatchObject({ status: 502, code: "HTTP_502", message: expect.stringContaining("bad gateway") });
  });
});

describe("unreachable relayer", () => {
  it("connection refused: RelayUnreachableError after the configured attempts", async () => {
    const retries: RetryEvent[] = [];
    const relay = new RelayClient({ baseUrl: await refusedUrl(), retry: { ...fast, maxAttempts: 3, onRetry: (e) => retries.push(e) } });
    const error = await relay.getPayment("req-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RelayUnreachableError);
    expect(error).toMatchObject({ timedOut: false, retryable: true });
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect(retries).toHaveLength(2);
  });
});

describe("operations that are not idempotent", () => {
  it("owner decisions are sent once, with the bearer token", async () => {
    server.script({ status: 500, body: { error: "oops", code: "INTERNAL_ERROR" } });
    const { relay, retries } = client();
    relay.setAuthToken("tok-1");
    await expect(relay.rejectReview("req-1", "not mine")).rejects.toMatchObject({ code: "INTERNAL_ERROR" });
    expect(server.received).toHaveLength(1);
    expect(retries).toHaveLength(0);
    expect(server.received[0]!.headers.authorization).toBe("Bearer tok-1");
    expect(JSON.parse(server.received[0]!.body)).toEqual({ reason: "not mine" });
    expect(server.received[0]!.url).toBe("/v1/reviews/req-1/reject");
  });

  it("login stores the token used by the review routes", async () => {
    server.script({ status: 200, body: { token: "tok-2", address: BOT, expiresAt: "2030-01-01T00:00:00Z" } }, { status: 200, body: { reviews: [] } });
    const { relay } = client();
    expect(await relay.login("siwe message", "0xabcd")).toMatchObject({ token: "tok-2" });
    expect(await relay.reviews({ chainId: 84532, vault: VAULT })).toEqual({ reviews: [] });
    const [login, list] = server.received;
    expect(JSON.parse(login!.body)).toEqual({ message: "siwe message", signature: "0xabcd" });
    expect(login!.headers.authorization).toBeUndefined();
    expect(list!.url).toBe(`/v1/reviews?chainId=84532&vault=${VAULT}`);
    expect(list!.headers.authorization).toBe("Bearer tok-2");
  });

  it("approveReview sends the approval envelope", async () => {
    server.script({ status: 200, body: approved });
    const { relay } = client();
    await relay.approveReview("req-1", { deadline: 1_900_003_600n, signature: "0x01" });
    expect(JSON.parse(server.received[0]!.body)).toEqual({ approval: { deadline: "1900003600", signature: "0x01" } });
  });
});

describe("reads", () => {
  it("use the documented paths and the default chainId", async () => {
    server.script({ status: 200, body: {} });
    const relay = new RelayClient({ baseUrl: `${server.url}/`, chainId: 84532, retry: fast });
    await relay.vaultValue(VAULT);
    await relay.rebalanceTokens(VAULT, 8453);
    await relay.rebalanceToken(VAULT, TOKEN);
    await relay.balance(VAULT, TOKEN);
    await relay.balances(VAULT, [TOKEN, VAULT]);
    await relay.botStatus(VAULT, BOT);
    await relay.vaultInfo(VAULT);
    await relay.destination(VAULT, BOT, TOKEN);
    await relay.protocol(VAULT, TOKEN);
    await relay.getExecute("e-1");
    await relay.getSwap("s 1");
    await relay.health();
    await relay.ready();
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET /v1/vault/${VAULT}/value?chainId=84532`,
      `GET /v1/vault/${VAULT}/rebalance-tokens?chainId=8453`,
      `GET /v1/vault/${VAULT}/rebalance-token/${TOKEN}?chainId=84532`,
      `GET /v1/vault/${VAULT}/balance/${TOKEN}?chainId=84532`,
      `GET /v1/vault/${VAULT}/balances?tokens=${TOKEN}%2C${VAULT}&chainId=84532`,
      `GET /v1/vault/${VAULT}/bot/${BOT}/status?chainId=84532`,
      `GET /v1/vault/${VAULT}/info?chainId=84532`,
      `GET /v1/vault/${VAULT}/bot/${BOT}/destination/${TOKEN}?chainId=84532`,
      `GET /v1/vault/${VAULT}/protocol/${TOKEN}?chainId=84532`,
      "GET /v1/execute/e-1",
      "GET /v1/swap/s%201",
      "GET /healthz",
      "GET /readyz",
    ]);
  });

  it("GETs are retried on 5xx", async () => {
    server.script({ status: 503, body: { error: "busy", code: "SERVICE_UNAVAILABLE" } }, { status: 200, body: { isActive: true } });
    const { relay } = client();
    expect(await relay.botStatus(VAULT, BOT)).toEqual({ isActive: true });
    expect(server.received).toHaveLength(2);
  });
});

describe("polling", () => {
  it("polls until approved", async () => {
    server.script({ status: 200, body: pending }, { status: 200, body: pending }, { status: 200, body: approved });
    const { relay } = client();
    const seen: string[] = [];
    const result = await relay.waitForResolution("payment", "req-1", {
      aiIntervalMs: 10,
      reviewIntervalMs: 10,
      onPoll: (r, n) => seen.push(`${n}:${r.status}`),
    });
    expect(result).toEqual(approved);
    expect(seen).toEqual(["1:pending_review", "2:pending_review", "3:approved"]);
    expect(server.received.map((r) => r.url)).toEqual(Array(3).fill("/v1/payments/req-1"));
  });

  it("uses the fast interval during the AI window, then the review interval", async () => {
    server.script({ status: 200, body: pending });
    const { relay } = client();
    await expect(
      relay.waitForResolution("swap", "req-1", { aiIntervalMs: 5, reviewIntervalMs: 200, aiWindowMs: 40, timeoutMs: 500 }),
    ).rejects.toBeInstanceOf(StillPendingError);
    const gaps = server.received.slice(1).map((r, i) => r.at - server.received[i]!.at);
    expect(gaps.filter((g) => g < 100).length).toBeGreaterThanOrEqual(3);
    expect(gaps.filter((g) => g >= 150).length).toBeGreaterThanOrEqual(1);
    expect(server.received.every((r) => r.url === "/v1/swap/req-1")).toBe(true);
  });

  it("throws StillPendingError with the last response at the timeout", async () => {
    server.script({ status: 200, body: pending });
    const { relay } = client();
    const error = await relay
      .waitForResolution("payment", "req-1", { aiIntervalMs: 20, reviewIntervalMs: 20, timeoutMs: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StillPendingError);
    expect(error).toMatchObject({ kind: "payment", requestId: "req-1", lastResponse: pending });
    expect((error as StillPendingError).polls).toBe(server.received.length);
    expect(server.received.length).toBeGreaterThanOrEqual(3);
  });

  it("an abort stops polling", async () => {
    server.script({ status: 200, body: pending });
    const { relay } = client();
    const controller = new AbortController();
    const waiting = relay.waitForResolution("execute", "req-1", {
      signal: controller.signal,
      aiIntervalMs: 60_000,
      onPoll: () => controller.abort(),
    });
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect(server.received).toHaveLength(1);
  });

  it("resolve returns a final response without polling and polls a held one", async () => {
    const { relay } = client();
    expect(await relay.resolve("payment", approved )).toEqual(approved);
    expect(server.received).toHaveLength(0);
    server.script({ status: 200, body: { ...pending, status: "rejected", reason: "owner said no" } });
    const result = await relay.resolve("payment", pending , { reviewIntervalMs: 10 });
    expect(result).toMatchObject({ status: "rejected", reason: "owner said no" });
    expect(server.received).toHaveLength(1);
  });
});

describe("retryable", () => {
  it("is true for 429 and every 5xx, false for every other 4xx (SPEC.md's retry rules)", async () => {
    const answers = [
      { status: 429, code: "RATE_LIMITED", retryable: true },
      { status: 500, code: "AI_VERIFICATION_TIMEOUT", retryable: true },
      { status: 503, code: "SERVICE_UNAVAILABLE", retryable: true },
      { status: 403, code: "EXCEEDS_PER_TX_LIMIT", retryable: false },
      { status: 422, code: "INSUFFICIENT_BALANCE", retryable: false },
    ];
    server.script(...answers.map(({ status, code }) => ({ status, body: { error: "no", code } })));
    const relay = new RelayClient({ baseUrl: server.url, retry: { maxAttempts: 1 } });
    const seen = [];
    for (const _ of answers) seen.push(await relay.submitPayment(payment).catch((e: RelayApiError) => ({ status: e.status, code: e.code, retryable: e.retryable })));
    expect(seen).toEqual(answers);
  });
});

describe("the fetch it sends with", () => {
  it("is the global fetch unless one is injected, which then carries every attempt", async () => {
    server.script({ status: 503, body: { error: "busy", code: "SERVICE_UNAVAILABLE" } }, { status: 200, body: approved });
    const sent: Array<{ url: string; method: string | undefined }> = [];
    const relay = new RelayClient({
      baseUrl: server.url,
      retry: fast,
      fetch: (url, init) => {
        sent.push({ url, method: init.method });
        return fetch(url, init);
      },
    });
    expect(await relay.submitPayment(payment)).toEqual(approved);
    expect(sent).toEqual([
      { url: `${server.url}/v1/payments`, method: "POST" },
      { url: `${server.url}/v1/payments`, method: "POST" },
    ]);
    expect(server.received).toHaveLength(2);
  });
});

describe("construction and guards", () => {
  it("refuses an invalid base URL", () => {
    expect(() => new RelayClient({ baseUrl: "not a url" })).toThrow('invalid relayer URL "not a url"');
  });

  it("a submit without an idempotency key is sent once", async () => {
    server.script({ status: 500, body: { error: "oops", code: "INTERNAL_ERROR" } });
    const { relay } = client();
    const { idempotencyKey: _dropped, ...withoutKey } = payment;
    await expect(relay.submitPayment(withoutKey as PaymentRequestBody)).rejects.toMatchObject({ code: "INTERNAL_ERROR" });
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.headers["idempotency-key"]).toBeUndefined();
  });
});
