// The off-chain fields of a request body (invoiceId, orderId, recipientLabel, resourceUrl,
// x402Funding): each is checked at its limit and one past it, for its JSON type, and answers with
// its own 400 code; what passes is kept as sent, in the normalized request and its fingerprint.
import { describe, expect, it } from "vitest";
import { requestFingerprint } from "../../src/api/fingerprint.ts";
import { requestBodyJsonSchemas } from "../../src/api/schemas.ts";
import { validateBody } from "../../src/api/validate.ts";
import type { IntentKind } from "../../packages/client/src/intent-types.ts";
import { RelayError, type ErrorCode } from "../../src/errors.ts";
import { bodies, paymentBody } from "./bodies.ts";

function refusal(body: Record<string, unknown>, kind: IntentKind = "payment"): { code: ErrorCode; details: string | undefined; status: number } {
  try {
    validateBody(kind, body);
  } catch (err) {
    expect(err).toBeInstanceOf(RelayError);
    const e = err as RelayError;
    return { code: e.code, details: e.details, status: e.status };
  }
  throw new Error(`expected ${JSON.stringify(body).slice(0, 200)} to be refused`);
}

const accepted = (fields: Record<string, unknown>, kind: IntentKind = "payment") => validateBody(kind, { ...bodies[kind](), ...fields });

const FUNDING = {
  scheme: "exact",
  network: "base-sepolia",
  asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  amount: "1000000",
  payTo: "0x2222222222222222222222222222222222222222",
  resource: "https://api.example.com/report/42",
  maxTimeoutSeconds: 60,
  extra: { name: "USDC", version: "2" },
};

describe("off-chain fields: accepted", () => {
  it("keeps all five as sent on a payment, an execute and a swap", () => {
    const fields = {
      invoiceId: "INV-2024-0042",
      orderId: "order_9f8e",
      recipientLabel: "Acme Data Ltd — monthly report",
      resourceUrl: "https://api.example.com/report/42?format=pdf",
      x402Funding: FUNDING,
    };
    for (const kind of ["payment", "execute", "swap"] as const) {
      expect(accepted(fields, kind)).toMatchObject(fields);
    }
  });

  it("treats null and absence alike, and adds nothing when absent", () => {
    const req = accepted({ invoiceId: null, orderId: null, recipientLabel: null, resourceUrl: null, x402Funding: null });
    for (const field of ["invoiceId", "orderId", "recipientLabel", "resourceUrl", "x402Funding"]) expect(req).not.toHaveProperty(field);
    expect(requestFingerprint(req)).toBe(requestFingerprint(validateBody("payment", paymentBody())));
  });

  it("accepts each text exactly at its limit, counted in characters (code points)", () => {
    expect(accepted({ invoiceId: "i".repeat(128) }).invoiceId).toHaveLength(128);
    expect(accepted({ invoiceId: "😀".repeat(128) }).invoiceId).toBe("😀".repeat(128));
    expect(accepted({ orderId: "o".repeat(128) }).orderId).toHaveLength(128);
    expect(accepted({ recipientLabel: "é".repeat(200) }).recipientLabel).toHaveLength(200);
    const longUrl = `https://example.com/${"p".repeat(2048 - "https://example.com/".length)}`;
    expect(longUrl).toHaveLength(2048);
    expect(accepted({ resourceUrl: longUrl }).resourceUrl).toBe(longUrl);
    expect(accepted({ resourceUrl: "http://127.0.0.1:8080/x" }).resourceUrl).toBe("http://127.0.0.1:8080/x");
  });

  it("accepts x402Funding at 2048 bytes and 4 levels deep, as a fresh copy", () => {
    const pad = (bytes: number) => ({ note: "x".repeat(bytes - JSON.stringify({ note: "" }).length) });
    expect(JSON.stringify(pad(2048))).toHaveLength(2048);
    expect(accepted({ x402Funding: pad(2048) }).x402Funding).toEqual(pad(2048));
    const deep = { a: { b: [{ c: "leaf", d: 1.5, e: false, f: null }] }, list: [] };
    expect(accepted({ x402Funding: deep }).x402Funding).toEqual(deep);
    const sent = { ...FUNDING };
    const req = accepted({ x402Funding: sent });
    expect(req.x402Funding).not.toBe(sent);
    expect(Object.getPrototypeOf(req.x402Funding)).toBe(Object.prototype);
  });

  it("accepts x402Funding true, as the production SDK's funding call sends it, distinct in the fingerprint", () => {
    expect(accepted({ x402Funding: true }).x402Funding).toBe(true);
    expect(requestFingerprint(accepted({ x402Funding: true }))).not.toBe(requestFingerprint(accepted({})));
    expect(requestFingerprint(accepted({ x402Funding: true }))).not.toBe(requestFingerprint(accepted({ x402Funding: {} })));
  });

  it("are part of the idempotency fingerprint, like memo (the whole request minus the key)", () => {
    const base = requestFingerprint(accepted({ invoiceId: "INV-1", x402Funding: { network: "base", amount: "1" } }));
    expect(requestFingerprint(accepted({ x402Funding: { amount: "1", network: "base" }, invoiceId: "INV-1" }))).toBe(base);
    expect(requestFingerprint(accepted({ invoiceId: "INV-2", x402Funding: { network: "base", amount: "1" } }))).not.toBe(base);
    expect(requestFingerprint(accepted({ invoiceId: "INV-1", x402Funding: { network: "base", amount: "2" } }))).not.toBe(base);
    expect(requestFingerprint(accepted({ invoiceId: "INV-1" }))).not.toBe(base);
  });

  it("are described in the OpenAPI request bodies of all three routes", () => {
    for (const kind of ["payment", "execute", "swap"] as const) {
      const properties = (requestBodyJsonSchemas[kind] as { properties: Record<string, unknown> }).properties;
      expect(Object.keys(properties)).toEqual(expect.arrayContaining(["invoiceId", "orderId", "recipientLabel", "resourceUrl", "x402Funding"]));
    }
  });
});

