// The registry of intent kinds (src/relayer/kinds/): every kind the client signs has one descriptor,
// a validation schema and a documented route pair, and what the spine asks a descriptor about a
// request matches that request.
import { describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, zeroAddress, type Address } from "viem";
import { intentKinds } from "../../packages/client/src/intent-types.ts";
import { bodySchemas } from "../../src/api/schemas.ts";
import type { ExecuteRequest, PaymentRequest, SwapRequest } from "../../src/api/validate.ts";
import { kindOf, kinds, snapshotQuery } from "../../src/relayer/kinds/index.ts";
import { buildOpenApiDocument } from "../../src/server/openapi.ts";

const VAULT: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const BOT: Address = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const TOKEN: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const PAYEE: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const REF = `0x${"00".repeat(32)}` as const;
const envelope = { chainId: 84532, vaultAddress: VAULT, signature: "0x" as const, idempotencyKey: "k" };

describe("intent kinds", () => {
  it("every kind has one descriptor, a body schema and its two documented routes", () => {
    expect(Object.keys(kinds)).toEqual([...intentKinds]);
    expect(Object.keys(bodySchemas).sort()).toEqual([...intentKinds].sort());
    const doc = buildOpenApiDocument({ chainIds: [84532] }) as { paths: Record<string, Record<string, unknown>> };
    for (const kind of intentKinds) {
      expect(kinds[kind].kind).toBe(kind);
      expect(Object.keys(doc.paths[kinds[kind].path]!), kind).toEqual(["post"]);
      expect(Object.keys(doc.paths[`${kinds[kind].path}/{requestId}`]!), kind).toEqual(["get"]);
    }
  });

  it("a payment: batched unless it carries a swap, paid to its recipient", () => {
    const payment: PaymentRequest = { ...envelope, kind: "payment", intent: { bot: BOT, to: PAYEE, token: TOKEN, amount: 7n, deadline: 1n, ref: REF } };
    expect(kindOf(payment).batched?.(payment)).toBe(payment);
    expect(kindOf({ ...payment, swap: { intent: {} as never, signature: "0x" } }).batched?.({ ...payment, swap: { intent: {} as never, signature: "0x" } })).toBeUndefined();
    expect(snapshotQuery(payment, REF)).toEqual({ vault: VAULT, bot: BOT, intentHash: REF, tokens: [TOKEN], amounts: [7n], to: PAYEE });
    expect(kindOf(payment).counterparty(payment)).toBe(PAYEE);
    expect(kindOf(payment).call).toBeUndefined();
  });

  it("an execute: its call, what it moves with its ETH value, and the recipient of a token transfer it makes", () => {
    const callData = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [PAYEE, 5n] });
    const execute: ExecuteRequest = {
      ...envelope, kind: "execute", callData,
      intent: { bot: BOT, protocol: TOKEN, calldataHash: REF, tokens: [TOKEN], amounts: [3n], value: 2n, deadline: 1n, ref: REF },
    };
    const kind = kindOf(execute);
    expect(kind.call?.(execute)).toEqual({ target: TOKEN, data: callData });
    expect(kind.batched).toBeUndefined();
    expect(kind.simulatesEarly).toBe(true);
    expect(snapshotQuery(execute, REF)).toEqual({ vault: VAULT, bot: BOT, intentHash: REF, tokens: [TOKEN, zeroAddress], amounts: [3n, 2n], protocol: TOKEN, to: PAYEE });
    expect(kind.reviewAmounts({ tokens: [TOKEN], amounts: ["3"], value: "2" })).toEqual([[TOKEN, "3"], [zeroAddress, "2"]]);
  });

  it("a swap: routed after the checks, its output token the counterparty", () => {
    const swap: SwapRequest = { ...envelope, kind: "swap", intent: { bot: BOT, toToken: PAYEE, minToAmount: 1n, fromToken: TOKEN, maxFromAmount: 9n, deadline: 1n, ref: REF } };
    const kind = kindOf(swap);
    expect(kind.route).toBeTypeOf("function");
    expect(kind.simulatesEarly).toBe(false);
    expect(snapshotQuery(swap, REF)).toEqual({ vault: VAULT, bot: BOT, intentHash: REF, tokens: [TOKEN], amounts: [9n], toToken: PAYEE });
    expect(() => kind.calldata(swap)).toThrow(/route/);
  });
});
