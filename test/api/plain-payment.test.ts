// The plain payment body read without zod (src/api/plain-payment.ts) against paymentBodySchema, on
// thousands of generated bodies, valid and invalid: whatever the plain reading accepts, the schema
// accepts with the same output; and validateBody (which takes the plain reading first) answers every
// body as the schema alone does: the same request, or the same error code and message.
import fc from "fast-check";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { plainPaymentBody } from "../../src/api/plain-payment.ts";
import { paymentBodySchema } from "../../src/api/schemas.ts";
import { validateBody, type HeaderBag, type ValidateOptions } from "../../src/api/validate.ts";
import { RelayError } from "../../src/errors.ts";
import { paymentBody } from "./bodies.ts";

const ABSENT = Symbol("absent");
const supported: ValidateOptions = { supportedChainIds: new Set([8453, 31337]) };

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const upperDigits = (hex: string) => `0x${hex.slice(2).toUpperCase()}`;
/** One letter of a checksummed address in the other case: a broken checksum (undefined when it has no letter). */
const brokenChecksum = (address: string) => {
  const i = address.slice(2).search(/[a-fA-F]/);
  if (i < 0) return address;
  const c = address[i + 2]!;
  return address.slice(0, i + 2) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 3);
};

/** Mostly the first (valid) forms, sometimes one of the near misses. */
const forms = <T>(valid: T[], nearMisses: T[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...valid), weight: 6 }, { arbitrary: fc.constantFrom(...nearMisses), weight: 1 });

const wrongTypes = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.double());

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).chain((bytes) => {
  const lower = `0x${hexOf(bytes)}`;
  const checksummed = getAddress(lower);
  return forms([lower, checksummed, upperDigits(lower)], [brokenChecksum(checksummed), lower.slice(0, 41), `${lower}0`, `0X${lower.slice(2)}`, lower.replace(/.$/, "g"), `0x${"0".repeat(40)}`]);
});

const uintText = fc.oneof(
  { arbitrary: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }).map(String), weight: 3 },
  { arbitrary: fc.bigInt({ min: 0n, max: 10n ** 12n }).map(String), weight: 3 },
  fc.constantFrom("0", "007", "", "-1", "1.5", "1e3", " 1", "0x10", ((1n << 256n)).toString(), "9".repeat(79), "1".repeat(78)),
);

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).chain((bytes) => {
  const lower = `0x${hexOf(bytes)}`;
  return forms([lower, upperDigits(lower)], [lower.slice(0, 65), `${lower}00`, lower.slice(2), lower.replace(/.$/, "z")]);
});

const signature = fc.uint8Array({ minLength: 65, maxLength: 65 }).chain((bytes) => {
  const lower = `0x${hexOf(bytes)}`;
  return forms([lower, upperDigits(lower)], [lower.slice(0, 130), `${lower}00`, lower.replace(/.$/, "q"), "0x"]);
});

const chainId = fc.oneof(
  { arbitrary: fc.constantFrom(31337, 8453, 1), weight: 6 },
  fc.constantFrom(0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY, Number.NaN, "31337"),
  fc.integer(),
);

const uuid = fc.oneof({ arbitrary: fc.uuid(), weight: 4 }, fc.uuid().map((u) => u.toUpperCase()), fc.constantFrom("not-a-uuid", "", "6f1c2b1e9a3c4d5e8f7a0b1c2d3e4f50"));
const memo = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.constantFrom("m".repeat(1000), "m".repeat(1001), "😀".repeat(1000), "😀".repeat(1001)));

/** A field's value: mostly valid or near-valid text, sometimes a wrong type, sometimes absent. */
const field = <T>(values: fc.Arbitrary<T>, absentWeight = 1) =>
  fc.oneof({ arbitrary: values, weight: 40 }, { arbitrary: wrongTypes, weight: 1 }, { arbitrary: fc.constant(ABSENT), weight: absentWeight });

const optional = <T>(values: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 3 }, { arbitrary: values, weight: 4 }, { arbitrary: fc.constantFrom(null, undefined), weight: 1 }, { arbitrary: wrongTypes, weight: 1 });

/** Fields outside a plain body: a known optional field of the schema, or one it ignores. */
const extra = fc.oneof(
  { arbitrary: fc.constant({}), weight: 8 },
  {
    arbitrary: fc.constantFrom<Record<string, unknown>>(
      { metadata: { note: "x" } },
      { metadata: null },
      { metadata: undefined },
      { invoiceId: "inv-1" },
      { resourceUrl: "https://example.com/a" },
      { x402Funding: { scheme: "exact" } },
      { swapRef: `0x${"11".repeat(32)}` },
      { unknownField: 1 },
      { Bot: "x" },
    ),
    weight: 2,
  },
);

const generatedBody = fc
  .record({
    bot: field(address),
    to: field(address),
    token: field(address),
    amount: field(uintText),
    deadline: field(uintText),
    ref: field(bytes32),
    signature: field(signature),
    chainId: field(chainId),
    vaultAddress: field(address),
    idempotencyKey: optional(uuid),
    memo: optional(memo),
    extra,
  })
  .map(({ extra, ...fields }) => {
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) if (value !== ABSENT) body[key] = value;
    return { ...body, ...extra };
  });

type Outcome = { ok: unknown } | { error: { code: string; details: unknown; status: number } };

function outcome(run: () => unknown): Outcome {
  try {
    return { ok: run() };
  } catch (error) {
    if (!(error instanceof RelayError)) throw error;
    return { error: { code: error.code, details: error.details, status: error.status } };
  }
}

/** validateBody's answer through the schema alone: a field the schema ignores keeps the plain reading out. */
const bySchemaAlone = (body: Record<string, unknown>, headers?: HeaderBag) =>
  outcome(() => validateBody("payment", { ...body, ignoredBySchema: true }, headers, supported));

const headers = fc.option(fc.constantFrom<HeaderBag>({ "idempotency-key": "0d8a3c2e-1b4f-4a6d-9e7c-5f3b2a1c0d9e" }, { "idempotency-key": "nope" }, {}), { nil: undefined });

describe("the plain payment body", () => {
  it("is read as the schema reads it, whenever the plain reading accepts it", () => {
    let accepted = 0;
    fc.assert(
      fc.property(generatedBody, (body) => {
        const plain = plainPaymentBody(body);
        if (plain === undefined) return;
        accepted++;
        const parsed = paymentBodySchema.safeParse(body);
        expect(parsed.success).toBe(true);
        expect(plain).toStrictEqual(parsed.data);
      }),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(300); // the plain reading was reached often (about one body in nine)
  });

  it("gives validateBody the schema's answer for every body: the same request, or the same error", () => {
    fc.assert(
      fc.property(generatedBody, headers, (body, h) => {
        expect(outcome(() => validateBody("payment", body, h, supported))).toStrictEqual(bySchemaAlone(body, h));
      }),
      { numRuns: 5000 },
    );
  });

  it("takes the bodies the client sends", () => {
    const body = paymentBody();
    expect(plainPaymentBody(body)).toStrictEqual(paymentBodySchema.parse(body));
    expect(plainPaymentBody({ ...body, memo: "lunch", idempotencyKey: null })).toStrictEqual(paymentBodySchema.parse({ ...body, memo: "lunch", idempotencyKey: null }));
    expect(plainPaymentBody({ ...body, metadata: { a: "b" } })).toBeUndefined();
    expect(plainPaymentBody({ ...body, amount: 5 })).toBeUndefined();
  });
});
