import fc from "fast-check";
import { getAddress, hashTypedData, type Address, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { keccak256 } from "../../src/crypto/keccak.ts";
import {
  domainSeparator,
  eip712Digest,
  encodeType,
  hashIntent,
  hashString,
  primaryTypeOf,
  structHashBytes,
  type HashKind,
  type IntentByKind,
} from "../../src/eip712/hash.ts";
import { intentTypes, type VaultDomain } from "../../packages/client/src/intent-types.ts";
import { loadVectors, type Vector } from "../support/vectors.ts";

const kindOfPrimaryType: Record<string, HashKind> = {
  PaymentIntent: "payment",
  ExecuteIntent: "execute",
  SwapIntent: "swap",
  ReviewApproval: "review",
};

const uintFields = new Set(["amount", "deadline", "value", "minToAmount", "maxFromAmount"]);

/** A vector's JSON message as the typed intent (decimal strings → bigint). */
function intentOf(v: Vector): IntentByKind[HashKind] {
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v.message)) {
    if (uintFields.has(k)) out[k] = BigInt(value as string);
    else if (k === "amounts") out[k] = (value as string[]).map(BigInt);
    else out[k] = value;
  }
  return out as unknown as IntentByKind[HashKind];
}

/** The Mail example, hand-encoded with the same primitives (it is not one of the relayer's types). */
function mailDigest(v: Vector): Hex {
  const personType = encodeType("Person", v.types.Person!);
  const mailType = `${encodeType("Mail", v.types.Mail!)}${personType}`;
  const person = (p: { name: string; wallet: string }) =>
    keccak256(
      Buffer.concat([
        hashString(personType),
        hashString(p.name),
        Buffer.concat([Buffer.alloc(12), Buffer.from(p.wallet.slice(2), "hex")]),
      ]),
    );
  const m = v.message as { from: { name: string; wallet: string }; to: { name: string; wallet: string }; contents: string };
  const struct = keccak256(
    Buffer.concat([hashString(mailType), person(m.from), person(m.to), hashString(m.contents)]),
  );
  const separator = Buffer.from(domainSeparator(v.domain).slice(2), "hex");
  return `0x${eip712Digest(separator, struct).toString("hex")}`;
}

describe("golden vectors", () => {
  const vectors = loadVectors();

  it("covers the Mail example and one vector of each relayer type", () => {
    expect(vectors.map((v) => v.primaryType).sort()).toEqual(
      ["ExecuteIntent", "Mail", "PaymentIntent", "ReviewApproval", "SwapIntent"].sort(),
    );
  });

  for (const v of vectors) {
    it(`reproduces ${v.name}`, () => {
      expect(domainSeparator(v.domain)).toBe(v.domainSeparator);
      const kind = kindOfPrimaryType[v.primaryType];
      if (kind === undefined) {
        expect(mailDigest(v)).toBe(v.digest);
        return;
      }
      expect(v.types[v.primaryType]).toEqual(intentTypes[primaryTypeOf[kind]]);
      expect(hashIntent(kind, v.domain, intentOf(v))).toBe(v.digest);
    });
  }

  it("uses the digest of the payment vector as the review vector's intentHash", () => {
    const payment = vectors.find((v) => v.name === "payment-intent")!;
    const review = vectors.find((v) => v.name === "review-approval")!;
    expect(review.message.intentHash).toBe(payment.digest);
  });
});

// ---- agreement with viem on random intents ------------------------------------------------------

