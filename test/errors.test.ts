import { describe, expect, it } from "vitest";
import {
  errorCodes,
  errorTable,
  isErrorCode,
  isRelayError,
  maxDetailsLength,
  RelayError,
  relayError,
  statusOf,
  toRelayError,
  type ErrorCode,
} from "../src/errors.ts";
import { policyRules } from "../src/relayer/policy/index.ts";

const specCodes: Record<string, number> = {
  INVALID_REQUEST: 400,
  INVALID_SIGNATURE: 400,
  INVALID_ADDRESS: 400,
  INVALID_AMOUNT: 400,
  INVALID_REF: 400,
  DEADLINE_EXPIRED: 400,
  INVALID_CHAIN_ID: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  MEMO_TOO_LONG: 400,
  METADATA_TOO_LARGE: 400,
  BOT_NOT_ACTIVE: 403,
  EXCEEDS_PER_TX_LIMIT: 403,
  EXCEEDS_DAILY_LIMIT: 403,
  EXCEEDS_VELOCITY_LIMIT: 403,
  DESTINATION_NOT_ALLOWED: 403,
  VAULT_PAUSED: 403,
  NOT_FOUND: 404,
  VAULT_NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  DUPLICATE_INTENT: 409,
  INSUFFICIENT_BALANCE: 422,
  SIMULATION_FAILED: 422,
  SWAP_SLIPPAGE_EXCEEDED: 422,
  NO_SWAP_ROUTE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  RPC_ERROR: 500,
  AI_VERIFICATION_TIMEOUT: 500,
};
const designCodes: Record<string, number> = {
  PROTOCOL_NOT_APPROVED: 403,
  REBALANCE_TOKEN_NOT_ALLOWED: 403,
  EXCEEDS_REBALANCE_LIMIT: 403,
  UNAUTHORIZED: 401,
  NOT_VAULT_OWNER: 403,
  REVIEW_ALREADY_DECIDED: 409,
  PAYLOAD_TOO_LARGE: 413,
};
// Codes of the surface real clients call (field formats, off-chain fields, terms).
const clientSurfaceCodes: Record<string, number> = {
  INVALID_DEADLINE: 400,
  INVOICE_ID_TOO_LONG: 400,
  ORDER_ID_TOO_LONG: 400,
  RECIPIENT_LABEL_TOO_LONG: 400,
  INVALID_RESOURCE_URL: 400,
  INVALID_X402_FUNDING: 400,
  INVALID_X402_REQUIREMENT: 400,
  X402_AUTHORIZATION_EXPIRED: 400,
  X402_NONCE_USED: 409,
  TERMS_NOT_ACCEPTED: 403,
};
// Owner-policy codes (issue: the owner's policy binds).
const policyCodes: Record<string, number> = {
  DEADLINE_TOO_FAR: 400,
  INTENT_REJECTED: 409,
  PRICE_FEED_STALE: 422,
};
const frameworkCodes: Record<string, number> = {
  SERVICE_UNAVAILABLE: 503,
  REQUEST_TIMEOUT: 408,
  UNSUPPORTED_MEDIA_TYPE: 415,
  METHOD_NOT_ALLOWED: 405,
};

