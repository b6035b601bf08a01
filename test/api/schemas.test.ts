import { describe, expect, it } from "vitest";
import {
  codePointLength,
  loginBodySchema,
  ownerRequestBodyJsonSchemas,
  parseUint,
  REJECT_REASON_MAX_CHARS,
  requestBodyJsonSchemas,
  reviewApproveBodySchema,
  reviewRejectBodySchema,
} from "../../src/api/schemas.ts";

type JsonSchema = { type?: unknown; properties: Record<string, Record<string, unknown>>; required: string[] };
const schema = (kind: keyof typeof requestBodyJsonSchemas) => requestBodyJsonSchemas[kind] as unknown as JsonSchema;

describe("OpenAPI JSON Schemas", () => {
  it("describe the payment body in SPEC.md's field order", () => {
    const s = schema("payment");
    expect(s.type).toBe("object");
    expect(Object.keys(s.properties)).toEqual([
      "bot", "to", "token", "amount", "deadline", "ref", "signature", "chainId", "vaultAddress", "idempotencyKey", "memo", "metadata",
      "invoiceId", "orderId", "recipientLabel", "resourceUrl", "x402Funding",
      // swap-and-pay (DESIGN.md §10): optional, all or none
      "swapSignature", "swapFromToken", "swapMaxFromAmount", "swapToToken", "swapMinToAmount", "swapDeadline", "swapRef",
    ]);
    expect(s.required).toEqual(["bot", "to", "token", "amount", "deadline", "ref", "signature", "chainId", "vaultAddress"]);
    expect(s.properties.swapMaxFromAmount).toMatchObject({ type: "string", pattern: "^[0-9]{1,78}$" });
    expect(s.properties.swapRef).toMatchObject({ type: "string", pattern: "^0x[0-9a-fA-F]{64}$" });
    expect(s.properties.amount).toMatchObject({ type: "string", pattern: "^[0-9]{1,78}$" });
    expect(s.properties.chainId).toMatchObject({ type: "integer" });
    expect(s.properties.idempotencyKey).toMatchObject({ anyOf: [{ type: "string", format: "uuid" }, { type: "null" }] });
    expect(s.properties.metadata).toMatchObject({ maxProperties: 10, additionalProperties: { type: "string", maxLength: 500 } });
    expect(s.properties.invoiceId).toMatchObject({ type: ["string", "null"], maxLength: 128 });
    expect(s.properties.orderId).toMatchObject({ type: ["string", "null"], maxLength: 128 });
    expect(s.properties.recipientLabel).toMatchObject({ type: ["string", "null"], maxLength: 200 });
    expect(s.properties.resourceUrl).toMatchObject({ type: ["string", "null"], format: "uri", maxLength: 2048 });
    expect(s.properties.x402Funding).toMatchObject({ type: ["object", "boolean", "null"] });
  });

  it("describe the execute body of DESIGN.md section 6", () => {
    const s = schema("execute");
    expect(Object.keys(s.properties)).toEqual([
      "chainId", "vaultAddress", "bot", "protocol", "callData", "tokens", "amounts", "token", "amount", "value",
      "deadline", "ref", "signature", "idempotencyKey", "calldataHash", "protocolName", "memo", "metadata",
      "invoiceId", "orderId", "recipientLabel", "resourceUrl", "x402Funding",
    ]);
    expect(s.required).toEqual(["chainId", "vaultAddress", "bot", "protocol", "callData", "deadline", "ref", "signature"]);
    expect(s.properties.tokens).toMatchObject({ type: "array", maxItems: 16, items: { type: "string" } });
  });

  it("describe the swap body of DESIGN.md section 6", () => {
    const s = schema("swap");
    expect(Object.keys(s.properties)).toEqual([
      "chainId", "vaultAddress", "bot", "fromToken", "maxFromAmount", "toToken", "minToAmount", "deadline", "ref",
      "signature", "idempotencyKey", "memo", "metadata",
      "invoiceId", "orderId", "recipientLabel", "resourceUrl", "x402Funding",
    ]);
    expect(s.required).toEqual(["chainId", "vaultAddress", "bot", "fromToken", "maxFromAmount", "toToken", "minToAmount", "deadline", "ref", "signature"]);
  });

  it("are plain JSON with a description and no $schema (they are embedded in the OpenAPI document)", () => {
    for (const kind of ["payment", "execute", "swap"] as const) {
      const s = requestBodyJsonSchemas[kind];
      expect(JSON.parse(JSON.stringify(s))).toEqual(s);
      expect(s).not.toHaveProperty("$schema");
      expect(typeof s.description).toBe("string");
    }
  });
});

describe("helpers", () => {
  it("parseUint takes base-10 uint256 strings only", () => {
    expect(parseUint("0")).toBe(0n);
    expect(parseUint("115792089237316195423570985008687907853269984665640564039457584007913129639935")).toBe((1n << 256n) - 1n);
    for (const bad of ["", "-0", "+1", "1.0", "1e3", "0x1", " 1", "115792089237316195423570985008687907853269984665640564039457584007913129639936"]) {
      expect(parseUint(bad)).toBeUndefined();
    }
  });

  it("codePointLength counts characters, not UTF-16 units", () => {
    expect(codePointLength("")).toBe(0);
    expect(codePointLength("abc")).toBe(3);
    expect(codePointLength("😀x😀")).toBe(3);
    expect(codePointLength("\ud800")).toBe(1); // a lone surrogate is one character
    expect(codePointLength("\ud800\ud800\udc00")).toBe(2);
  });
});

describe("owner route bodies", () => {
  const sig = `0x${"ab".repeat(65)}`;

  it("login takes a non-empty SIWE message and a 65-byte signature", () => {
    expect(loginBodySchema.safeParse({ message: "example.com wants you to sign in", signature: sig }).success).toBe(true);
    expect(loginBodySchema.safeParse({ message: " ", signature: sig }).error?.issues[0]?.message).toBe("must not be empty");
    expect(loginBodySchema.safeParse({ message: "m", signature: "0x12" }).error?.issues[0]?.message).toBe("must be 65 bytes");
    expect(loginBodySchema.safeParse({ signature: sig }).error?.issues[0]?.message).toBe("is required");
  });

  it("approve takes {approval: {deadline, signature}}; reject a bounded reason", () => {
    const approved = reviewApproveBodySchema.safeParse({ approval: { deadline: "1700000000", signature: sig } });
    expect(approved.data?.approval.deadline).toBe(1700000000n);
    expect(reviewApproveBodySchema.safeParse({}).error?.issues[0]).toMatchObject({ path: ["approval"], message: "is required" });
    expect(reviewApproveBodySchema.safeParse({ approval: { deadline: "soon", signature: sig } }).success).toBe(false);
    expect(reviewRejectBodySchema.safeParse({ reason: "not this one" }).success).toBe(true);
    expect(reviewRejectBodySchema.safeParse({ reason: "x".repeat(REJECT_REASON_MAX_CHARS + 1) }).success).toBe(false);
  });

  it("have plain JSON Schemas for the OpenAPI document", () => {
    for (const s of Object.values(ownerRequestBodyJsonSchemas)) {
      expect(JSON.parse(JSON.stringify(s))).toEqual(s);
      expect(s).not.toHaveProperty("$schema");
      expect(s.type).toBe("object");
    }
    expect(ownerRequestBodyJsonSchemas.login.required).toEqual(["message", "signature"]);
  });
});
