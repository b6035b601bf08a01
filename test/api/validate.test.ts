import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reviewApproveBodySchema } from "../../src/api/schemas.ts";
import { validateBody, validateOwnerBody, type HeaderBag, type ValidateOptions } from "../../src/api/validate.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { recoverSigner } from "../../src/eip712/recover.ts";
import type { IntentKind } from "../../packages/client/src/intent-types.ts";
import { RelayError, type ErrorCode } from "../../src/errors.ts";
import { vectorNamed } from "../support/vectors.ts";
import { bodies, CALLDATA, executeBody, KEY, OTHER_KEY, paymentBody, swapBody } from "./bodies.ts";

const MAX_UINT = ((1n << 256n) - 1n).toString();
const supported: ValidateOptions = { supportedChainIds: new Set([8453, 84532, 42161, 421614, 31337]) };

function failure(kind: IntentKind, body: unknown, headers?: HeaderBag, options?: ValidateOptions): RelayError {
  try {
    validateBody(kind, body, headers, options);
  } catch (err) {
    expect(err).toBeInstanceOf(RelayError);
    return err as RelayError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

function expectError(
  kind: IntentKind,
  body: unknown,
  code: ErrorCode,
  details: string,
  headers?: HeaderBag,
  options?: ValidateOptions,
): void {
  const err = failure(kind, body, headers, options);
  expect({ code: err.code, details: err.details }).toEqual({ code, details });
  expect(err.status).toBe(400);
}

const withField = (body: Record<string, unknown>, field: string, value: unknown) => ({ ...body, [field]: value });
const without = (body: Record<string, unknown>, ...fields: string[]) => {
  const copy = { ...body };
  for (const f of fields) delete copy[f];
  return copy;
};

describe("valid bodies", () => {
  it("normalizes a payment and it verifies end to end", () => {
    const v = vectorNamed("payment-intent");
    const body = paymentBody();
    body.to = (body.to as string).toLowerCase();
    body.bot = `0x${(body.bot as string).slice(2).toUpperCase()}`;
    body.ref = `0x${(body.ref as string).slice(2).toUpperCase()}`;
    body.idempotencyKey = KEY.toUpperCase();
    const req = validateBody("payment", body, {}, supported);
    expect(req).toEqual({
      kind: "payment",
      intent: {
        bot: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        to: "0x2222222222222222222222222222222222222222",
        token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        amount: 5000000n,
        deadline: 1900000000n,
        ref: v.message.ref,
      },
      chainId: 84532,
      vaultAddress: "0x1111111111111111111111111111111111111111",
      signature: v.signature,
      idempotencyKey: KEY,
    });
    expect(recoverSigner(hashIntent("payment", v.domain, req.intent), req.signature)).toBe(v.signer);
  });

  it("normalizes an execute, computing calldataHash, and it verifies end to end", () => {
    const v = vectorNamed("execute-intent");
    const req = validateBody("execute", { ...executeBody(), protocolName: "Mock", memo: "buy" }, {}, supported);
    expect(req.intent).toEqual({
      bot: v.message.bot,
      protocol: v.message.protocol,
      calldataHash: v.message.calldataHash,
      tokens: v.message.tokens,
      amounts: [5000000n],
      value: 0n,
      deadline: 1900000000n,
      ref: v.message.ref,
    });
    expect(req.callData).toBe(CALLDATA);
    expect(req.protocolName).toBe("Mock");
    expect(req.memo).toBe("buy");
    expect(recoverSigner(hashIntent("execute", v.domain, req.intent), req.signature)).toBe(v.signer);
  });

  it("normalizes a swap and it verifies end to end", () => {
    const v = vectorNamed("swap-intent");
    const req = validateBody("swap", swapBody(), {}, supported);
    expect(req.kind).toBe("swap");
    expect(req.intent.minToAmount).toBe(1n);
    expect(req.intent.maxFromAmount).toBe(100000000n);
    expect(recoverSigner(hashIntent("swap", v.domain, req.intent), req.signature)).toBe(v.signer);
  });

  it("refuses a payment of 0 and one to the zero address (a zero payment only spends an intent; 0x0 burns)", () => {
    expectError("payment", withField(paymentBody(), "amount", "0"), "INVALID_AMOUNT", "amount must be greater than 0");
    expectError("payment", withField(paymentBody(), "to", "0x0000000000000000000000000000000000000000"), "INVALID_ADDRESS", "to must not be the zero address");
  });

  it("accepts amount 1 and 2^256-1, memo and metadata at their limits", () => {
    expect(validateBody("payment", withField(paymentBody(), "amount", "1")).intent.amount).toBe(1n);
    expect(validateBody("payment", withField(paymentBody(), "amount", MAX_UINT)).intent.amount).toBe(BigInt(MAX_UINT));
    expect(validateBody("payment", withField(paymentBody(), "amount", "007")).intent.amount).toBe(7n);
    const memo = "m".repeat(1000);
    expect(validateBody("payment", { ...paymentBody(), memo }).memo).toBe(memo);
    const emoji = "😀".repeat(1000); // 1000 characters, 2000 UTF-16 code units
    expect(validateBody("payment", { ...paymentBody(), memo: emoji }).memo).toBe(emoji);
    const metadata = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, "v".repeat(500)]));
    expect(validateBody("payment", { ...paymentBody(), metadata }).metadata).toEqual(metadata);
  });

  it("treats null optional fields as absent and ignores unknown fields", () => {
    const req = validateBody("payment", { ...paymentBody(), memo: null, metadata: null, extra: 1, nested: { a: 1 } });
    expect(req).not.toHaveProperty("memo");
    expect(req).not.toHaveProperty("metadata");
    expect(req).not.toHaveProperty("extra");
    const ex = validateBody("execute", { ...executeBody(), value: null, calldataHash: null, protocolName: null });
    expect(ex.intent.value).toBe(0n);
    expect(ex).not.toHaveProperty("protocolName");
  });

  it("does not let __proto__ or constructor keys pollute anything", () => {
    const text = JSON.stringify(paymentBody()).replace(
      /^\{/,
      '{"__proto__":{"polluted":true,"memo":"x"},"constructor":{"prototype":{"polluted":true}},',
    );
    const body: unknown = JSON.parse(text);
    const req = validateBody("payment", body);
    expect(req).not.toHaveProperty("memo");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(req)).toBe(Object.prototype);
    const bad = JSON.parse(JSON.stringify({ ...paymentBody() }).replace(/^\{/, '{"metadata":{"__proto__":{"x":"1"}},'));
    expectError("payment", bad, "INVALID_REQUEST", "metadata.__proto__ is a reserved key");
    expectError("payment", { ...paymentBody(), metadata: { constructor: "x" } }, "INVALID_REQUEST", "metadata.constructor is a reserved key");
  });
});