describe("error table", () => {
  it("has exactly the SPEC, DESIGN and framework codes with their statuses, and the codes of the policy rules", () => {
    const expected = { ...specCodes, ...designCodes, ...policyCodes, ...clientSurfaceCodes, ...frameworkCodes };
    // A code only a policy rule answers is pinned, with its status, by the rules' test
    // (test/relayer/policy-rules.test.ts), so that a new rule is its file, its line, its code and its test.
    const ruleCodes = new Set<string>(policyRules.flatMap((r) => r.codes));
    const listed = errorCodes.filter((c) => c in expected || !ruleCodes.has(c));
    expect(Object.fromEntries(listed.map((c) => [c, statusOf(c)]))).toEqual(expected);
    for (const code of errorCodes) expect(errorTable[code].message.length).toBeGreaterThan(0);
  });

  it("marks exactly the safe-to-retry codes as retryable", () => {
    const retryable = errorCodes.filter((c) => new RelayError(c).retryable).sort();
    expect(retryable).toEqual(
      ["AI_VERIFICATION_TIMEOUT", "INTERNAL_ERROR", "RATE_LIMITED", "RPC_ERROR", "SERVICE_UNAVAILABLE"].sort(),
    );
  });

  it("recognizes codes", () => {
    expect(isErrorCode("VAULT_PAUSED")).toBe(true);
    expect(isErrorCode("toString")).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});

describe("RelayError", () => {
  it("carries code, status, message and details", () => {
    const err = relayError("INVALID_ADDRESS", "to is not checksummed");
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(RelayError);
    expect(isRelayError(err)).toBe(true);
    expect(err.name).toBe("RelayError");
    expect(err.code).toBe("INVALID_ADDRESS");
    expect(err.status).toBe(400);
    expect(err.message).toBe(errorTable.INVALID_ADDRESS.message);
    expect(err.details).toBe("to is not checksummed");
    expect(err.retryable).toBe(false);
  });

  it("serializes to exactly {error, code, details?}", () => {
    expect(relayError("NOT_FOUND").toBody()).toEqual({ error: "Not found", code: "NOT_FOUND" });
    expect(Object.keys(relayError("NOT_FOUND").toBody())).toEqual(["error", "code"]);
    const body = relayError("SIMULATION_FAILED", "execution reverted: no", { cause: new Error("x") }).toBody();
    expect(Object.keys(body)).toEqual(["error", "code", "details"]);
    expect(JSON.parse(JSON.stringify(relayError("VAULT_PAUSED", "d")))).toEqual({
      error: "Vault is paused",
      code: "VAULT_PAUSED",
      details: "d",
    });
  });

  it("never puts a stack, a cause or a URL in the body", () => {
    const cause = new Error("HTTP request failed. URL: https://rpc.example/v2/SECRET-KEY");
    const err = relayError("RPC_ERROR", cause.message, { cause });
    expect(err.cause).toBe(cause);
    const text = JSON.stringify(err.toBody());
    expect(text).not.toContain("SECRET");
    expect(text).not.toContain("https://");
    expect(text).not.toContain("at ");
    expect(err.details).toBe("HTTP request failed. URL: [url]");
  });

  it("cuts very long details", () => {
    const err = relayError("SIMULATION_FAILED", "x".repeat(10_000));
    expect(err.details!.length).toBe(maxDetailsLength);
  });

  it("keeps Retry-After as whole seconds", () => {
    expect(relayError("RATE_LIMITED", undefined, { retryAfterSeconds: 1.2 }).retryAfterSeconds).toBe(2);
    expect(relayError("RATE_LIMITED").retryAfterSeconds).toBeUndefined();
    expect(relayError("RATE_LIMITED", undefined, { retryAfterSeconds: -3 }).retryAfterSeconds).toBe(0);
  });

  it("wraps unknown errors as INTERNAL_ERROR without leaking them", () => {
    const original = new TypeError("cannot read x of undefined");
    const wrapped = toRelayError(original);
    expect(wrapped.code).toBe("INTERNAL_ERROR");
    expect(wrapped.status).toBe(500);
    expect(wrapped.cause).toBe(original);
    expect(wrapped.toBody()).toEqual({ error: "Internal error", code: "INTERNAL_ERROR" });
    const same = relayError("BOT_NOT_ACTIVE");
    expect(toRelayError(same)).toBe(same);
  });

  it("builds every code", () => {
    for (const code of errorCodes as ErrorCode[]) {
      const err = relayError(code, "d");
      expect(err.toBody()).toEqual({ error: errorTable[code].message, code, details: "d" });
    }
  });
});