const maxUint = (1n << 256n) - 1n;
const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const address = hex(20).chain((a) => fc.constantFrom(a as Address, getAddress(a)));
const uint = fc.oneof(
  fc.bigInt({ min: 0n, max: maxUint }),
  fc.bigInt({ min: 0n, max: 1n << 64n }),
  fc.constantFrom(0n, 1n, (1n << 53n) - 1n, 1n << 53n, maxUint),
);
const domain: fc.Arbitrary<VaultDomain> = fc.record({
  name: fc.oneof(fc.constant("ServiceVault"), fc.string({ unit: "grapheme", maxLength: 40 })),
  version: fc.oneof(fc.constant("1"), fc.string({ maxLength: 5 })),
  chainId: fc.oneof(fc.constantFrom(8453, 84532, 42161, 421614, 31337), fc.nat()),
  verifyingContract: address,
});
const intents: { [K in HashKind]: fc.Arbitrary<IntentByKind[K]> } = {
  payment: fc.record({ bot: address, to: address, token: address, amount: uint, deadline: uint, ref: hex(32) }),
  execute: fc.integer({ min: 0, max: 6 }).chain((n) =>
    fc.record({
      bot: address,
      protocol: address,
      calldataHash: hex(32),
      tokens: fc.array(address, { minLength: n, maxLength: n }),
      amounts: fc.array(uint, { minLength: n, maxLength: n }),
      value: uint,
      deadline: uint,
      ref: hex(32),
    }),
  ),
  swap: fc.record({
    bot: address,
    toToken: address,
    minToAmount: uint,
    fromToken: address,
    maxFromAmount: uint,
    deadline: uint,
    ref: hex(32),
  }),
  x402: fc.record({ bot: address, token: address, payTo: address, amount: uint, validAfter: uint, validBefore: uint, nonce: hex(32), deadline: uint }),
  review: fc.record({ intentHash: hex(32), deadline: uint }),
};

describe("agreement with viem hashTypedData", () => {
  for (const kind of Object.keys(intents) as HashKind[]) {
    it(`${kind}: same digest on random intents and domains`, () => {
      fc.assert(
        fc.property(domain, intents[kind] as fc.Arbitrary<IntentByKind[HashKind]>, (d, intent) => {
          const primaryType = primaryTypeOf[kind];
          const expected = hashTypedData({
            domain: d,
            types: { [primaryType]: intentTypes[primaryType] },
            primaryType,
            message: intent as unknown as Record<string, unknown>,
          });
          expect(hashIntent(kind, d, intent)).toBe(expected);
        }),
        { numRuns: 1000 },
      );
    });
  }
});

describe("malformed input", () => {
  const d: VaultDomain = { name: "ServiceVault", version: "1", chainId: 1, verifyingContract: `0x${"11".repeat(20)}` };
  const good = {
    bot: `0x${"22".repeat(20)}`,
    to: `0x${"33".repeat(20)}`,
    token: `0x${"44".repeat(20)}`,
    amount: 1n,
    deadline: 2n,
    ref: `0x${"55".repeat(32)}`,
  } as IntentByKind["payment"];

  it("throws a TypeError instead of hashing garbage", () => {
    expect(() => hashIntent("payment", d, { ...good, to: "0x1234" })).toThrow(TypeError);
    expect(() => hashIntent("payment", d, { ...good, to: `0x${"zz".repeat(20)}` })).toThrow(TypeError);
    expect(() => hashIntent("payment", d, { ...good, amount: -1n })).toThrow(TypeError);
    expect(() => hashIntent("payment", d, { ...good, amount: maxUint + 1n })).toThrow(TypeError);
    expect(() => hashIntent("payment", d, { ...good, amount: 5 as unknown as bigint })).toThrow(TypeError);
    expect(() => hashIntent("payment", d, { ...good, ref: "0x12" })).toThrow(TypeError);
    expect(() => hashIntent("payment", { ...d, chainId: 1.5 }, good)).toThrow(TypeError);
    expect(() => structHashBytes("nope" as HashKind, good)).toThrow(TypeError);
  });

  it("caches domain separators without mixing up domains", () => {
    const a = domainSeparator(d);
    const b = domainSeparator({ ...d, name: "ServiceVault|1", version: "" });
    const c = domainSeparator({ ...d, verifyingContract: `0x${"12".repeat(20)}` });
    expect(new Set([a, b, c]).size).toBe(3);
    expect(domainSeparator({ ...d })).toBe(a);
  });
});
