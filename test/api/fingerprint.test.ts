import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, requestFingerprint } from "../../src/api/fingerprint.ts";
import { validateBody } from "../../src/api/validate.ts";
import type { IntentKind } from "../../packages/client/src/intent-types.ts";
import { bodies, executeBody, OTHER_KEY, paymentBody, swapBody } from "./bodies.ts";

const fp = (kind: IntentKind, body: Record<string, unknown>, headers = {}) =>
  requestFingerprint(validateBody(kind, body, headers));

/** The same object with its keys in another order. */
function reorder(body: Record<string, unknown>, seed: number): Record<string, unknown> {
  const keys = Object.keys(body);
  const shuffled = keys.map((k, i) => ({ k, r: Math.sin(seed + i) })).sort((a, b) => a.r - b.r);
  return Object.fromEntries(shuffled.map(({ k }) => [k, body[k]]));
}

describe("canonicalJson", () => {
  it("sorts keys, drops undefined, writes bigints as strings", () => {
    expect(canonicalJson({ b: 1, a: [2n, "x", null, { d: undefined, c: true }] })).toBe(
      '{"a":["2","x",null,{"c":true}],"b":1}',
    );
    expect(canonicalJson({ a: 1, k: 2 }, "k")).toBe('{"a":1}');
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
  });

  it("writes any JSON value, bigints and undefined members as the canonical form spells it", () => {
    // The canonical form, spelled out member by member (keys sorted by UTF-16 code units).
    const spelled = (value: unknown): string => {
      if (typeof value === "bigint") return `"${value}"`;
      if (typeof value !== "object" || value === null) return JSON.stringify(value);
      if (Array.isArray(value)) return `[${value.map(spelled).join(",")}]`;
      const entries = Object.entries(value).filter(([, item]) => item !== undefined);
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${spelled(item)}`).join(",")}}`;
    };
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node")), fc.dictionary(fc.string(), fc.oneof(tie("node"), fc.constant(undefined)))),
      leaf: fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.bigInt()),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(spelled(v));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("requestFingerprint", () => {
  it("is the sha256 of the documented canonical form (fingerprints are stored, so it must not drift)", () => {
    const body = paymentBody();
    const canonical =
      `{"chainId":84532,"intent":{"amount":"5000000","bot":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",` +
      `"deadline":"1900000000","ref":"${body.ref}","to":"0x2222222222222222222222222222222222222222",` +
      `"token":"0x036CbD53842c5426634e7929541eC2318f3dCF7e"},"kind":"payment","memo":"hi",` +
      `"metadata":{"a":"1","b":"2"},"signature":"${body.signature}",` +
      `"vaultAddress":"0x1111111111111111111111111111111111111111"}`;
    const expected = createHash("sha256").update(canonical).digest("hex");
    expect(fp("payment", { ...body, memo: "hi", metadata: { b: "2", a: "1" } })).toBe(expected);
  });

  it("ignores the idempotency key, and where it came from", () => {
    const { idempotencyKey: _k, ...noKey } = paymentBody();
    expect(fp("payment", { ...paymentBody(), idempotencyKey: OTHER_KEY })).toBe(fp("payment", paymentBody()));
    expect(fp("payment", noKey, { "idempotency-key": OTHER_KEY })).toBe(fp("payment", paymentBody()));
  });

  it("does not depend on key order, hex case, address case or null optionals", () => {
    for (const kind of ["payment", "execute", "swap"] as const) {
      const body = { ...bodies[kind](), memo: "hi", metadata: { b: "2", a: "1" } };
      const expected = fp(kind, body);
      fc.assert(
        fc.property(fc.integer(), (seed) => {
          const shuffled = reorder({ ...body, metadata: reorder(body.metadata, seed + 1) }, seed);
          expect(fp(kind, shuffled)).toBe(expected);
        }),
        { numRuns: 50 },
      );
      const lower = Object.fromEntries(
        Object.entries(body).map(([k, v]) => [k, typeof v === "string" && v.startsWith("0x") ? v.toLowerCase() : v]),
      );
      expect(fp(kind, lower)).toBe(expected);
      expect(fp(kind, { ...body, protocolName: null, calldataHash: null, extra: "ignored" })).toBe(expected);
    }
  });

  it("treats token/amount as the same request as one-element tokens/amounts", () => {
    const { tokens, amounts, ...rest } = executeBody() as { tokens: string[]; amounts: string[] };
    expect(fp("execute", { ...rest, token: tokens[0], amount: amounts[0] })).toBe(fp("execute", executeBody()));
  });

  it("changes with every field of the request", () => {
    const changes: Record<IntentKind, Record<string, unknown>> = {
      payment: {
        bot: "0x2222222222222222222222222222222222222222",
        to: "0x3333333333333333333333333333333333333333",
        token: "0x3333333333333333333333333333333333333333",
        amount: "5000001",
        deadline: "1900000001",
        ref: `0x${"ab".repeat(32)}`,
        signature: `0x${"11".repeat(64)}1b`,
        chainId: 8453,
        vaultAddress: "0x3333333333333333333333333333333333333333",
        memo: "x",
        metadata: { a: "b" },
      },
      execute: {
        protocol: "0x2222222222222222222222222222222222222222",
        callData: "0x12345679",
        tokens: ["0x2222222222222222222222222222222222222222"],
        amounts: ["1"],
        value: "1",
        protocolName: "p",
      },
      swap: {
        fromToken: "0x2222222222222222222222222222222222222222",
        maxFromAmount: "5",
        toToken: "0x3333333333333333333333333333333333333333",
        minToAmount: "2",
      },
      x402: {
        token: "0x2222222222222222222222222222222222222222",
        payTo: "0x3333333333333333333333333333333333333333",
        amount: "7",
        validAfter: "1",
        validBefore: "1900000601",
        nonce: `0x${"ab".repeat(32)}`,
        deadline: "1900000001",
      },
    };
    for (const kind of Object.keys(changes) as IntentKind[]) {
      const base = fp(kind, bodies[kind]());
      for (const [field, value] of Object.entries(changes[kind])) {
        expect(fp(kind, { ...bodies[kind](), [field]: value }), `${kind}.${field}`).not.toBe(base);
      }
    }
    // the same fields in two kinds never collide
    expect(fp("swap", swapBody())).not.toBe(fp("payment", paymentBody()));
  });
});