const integerFields = new Set(["amount", "deadline", "maxFromAmount", "minToAmount", "validAfter", "validBefore"]);

describe("INVALID_REQUEST", () => {
  it("refuses a body that is not a JSON object", () => {
    for (const body of [null, undefined, [], [paymentBody()], "x", 5, true]) {
      expectError("payment", body, "INVALID_REQUEST", "body must be a JSON object");
    }
  });

  const required: Record<IntentKind, string[]> = {
    payment: ["bot", "to", "token", "amount", "deadline", "ref", "signature", "chainId", "vaultAddress"],
    execute: ["chainId", "vaultAddress", "bot", "protocol", "callData", "deadline", "ref", "signature"],
    swap: ["chainId", "vaultAddress", "bot", "fromToken", "maxFromAmount", "toToken", "minToAmount", "deadline", "ref", "signature"],
    x402: ["chainId", "vaultAddress", "bot", "token", "payTo", "amount", "validAfter", "validBefore", "nonce", "deadline", "signature"],
  };
  for (const kind of Object.keys(required) as IntentKind[]) {
    it(`names each missing required ${kind} field`, () => {
      for (const field of required[kind]) {
        expectError(kind, without(bodies[kind](), field), "INVALID_REQUEST", `${field} is required`);
      }
      expectError(kind, without(bodies[kind](), "idempotencyKey"), "INVALID_REQUEST", "idempotencyKey is required (body field or Idempotency-Key header)");
    });
    it(`names each ${kind} field of the wrong JSON type`, () => {
      // Integer-string fields answer their own code for a wrong type: see "integer-string fields".
      for (const field of required[kind].filter((f) => !integerFields.has(f))) {
        const expected = field === "chainId" ? "an integer" : "a string";
        expectError(kind, withField(bodies[kind](), field, field === "chainId" ? "84532" : 5), "INVALID_REQUEST", `${field} must be ${expected}`);
        expectError(kind, withField(bodies[kind](), field, null), "INVALID_REQUEST", `${field} must be ${expected}`);
      }
    });
  }

  it("refuses wrongly typed optional fields", () => {
    expectError("payment", { ...paymentBody(), memo: 5 }, "INVALID_REQUEST", "memo must be a string");
    expectError("payment", { ...paymentBody(), metadata: ["a"] }, "INVALID_REQUEST", "metadata must be an object of strings");
    expectError("payment", { ...paymentBody(), metadata: "a" }, "INVALID_REQUEST", "metadata must be an object of strings");
    expectError("payment", { ...paymentBody(), metadata: { a: "x", b: 5 } }, "INVALID_REQUEST", "metadata.b must be a string");
    expectError("payment", { ...paymentBody(), idempotencyKey: 5 }, "INVALID_REQUEST", "idempotencyKey must be a string");
  });

  it("reports the first failing field in table order", () => {
    const body = { ...paymentBody(), bot: "0x12", to: 5, amount: "-1", memo: "x".repeat(2000) };
    expectError("payment", body, "INVALID_ADDRESS", "bot must be 0x followed by 40 hex digits");
    expectError("payment", without(body, "bot"), "INVALID_REQUEST", "bot is required");
    expectError("payment", { ...body, bot: paymentBody().bot }, "INVALID_REQUEST", "to must be a string");
    expectError("payment", { ...body, bot: paymentBody().bot, to: paymentBody().to }, "INVALID_AMOUNT", "amount must be a non-negative decimal integer string of at most 2^256-1");
    // field errors come before cross-field errors (idempotency key, chain support)
    expectError("payment", without({ ...paymentBody(), chainId: 1, amount: "x" }, "idempotencyKey"), "INVALID_AMOUNT", "amount must be a non-negative decimal integer string of at most 2^256-1", {}, supported);
  });
});

