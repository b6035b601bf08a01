import { describe, expect, it } from "vitest";
import {
  createPublicClient,
  custom,
  encodeFunctionResult,
  keccak256,
  parseAbi,
  recoverTypedDataAddress,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ExecuteIntent, PaymentIntent, ReviewApproval, SwapIntent } from "../../packages/client/src/intent-types.ts";
import { intentTypes } from "../../packages/client/src/intent-types.ts";
import {
  defaultDeadline,
  intentDigest,
  normalizeSignature,
  randomRef,
  readVaultDomain,
  refFromString,
  signExecuteIntent,
  signPaymentIntent,
  signReviewApproval,
  signSwapIntent,
} from "../../packages/client/src/sign.ts";
import { loadVectors, type Vector } from "../support/vectors.ts";
import { executeRequestBody, paymentRequestBody, signPaymentRequest, signSwapRequest } from "../../packages/client/src/bodies.ts";

const vectors = loadVectors();

function vector(name: string): Vector {
  const found = vectors.find((v) => v.name === name);
  if (!found) throw new Error(`no vector ${name}`);
  return found;
}

const big = (value: unknown): bigint => BigInt(value as string);

describe("EIP-712 vectors", () => {
  it("covers every vector in the file", () => {
    expect(vectors.map((v) => v.name).sort()).toEqual(
      ["eip712-mail", "execute-intent", "payment-intent", "review-approval", "swap-intent"].sort(),
    );
  });

  it("eip712-mail: a local account reproduces the EIP's own example", async () => {
    const v = vector("eip712-mail");
    const account = privateKeyToAccount(v.privateKey);
    expect(account.address).toBe(v.signer);
    const signature = await account.signTypedData({ domain: v.domain, types: v.types, primaryType: v.primaryType, message: v.message });
    expect(signature).toBe(v.signature);
  });

  it("payment-intent", async () => {
    const v = vector("payment-intent");
    const m = v.message;
    const intent: PaymentIntent = {
      bot: m.bot as Address,
      to: m.to as Address,
      token: m.token as Address,
      amount: big(m.amount),
      deadline: big(m.deadline),
      ref: m.ref as Hex,
    };
    expect(intentDigest(v.domain, "PaymentIntent", intent)).toBe(v.digest);
    expect(await signPaymentIntent(privateKeyToAccount(v.privateKey), v.domain, intent)).toBe(v.signature);
  });

  it("execute-intent", async () => {
    const v = vector("execute-intent");
    const m = v.message;
    const intent: ExecuteIntent = {
      bot: m.bot as Address,
      protocol: m.protocol as Address,
      calldataHash: m.calldataHash as Hex,
      tokens: m.tokens as Address[],
      amounts: (m.amounts as string[]).map(BigInt),
      value: big(m.value),
      deadline: big(m.deadline),
      ref: m.ref as Hex,
    };
    expect(intentDigest(v.domain, "ExecuteIntent", intent)).toBe(v.digest);
    expect(await signExecuteIntent(privateKeyToAccount(v.privateKey), v.domain, intent)).toBe(v.signature);
  });

  it("swap-intent", async () => {
    const v = vector("swap-intent");
    const m = v.message;
    const intent: SwapIntent = {
      bot: m.bot as Address,
      toToken: m.toToken as Address,
      minToAmount: big(m.minToAmount),
      fromToken: m.fromToken as Address,
      maxFromAmount: big(m.maxFromAmount),
      deadline: big(m.deadline),
      ref: m.ref as Hex,
    };
    expect(intentDigest(v.domain, "SwapIntent", intent)).toBe(v.digest);
    expect(await signSwapIntent(privateKeyToAccount(v.privateKey), v.domain, intent)).toBe(v.signature);
  });

  it("review-approval (its intentHash is the payment vector's digest)", async () => {
    const v = vector("review-approval");
    const approval: ReviewApproval = { intentHash: v.message.intentHash as Hex, deadline: big(v.message.deadline) };
    expect(approval.intentHash).toBe(vector("payment-intent").digest);
    expect(intentDigest(v.domain, "ReviewApproval", approval)).toBe(v.digest);
    const signature = await signReviewApproval(privateKeyToAccount(v.privateKey), v.domain, approval);
    expect(signature).toBe(v.signature);
    expect(signature).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
  });

  it("the project's type definitions match the vectors' types", () => {
    for (const v of vectors.filter((x) => x.name !== "eip712-mail")) {
      expect(intentTypes[v.primaryType as keyof typeof intentTypes]).toEqual(v.types[v.primaryType]);
    }
  });
});

describe("normalizeSignature", () => {
  const rs = "0x" + "ab".repeat(64);
  it("keeps v 27/28 and maps v 0/1 to 27/28", () => {
    expect(normalizeSignature(`${rs}1b` as Hex)).toBe(`${rs}1b`);
    expect(normalizeSignature(`${rs}00` as Hex)).toBe(`${rs}1b`);
    expect(normalizeSignature(`${rs}01` as Hex)).toBe(`${rs}1c`);
  });
  it("refuses wrong lengths and impossible v", () => {
    expect(() => normalizeSignature(rs as Hex)).toThrow(/65 bytes/);
    expect(() => normalizeSignature(`${rs}05` as Hex)).toThrow(/v=5/);
  });
});

