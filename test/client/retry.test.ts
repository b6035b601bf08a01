import { describe, expect, it } from "vitest";
import { RelayApiError, RelayUnreachableError } from "../../packages/client/src/errors.ts";
import { parseRetryAfter } from "../../packages/client/src/http.ts";
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep } from "../../packages/client/src/retry.ts";

const policy = { ...DEFAULT_RETRY_POLICY };
const api = (status: number, code: string, retryAfterSeconds?: number): RelayApiError =>
  new RelayApiError({ status, code, message: "x", ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });

describe("retryDelayMs", () => {
  it("honours Retry-After on 429 up to the cap", () => {
    expect(retryDelayMs(api(429, "RATE_LIMITED", 3), 1, policy)).toBe(3_000);
    expect(retryDelayMs(api(429, "RATE_LIMITED", 61), 1, policy)).toBeUndefined();
  });

  it("backs off exponentially with jitter, capped", () => {
    const low = () => 0;
    const high = () => 1;
    expect(retryDelayMs(api(500, "RPC_ERROR"), 1, policy, low)).toBe(250);
    expect(retryDelayMs(api(500, "INTERNAL_ERROR"), 1, policy, high)).toBe(500);
    expect(retryDelayMs(api(503, "HTTP_503"), 3, policy, high)).toBe(2_000);
    expect(retryDelayMs(api(500, "INTERNAL_ERROR"), 10, policy, high)).toBe(8_000);
    expect(retryDelayMs(new RelayUnreachableError("down", { url: "http://x" }), 2, policy, high)).toBe(1_000);
    expect(retryDelayMs(api(429, "RATE_LIMITED"), 1, policy, high)).toBe(500);
  });

  it("waits 30 to 60 s after AI_VERIFICATION_TIMEOUT by default", () => {
    expect(retryDelayMs(api(500, "AI_VERIFICATION_TIMEOUT"), 1, policy, () => 0)).toBe(30_000);
    expect(retryDelayMs(api(500, "AI_VERIFICATION_TIMEOUT"), 1, policy, () => 1)).toBe(60_000);
  });

  it("never retries other 4xx or foreign errors", () => {
    for (const [status, code] of [
      [400, "INVALID_REQUEST"],
      [401, "UNAUTHORIZED"],
      [403, "EXCEEDS_DAILY_LIMIT"],
      [404, "NOT_FOUND"],
      [409, "DUPLICATE_INTENT"],
      [422, "INSUFFICIENT_BALANCE"],
    ] as const) {
      expect(retryDelayMs(api(status, code), 1, policy)).toBeUndefined();
    }
    expect(retryDelayMs(new TypeError("bug"), 1, policy)).toBeUndefined();
  });
});

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("7")).toBe(7);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter("1.5")).toBeUndefined();
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:00:10 GMT", now)).toBe(10);
    expect(parseRetryAfter("Tue, 01 Jan 2029 00:00:10 GMT", now)).toBe(0);
  });
});

describe("sleep", () => {
  it("rejects with the abort reason", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });
});