describe("field codes", () => {
  const addressFields: Record<IntentKind, string[]> = {
    payment: ["bot", "to", "token", "vaultAddress"],
    execute: ["vaultAddress", "bot", "protocol"],
    swap: ["vaultAddress", "bot", "fromToken", "toToken"],
    x402: ["vaultAddress", "bot", "token", "payTo"],
  };
  for (const kind of Object.keys(addressFields) as IntentKind[]) {
    it(`INVALID_ADDRESS for each ${kind} address field`, () => {
      for (const field of addressFields[kind]) {
        for (const bad of ["", "0x", "0x1234", "70997970C51812dc3A010C7d01b50e0d17dc79C8", `0x${"g".repeat(40)}`, `0X${"1".repeat(40)}`, `0x${"1".repeat(41)}`]) {
          expectError(kind, withField(bodies[kind](), field, bad), "INVALID_ADDRESS", `${field} must be 0x followed by 40 hex digits`);
        }
        expectError(kind, withField(bodies[kind](), field, "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"), "INVALID_ADDRESS", `${field} is not a valid EIP-55 checksummed address`);
      }
    });
  }

  it("INVALID_AMOUNT for amounts that are not non-negative base-10 uint256 strings", () => {
    for (const bad of ["", "-1", "+1", "1.0", "1.5", "1e6", "0x10", " 1", "1 ", "١", (1n << 256n).toString(), "1".repeat(79)]) {
      expectError("payment", withField(paymentBody(), "amount", bad), "INVALID_AMOUNT", "amount must be a non-negative decimal integer string of at most 2^256-1");
    }
    expectError("swap", withField(swapBody(), "maxFromAmount", "1.5"), "INVALID_AMOUNT", "maxFromAmount must be a non-negative decimal integer string of at most 2^256-1");
    expectError("swap", withField(swapBody(), "minToAmount", "-5"), "INVALID_AMOUNT", "minToAmount must be a non-negative decimal integer string of at most 2^256-1");
    expectError("execute", withField(executeBody(), "value", "1e18"), "INVALID_AMOUNT", "value must be a non-negative decimal integer string of at most 2^256-1");
    expectError("execute", withField(executeBody(), "amounts", ["5", "x"]), "INVALID_AMOUNT", "amounts[1] must be a non-negative decimal integer string of at most 2^256-1");
  });

  it("INVALID_REF", () => {
    const ref = paymentBody().ref as string;
    for (const bad of ["", "0x", ref.slice(0, 65), `${ref}0`, ref.slice(2), `0x${"z".repeat(64)}`]) {
      expectError("payment", withField(paymentBody(), "ref", bad), "INVALID_REF", "ref must be 0x followed by 64 hex digits");
    }
    expectError("swap", withField(swapBody(), "ref", "0x1"), "INVALID_REF", "ref must be 0x followed by 64 hex digits");
  });

  it("INVALID_SIGNATURE for a signature that is not 0x hex of 65 bytes", () => {
    const sig = paymentBody().signature as string;
    expectError("payment", withField(paymentBody(), "signature", sig.slice(2)), "INVALID_SIGNATURE", "signature must be 0x-prefixed hex");
    expectError("payment", withField(paymentBody(), "signature", "0xnothex"), "INVALID_SIGNATURE", "signature must be 0x-prefixed hex");
    expectError("payment", withField(paymentBody(), "signature", sig.slice(0, 130)), "INVALID_SIGNATURE", "signature must be 65 bytes");
  });

  it("INVALID_CHAIN_ID for a non-integer or unsupported chain", () => {
    for (const bad of [1.5, -1, 0, Number.MAX_SAFE_INTEGER + 2]) {
      expectError("payment", withField(paymentBody(), "chainId", bad), "INVALID_CHAIN_ID", "chainId must be a positive integer");
    }
    expectError("payment", withField(paymentBody(), "chainId", 1), "INVALID_CHAIN_ID", "chainId 1 is not supported", {}, supported);
    expect(validateBody("payment", withField(paymentBody(), "chainId", 1)).chainId).toBe(1); // no set: any chain
    expectError("swap", withField(swapBody(), "chainId", 10), "INVALID_CHAIN_ID", "chainId 10 is not supported", {}, supported);
  });

  it("INVALID_IDEMPOTENCY_KEY for a key that is not a UUID", () => {
    for (const bad of ["", "abc", KEY.replace(/-/g, ""), `${KEY}0`, `{${KEY}}`, KEY.replace("6", "g")]) {
      expectError("payment", withField(paymentBody(), "idempotencyKey", bad), "INVALID_IDEMPOTENCY_KEY", "idempotencyKey must be a UUID");
    }
    // any version, any case
    for (const good of ["00000000-0000-0000-0000-000000000000", "123E4567-E89B-12D3-A456-426614174000", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"]) {
      expect(validateBody("payment", withField(paymentBody(), "idempotencyKey", good)).idempotencyKey).toBe(good.toLowerCase());
    }
  });

  it("MEMO_TOO_LONG over 1000 characters", () => {
    expectError("payment", { ...paymentBody(), memo: "m".repeat(1001) }, "MEMO_TOO_LONG", "memo must be at most 1000 characters");
    expectError("swap", { ...swapBody(), memo: "😀".repeat(1001) }, "MEMO_TOO_LONG", "memo must be at most 1000 characters");
    expectError("execute", { ...executeBody(), memo: "m".repeat(1001) }, "MEMO_TOO_LONG", "memo must be at most 1000 characters");
  });

  it("METADATA_TOO_LARGE over 10 keys or a value over 500 characters", () => {
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"]));
    expectError("payment", { ...paymentBody(), metadata: eleven }, "METADATA_TOO_LARGE", "metadata must have at most 10 keys");
    expectError("payment", { ...paymentBody(), metadata: { a: "ok", b: "v".repeat(501) } }, "METADATA_TOO_LARGE", "metadata.b must be at most 500 characters");
    expectError("payment", { ...paymentBody(), metadata: { ["k".repeat(101)]: "v" } }, "METADATA_TOO_LARGE", `metadata.${"k".repeat(101)} key must be at most 100 characters`);
    expectError("swap", { ...swapBody(), metadata: eleven }, "METADATA_TOO_LARGE", "metadata must have at most 10 keys");
  });
});

describe("integer-string fields: their own code for every malformed value", () => {
  // [kind, field as sent, field as named in details, code]
  const cases: [IntentKind, string, string, ErrorCode][] = [
    ["payment", "amount", "amount", "INVALID_AMOUNT"],
    ["payment", "deadline", "deadline", "INVALID_DEADLINE"],
    ["execute", "amounts", "amounts[0]", "INVALID_AMOUNT"],
    ["execute", "amount", "amount", "INVALID_AMOUNT"],
    ["execute", "value", "value", "INVALID_AMOUNT"],
    ["execute", "deadline", "deadline", "INVALID_DEADLINE"],
    ["swap", "maxFromAmount", "maxFromAmount", "INVALID_AMOUNT"],
    ["swap", "minToAmount", "minToAmount", "INVALID_AMOUNT"],
    ["swap", "deadline", "deadline", "INVALID_DEADLINE"],
  ];
  const send = (kind: IntentKind, field: string, value: unknown) => withField(bodies[kind](), field, field === "amounts" ? [value] : value);
  const formatMessage = (code: ErrorCode) =>
    code === "INVALID_AMOUNT" ? "must be a non-negative decimal integer string of at most 2^256-1" : "must be a decimal integer string (unix seconds)";
  const example = (code: ErrorCode) => (code === "INVALID_AMOUNT" ? "1000000" : "1900000000");

  for (const [kind, field, named, code] of cases) {
    it(`${kind} ${named}: a JSON number, a decimal, a negative, hex or empty is ${code}`, () => {
      for (const [value, type] of [[5, "number"], [1900000000, "number"], [1.5, "number"], [-1, "number"], [true, "boolean"], [{}, "object"]] as const) {
        expectError(kind, send(kind, field, value), code, `${named} must be sent as a decimal string such as "${example(code)}", not as a JSON ${type}`);
      }
      for (const value of ["1.5", "-1", "0x10", "0xff", "", " ", "1e6", "+1", (1n << 256n).toString()]) {
        expectError(kind, send(kind, field, value), code, `${named} ${formatMessage(code)}`);
      }
    });
  }

  it("null is the field's own code where the field is required, and absence where it is optional", () => {
    expectError("payment", withField(paymentBody(), "amount", null), "INVALID_AMOUNT", 'amount must be sent as a decimal string such as "1000000", not as a JSON null');
    expectError("swap", withField(swapBody(), "deadline", null), "INVALID_DEADLINE", 'deadline must be sent as a decimal string such as "1900000000", not as a JSON null');
    expect(validateBody("execute", withField(executeBody(), "value", null)).intent.value).toBe(0n);
  });

  it("a missing integer field is still INVALID_REQUEST: only a malformed one has the field's code", () => {
    expectError("payment", without(paymentBody(), "amount"), "INVALID_REQUEST", "amount is required");
    expectError("swap", without(swapBody(), "deadline"), "INVALID_REQUEST", "deadline is required");
  });

  it("the owner's approval.deadline follows the same rule", () => {
    const signature = `0x${"11".repeat(65)}`;
    const refused = (deadline: unknown) => {
      try {
        validateOwnerBody(reviewApproveBodySchema, { approval: { deadline, signature } });
      } catch (err) {
        return { code: (err as RelayError).code, details: (err as RelayError).details };
      }
      throw new Error(`approval.deadline ${JSON.stringify(deadline)} was accepted`);
    };
    expect(refused(1900000000)).toEqual({ code: "INVALID_DEADLINE", details: 'approval.deadline must be sent as a decimal string such as "1900000000", not as a JSON number' });
    for (const bad of ["1.5", "-1", "0x10", ""]) {
      expect(refused(bad)).toEqual({ code: "INVALID_DEADLINE", details: "approval.deadline must be a decimal integer string (unix seconds)" });
    }
    expect(validateOwnerBody(reviewApproveBodySchema, { approval: { deadline: "1900000000", signature } }).approval.deadline).toBe(1900000000n);
  });

  it("chainId keeps its JSON integer: a string chainId is INVALID_REQUEST (type), a bad integer INVALID_CHAIN_ID", () => {
    expectError("payment", withField(paymentBody(), "chainId", "84532"), "INVALID_REQUEST", "chainId must be an integer");
    expectError("payment", withField(paymentBody(), "chainId", 1.5), "INVALID_CHAIN_ID", "chainId must be a positive integer");
  });
});

describe("idempotency key: body or header", () => {
  const noKey = () => without(paymentBody(), "idempotencyKey");

  it("takes the header when the body has no key", () => {
    expect(validateBody("payment", noKey(), { "idempotency-key": OTHER_KEY }).idempotencyKey).toBe(OTHER_KEY);
    expect(validateBody("payment", noKey(), { "Idempotency-Key": OTHER_KEY.toUpperCase() }).idempotencyKey).toBe(OTHER_KEY);
    expect(validateBody("payment", { ...noKey(), idempotencyKey: null }, { "idempotency-key": OTHER_KEY }).idempotencyKey).toBe(OTHER_KEY);
  });

  it("lets the body win over the header", () => {
    expect(validateBody("payment", paymentBody(), { "idempotency-key": OTHER_KEY }).idempotencyKey).toBe(KEY);
    expect(validateBody("payment", paymentBody(), { "idempotency-key": "not-a-uuid" }).idempotencyKey).toBe(KEY);
    expectError("payment", withField(paymentBody(), "idempotencyKey", "nope"), "INVALID_IDEMPOTENCY_KEY", "idempotencyKey must be a UUID", { "idempotency-key": OTHER_KEY });
  });

  it("refuses an invalid or repeated header", () => {
    expectError("payment", noKey(), "INVALID_IDEMPOTENCY_KEY", "Idempotency-Key header must be a UUID", { "idempotency-key": "nope" });
    expectError("payment", noKey(), "INVALID_IDEMPOTENCY_KEY", "Idempotency-Key header must be a UUID", { "idempotency-key": [KEY, OTHER_KEY] });
    expectError("payment", noKey(), "INVALID_IDEMPOTENCY_KEY", "Idempotency-Key header must be a UUID", { "idempotency-key": `${KEY}, ${OTHER_KEY}` });
    expectError("payment", noKey(), "INVALID_REQUEST", "idempotencyKey is required (body field or Idempotency-Key header)", { "x-other": KEY });
  });

  it("works the same for execute and swap", () => {
    expect(validateBody("execute", without(executeBody(), "idempotencyKey"), { "idempotency-key": OTHER_KEY }).idempotencyKey).toBe(OTHER_KEY);
    expect(validateBody("swap", swapBody(), { "idempotency-key": OTHER_KEY }).idempotencyKey).toBe(KEY);
  });
});

describe("execute specifics", () => {
  it("accepts token + amount as shorthand for one-element arrays", () => {
    const body = without(executeBody(), "tokens", "amounts");
    const req = validateBody("execute", { ...body, token: "0x036cbd53842c5426634e7929541ec2318f3dcf7e", amount: "5000000" });
    expect(req.intent.tokens).toEqual(["0x036CbD53842c5426634e7929541eC2318f3dCF7e"]);
    expect(req.intent.amounts).toEqual([5000000n]);
    expect(req.intent).toEqual(validateBody("execute", executeBody()).intent);
  });

  it("accepts empty token lists and a value", () => {
    const req = validateBody("execute", { ...executeBody(), tokens: [], amounts: [], value: "1000" });
    expect(req.intent.tokens).toEqual([]);
    expect(req.intent.value).toBe(1000n);
  });

  it("refuses missing, mixed or mismatched token lists", () => {
    const base = without(executeBody(), "tokens", "amounts");
    expectError("execute", base, "INVALID_REQUEST", "tokens is required");
    expectError("execute", { ...base, amounts: ["1"] }, "INVALID_REQUEST", "tokens is required");
    expectError("execute", { ...base, tokens: [] }, "INVALID_REQUEST", "amounts is required");
    expectError("execute", { ...base, amount: "1" }, "INVALID_REQUEST", "token is required");
    expectError("execute", { ...base, token: executeBody().vaultAddress }, "INVALID_REQUEST", "amount is required");
    expectError("execute", { ...executeBody(), amount: "1" }, "INVALID_REQUEST", "amount cannot be combined with tokens/amounts");
    expectError("execute", { ...executeBody(), amounts: ["1", "2"] }, "INVALID_REQUEST", "amounts must have as many entries as tokens");
    expectError("execute", { ...executeBody(), tokens: "0x" }, "INVALID_REQUEST", "tokens must be an array");
    expectError("execute", { ...executeBody(), tokens: ["0x036CbD53842c5426634e7929541eC2318f3dCF7e", "0x12"] }, "INVALID_ADDRESS", "tokens[1] must be 0x followed by 40 hex digits");
    const many = Array.from({ length: 17 }, () => "0x036CbD53842c5426634e7929541eC2318f3dCF7e");
    expectError("execute", { ...executeBody(), tokens: many, amounts: many.map(() => "1") }, "INVALID_REQUEST", "tokens must have at most 16 entries");
  });

  it("checks callData and calldataHash", () => {
    for (const bad of ["12345678", "0x123", "0xzz"]) {
      expectError("execute", withField(executeBody(), "callData", bad), "INVALID_REQUEST", "callData must be 0x-prefixed hex of even length");
    }
    const signedHash = vectorNamed("execute-intent").message.calldataHash as string;
    expect(validateBody("execute", { ...executeBody(), calldataHash: signedHash.toUpperCase().replace("0X", "0x") }).intent.calldataHash).toBe(signedHash);
    expectError("execute", { ...executeBody(), calldataHash: `0x${"00".repeat(32)}` }, "INVALID_REQUEST", "calldataHash does not match keccak256(callData)");
    expectError("execute", { ...executeBody(), calldataHash: "0x12" }, "INVALID_REQUEST", "calldataHash must be 0x followed by 64 hex digits");
    expect(validateBody("execute", withField(executeBody(), "callData", "0x")).intent.calldataHash).toBe(
      "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
    expectError("execute", { ...executeBody(), protocolName: "p".repeat(201) }, "INVALID_REQUEST", "protocolName must be at most 200 characters");
  });
});

describe("robustness", () => {
  const kinds = fc.constantFrom<IntentKind>("payment", "execute", "swap");
  const headers = fc.option(fc.dictionary(fc.constantFrom("idempotency-key", "Idempotency-Key", "x"), fc.oneof(fc.string(), fc.uuid(), fc.array(fc.string()))), { nil: undefined });

  function onlyRelay400(kind: IntentKind, body: unknown, h: HeaderBag | undefined): void {
    try {
      validateBody(kind, body, h, supported);
    } catch (err) {
      if (!(err instanceof RelayError) || err.status !== 400) throw err;
    }
  }

  it("throws nothing but a 400 RelayError for random JSON values", () => {
    fc.assert(
      fc.property(kinds, fc.jsonValue(), headers, (kind, body, h) => onlyRelay400(kind, body, h as HeaderBag)),
      { numRuns: 2000 },
    );
  });

  it("throws nothing but a 400 RelayError when valid bodies get random field values", () => {
    const fields = ["bot", "to", "token", "amount", "deadline", "ref", "signature", "chainId", "vaultAddress", "idempotencyKey", "memo", "metadata", "protocol", "callData", "tokens", "amounts", "value", "calldataHash", "protocolName", "fromToken", "toToken", "maxFromAmount", "minToAmount", "__proto__", "constructor"];
    fc.assert(
      fc.property(
        kinds,
        fc.dictionary(fc.constantFrom(...fields), fc.oneof(fc.jsonValue(), fc.string(), fc.array(fc.string()), fc.dictionary(fc.string(), fc.jsonValue()))),
        fc.boolean(),
        headers,
        (kind, overrides, dropKey, h) => {
          const base = bodies[kind]();
          if (dropKey) delete base.idempotencyKey;
          const body: unknown = JSON.parse(JSON.stringify({ ...base, ...overrides }).replace(/^\{/, () => (overrides.__proto__ ? '{"__proto__":{"x":1},' : "{")));
          onlyRelay400(kind, body, h as HeaderBag);
        },
      ),
      { numRuns: 2000 },
    );
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