describe("off-chain fields: refused with their own 400 code", () => {
  const cases: Array<[string, Record<string, unknown>, ErrorCode, string]> = [
    ["invoiceId over 128", { invoiceId: "i".repeat(129) }, "INVOICE_ID_TOO_LONG", "invoiceId must be at most 128 characters"],
    ["invoiceId over 128 emoji", { invoiceId: "😀".repeat(129) }, "INVOICE_ID_TOO_LONG", "invoiceId must be at most 128 characters"],
    ["invoiceId a number", { invoiceId: 42 }, "INVOICE_ID_TOO_LONG", "invoiceId must be a string"],
    ["invoiceId an object", { invoiceId: { id: "x" } }, "INVOICE_ID_TOO_LONG", "invoiceId must be a string"],
    ["orderId over 128", { orderId: "o".repeat(129) }, "ORDER_ID_TOO_LONG", "orderId must be at most 128 characters"],
    ["orderId a boolean", { orderId: true }, "ORDER_ID_TOO_LONG", "orderId must be a string"],
    ["recipientLabel over 200", { recipientLabel: "l".repeat(201) }, "RECIPIENT_LABEL_TOO_LONG", "recipientLabel must be at most 200 characters"],
    ["recipientLabel an array", { recipientLabel: ["Acme"] }, "RECIPIENT_LABEL_TOO_LONG", "recipientLabel must be a string"],
    ["resourceUrl a number", { resourceUrl: 1 }, "INVALID_RESOURCE_URL", "resourceUrl must be a string"],
    ["resourceUrl over 2048", { resourceUrl: `https://example.com/${"p".repeat(2029)}` }, "INVALID_RESOURCE_URL", "resourceUrl must be at most 2048 characters"],
    ["resourceUrl not a URL", { resourceUrl: "not a url" }, "INVALID_RESOURCE_URL", "resourceUrl must not contain whitespace or control characters"],
    ["resourceUrl relative", { resourceUrl: "/report/42" }, "INVALID_RESOURCE_URL", "resourceUrl must be an absolute http or https URL"],
    ["resourceUrl empty", { resourceUrl: "" }, "INVALID_RESOURCE_URL", "resourceUrl must be an absolute http or https URL"],
    ["resourceUrl ftp", { resourceUrl: "ftp://example.com/file" }, "INVALID_RESOURCE_URL", "resourceUrl must be an absolute http or https URL"],
    ["resourceUrl javascript:", { resourceUrl: "javascript:alert(1)" }, "INVALID_RESOURCE_URL", "resourceUrl must be an absolute http or https URL"],
    ["resourceUrl with credentials", { resourceUrl: "https://user:secret@example.com/" }, "INVALID_RESOURCE_URL", "resourceUrl must not contain credentials"],
    ["resourceUrl with a newline", { resourceUrl: "https://example.com/a\nb" }, "INVALID_RESOURCE_URL", "resourceUrl must not contain whitespace or control characters"],
    ["resourceUrl with an escape", { resourceUrl: "https://example.com/\u001b[2J" }, "INVALID_RESOURCE_URL", "resourceUrl must not contain whitespace or control characters"],
    ["x402Funding a string", { x402Funding: "{\"network\":\"base\"}" }, "INVALID_X402_FUNDING", "x402Funding must be true or a JSON object"],
    ["x402Funding a number", { x402Funding: 5 }, "INVALID_X402_FUNDING", "x402Funding must be true or a JSON object"],
    ["x402Funding an array", { x402Funding: [FUNDING] }, "INVALID_X402_FUNDING", "x402Funding must be true or a JSON object"],
    ["x402Funding false", { x402Funding: false }, "INVALID_X402_FUNDING", "x402Funding must be true or a JSON object"],
    ["x402Funding the string true", { x402Funding: "true" }, "INVALID_X402_FUNDING", "x402Funding must be true or a JSON object"],
    ["x402Funding.payTo not an address", { x402Funding: { ...FUNDING, payTo: "merchant.example" } }, "INVALID_X402_FUNDING", "x402Funding.payTo must be an address"],
    ["x402Funding.payTo a number", { x402Funding: { ...FUNDING, payTo: 7 } }, "INVALID_X402_FUNDING", "x402Funding.payTo must be an address"],
    ["x402Funding over 2048 bytes", { x402Funding: { note: "x".repeat(2049 - 11) } }, "INVALID_X402_FUNDING", "x402Funding must be at most 2048 bytes as JSON (is 2049)"],
    ["x402Funding over 2048 bytes in UTF-8", { x402Funding: { note: "é".repeat(1100) } }, "INVALID_X402_FUNDING", "x402Funding must be at most 2048 bytes as JSON (is 2211)"],
    ["x402Funding 5 levels deep", { x402Funding: { a: { b: { c: { d: { e: "x" } } } } } }, "INVALID_X402_FUNDING", "x402Funding must be nested at most 4 levels"],
    ["x402Funding an array 5 levels deep", { x402Funding: { a: [[[["x"]]]] } }, "INVALID_X402_FUNDING", "x402Funding must be nested at most 4 levels"],
    ["x402Funding a reserved key", { x402Funding: JSON.parse('{"extra":{"__proto__":{"polluted":true}}}') }, "INVALID_X402_FUNDING", "x402Funding.extra.__proto__ is a reserved key"],
    ["x402Funding a constructor key", { x402Funding: { constructor: "x" } }, "INVALID_X402_FUNDING", "x402Funding.constructor is a reserved key"],
    ["x402Funding an infinite number", { x402Funding: JSON.parse('{"amounts":[1,1e999]}') }, "INVALID_X402_FUNDING", "x402Funding.amounts[1] must be a finite number"],
  ];

  for (const [name, fields, code, details] of cases) {
    it(`${name} → ${code}`, () => {
      expect(refusal({ ...paymentBody(), ...fields })).toEqual({ code, details, status: 400 });
    });
  }

  it("on execute and swap too", () => {
    expect(refusal({ ...bodies.execute(), orderId: 7 }, "execute").code).toBe("ORDER_ID_TOO_LONG");
    expect(refusal({ ...bodies.swap(), resourceUrl: "ftp://x" }, "swap").code).toBe("INVALID_RESOURCE_URL");
  });

  it("a pollution attempt leaves Object.prototype alone", () => {
    refusal({ ...paymentBody(), x402Funding: JSON.parse('{"__proto__":{"polluted":true}}') });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
