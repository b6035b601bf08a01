import { describe, expect, it } from "vitest";
import { codePointLength, parseUint, requestBodyJsonSchemas } from "../../src/api/schemas.ts";

type JsonSchema = { type?: unknown; properties: Record<string, Record<string, unknown>>; required: string[] };
const schema = (kind: keyof typeof requestBodyJsonSchemas) => requestBodyJsonSchemas[kind] as unknown as JsonSchema;

describe("OpenAPI JSON Schemas", () => {
  it("describe the payment body in SPEC.md's field order", () => {
    const s = schema("payment");
    expect(s.type).toBe("object");
    expect(Object.keys(s.properties)).toEqual([
      "bot", "to", "token", "amount", "deadline", "ref", "signature", "chainId", "vaultAddress", "idempotencyKey", "memo", "metadata",
    ]);
    expect(s.required).toEqual(["bot", "to", "token", "amount", "deadline", "ref", "signature", "chainId", "vaultAddress"]);
    expect(s.properties.amount).toMatchObject({ type: "string", pattern: "^[0-9]{1,78}$" });
    expect(s.properties.chainId).toMatchObject({ type: "integer" });
    expect(s.properties.idempotencyKey).toMatchObject({ anyOf: [{ type: "string", format: "uuid" }, { type: "null" }] });
    expect(s.properties.metadata).toMatchObject({ maxProperties: 10, additionalProperties: { type: "string", maxLength: 500 } });
  });

  it("describe the execute body of DESIGN.md section 6", () => {
    const s = schema("execute");
    expect(Object.keys(s.properties)).toEqual([
      "chainId", "vaultAddress", "bot", "protocol", "callData", "tokens", "amounts", "token", "amount", "value",
      "deadline", "ref", "signature", "idempotencyKey", "calldataHash", "protocolName", "memo", "metadata",
    ]);
    expect(s.required).toEqual(["chainId", "vaultAddress", "bot", "protocol", "callData", "deadline", "ref", "signature"]);
    expect(s.properties.tokens).toMatchObject({ type: "array", maxItems: 16, items: { type: "string" } });
  });

  it("describe the swap body of DESIGN.md section 6", () => {
    const s = schema("swap");
    expect(Object.keys(s.properties)).toEqual([
      "chainId", "vaultAddress", "bot", "fromToken", "maxFromAmount", "toToken", "minToAmount", "deadline", "ref",
      "signature", "idempotencyKey", "memo", "metadata",
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