describe("refs and deadlines", () => {
  it("randomRef is a fresh bytes32", () => {
    const a = randomRef();
    expect(a).toMatch(/^0x[0-9a-f]{64}$/);
    expect(randomRef()).not.toBe(a);
  });
  it("refFromString is keccak256 of the UTF-8 label", () => {
    expect(refFromString("invoice-42")).toBe(keccak256(new TextEncoder().encode("invoice-42")));
    expect(refFromString("")).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  });
  it("defaultDeadline is now + 300 s unless told otherwise", () => {
    expect(defaultDeadline(1_900_000_000)).toBe(1_900_000_300n);
    expect(defaultDeadline(1_900_000_000, 60)).toBe(1_900_000_060n);
    const now = Math.floor(Date.now() / 1000);
    const deadline = defaultDeadline();
    expect(deadline >= BigInt(now + 300) && deadline <= BigInt(now + 302)).toBe(true);
  });
});

describe("readVaultDomain", () => {
  it("reads the EIP-5267 domain through eth_call", async () => {
    const vault = "0x1111111111111111111111111111111111111111" as const;
    const abi = parseAbi([
      "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
    ]);
    const calls: unknown[] = [];
    const publicClient = createPublicClient({
      transport: custom({
        async request({ method, params }: { method: string; params: unknown }) {
          calls.push(params);
          if (method !== "eth_call") throw new Error(`unexpected ${method}`);
          return encodeFunctionResult({
            abi,
            functionName: "eip712Domain",
            result: ["0x0f", "ServiceVault", "1", 84532n, vault, `0x${"00".repeat(32)}`, []],
          });
        },
      }),
    });
    expect(await readVaultDomain(publicClient, vault)).toEqual({
      name: "ServiceVault",
      version: "1",
      chainId: 84532,
      verifyingContract: vault,
    });
    expect(JSON.stringify(calls)).toContain(vault);
  });
});

describe("request bodies", () => {
  const v = vector("payment-intent");
  const domain = v.domain;
  const account = privateKeyToAccount(v.privateKey);
  const intent: PaymentIntent = {
    bot: account.address,
    to: "0x2222222222222222222222222222222222222222",
    token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    amount: 5_000_000n,
    deadline: 1_900_000_000n,
    ref: v.message.ref as Hex,
  };
  const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("payment: exactly the documented fields, strings for amounts, a fresh UUID v4 key", async () => {
    const body = await signPaymentRequest(account, domain, intent);
    expect(Object.keys(body).sort()).toEqual(
      ["amount", "bot", "chainId", "deadline", "idempotencyKey", "ref", "signature", "to", "token", "vaultAddress"].sort(),
    );
    expect(body).toMatchObject({
      chainId: 84532,
      vaultAddress: domain.verifyingContract,
      amount: "5000000",
      deadline: "1900000000",
      signature: v.signature,
    });
    expect(body.idempotencyKey).toMatch(uuidV4);
    expect((await signPaymentRequest(account, domain, intent)).idempotencyKey).not.toBe(body.idempotencyKey);
    expect(await recoverTypedDataAddress({ domain, types: intentTypes, primaryType: "PaymentIntent", message: intent, signature: body.signature })).toBe(
      account.address,
    );
  });

  it("payment: keeps a given key, memo and metadata", () => {
    const body = paymentRequestBody(domain, intent, v.signature, {
      idempotencyKey: "6f1c0d3e-1a2b-4c3d-8e4f-5a6b7c8d9e0f",
      memo: "invoice 42",
      metadata: { scenario: "ai-approve" },
    });
    expect(body.idempotencyKey).toBe("6f1c0d3e-1a2b-4c3d-8e4f-5a6b7c8d9e0f");
    expect(body.memo).toBe("invoice 42");
    expect(body.metadata).toEqual({ scenario: "ai-approve" });
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
  });

  it("execute: documented fields with calldataHash = keccak256(callData)", () => {
    const ev = vector("execute-intent");
    const callData = "0xa9059cbb" as Hex;
    const execIntent: ExecuteIntent = {
      bot: account.address,
      protocol: "0x3333333333333333333333333333333333333333",
      calldataHash: keccak256(callData),
      tokens: ["0x036CbD53842c5426634e7929541eC2318f3dCF7e"],
      amounts: [5_000_000n],
      value: 0n,
      deadline: 1_900_000_000n,
      ref: ev.message.ref as Hex,
    };
    const body = executeRequestBody(domain, execIntent, callData, ev.signature, { protocolName: "Marketplace", memo: "buy" });
    expect(Object.keys(body).sort()).toEqual(
      [
        "amounts", "bot", "callData", "calldataHash", "chainId", "deadline", "idempotencyKey", "memo", "protocol",
        "protocolName", "ref", "signature", "tokens", "value", "vaultAddress",
      ].sort(),
    );
    expect(body).toMatchObject({ calldataHash: keccak256(callData), amounts: ["5000000"], value: "0", deadline: "1900000000" });
    expect(() => executeRequestBody(domain, { ...execIntent, calldataHash: `0x${"00".repeat(32)}` }, callData, ev.signature)).toThrow(
      /calldataHash/,
    );
  });

  it("swap: documented fields", async () => {
    const sv = vector("swap-intent");
    const m = sv.message;
    const body = await signSwapRequest(account, domain, {
      bot: account.address,
      toToken: m.toToken as Address,
      minToAmount: 1n,
      fromToken: m.fromToken as Address,
      maxFromAmount: 100_000_000n,
      deadline: 1_900_000_000n,
      ref: m.ref as Hex,
    });
    expect(Object.keys(body).sort()).toEqual(
      [
        "bot", "chainId", "deadline", "fromToken", "idempotencyKey", "maxFromAmount", "minToAmount", "ref", "signature",
        "toToken", "vaultAddress",
      ].sort(),
    );
    expect(body).toMatchObject({ signature: sv.signature, minToAmount: "1", maxFromAmount: "100000000" });
  });
});
