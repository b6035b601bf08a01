// The review item an owner receives for an execute: the decoded call always, the simulated outflows
// only when the stored request carries them; payments carry neither.
import { describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi } from "viem";
import type { RequestRecord } from "../../src/ledger/index.ts";
import { reviewItem } from "../../src/relayer/review/review-item.ts";

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const SPENDER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const VAULT = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const tokens = new Map([[USDC.toLowerCase(), { symbol: "USDC", decimals: 6 }]]);

function record(kind: RequestRecord["kind"], body: Record<string, unknown>): RequestRecord {
  return {
    id: "req_x",
    kind,
    chainId: 84532,
    vault: VAULT.toLowerCase(),
    bot: SPENDER.toLowerCase(),
    intentHash: `0x${"ab".repeat(32)}`,
    idempotencyKey: "k",
    fingerprint: "f",
    status: "held",
    usdValue: 0n,
    body: JSON.stringify({ kind, counterparty: USDC.toLowerCase(), signature: "0x", ...body }),
    heldBecause: "the call grants an approval over the vault's assets",
    createdAt: 0,
    updatedAt: 0,
    deadline: 1n,
  };
}

const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, 20_000_000_000n] });
const executeIntent = { protocol: USDC, tokens: [], amounts: [], value: "0" };

describe("reviewItem", () => {
  it("an execute carries its decoded call, and no outflows when none were stored", () => {
    const item = reviewItem(record("execute", { intent: executeIntent, callData: approve }), tokens);
    expect(item.call).toMatchObject({ decoded: true, function: "approve", summary: "approve(spender 0x90F7…b906, amount 20,000 USDC)" });
    expect(item).not.toHaveProperty("outflows");
  });

  it("an execute with stored outflows carries them in human units and USD (6-decimal integers or dollars)", () => {
    const outflows = [
      { token: USDC, amount: "20000000000", usd: "20000000000" },
      { token: USDC, amount: "1500000", usd: "1.5" },
    ];
    const item = reviewItem(record("execute", { intent: executeIntent, callData: approve, outflows }), tokens);
    expect(item.outflows).toEqual([
      { token: USDC, amount: "20000000000", symbol: "USDC", decimals: 6, human: "20000", usdValue: 20000, text: "20,000 USDC ($20,000.00)" },
      { token: USDC, amount: "1500000", symbol: "USDC", decimals: 6, human: "1.5", usdValue: 1.5, text: "1.5 USDC ($1.50)" },
    ]);
  });

  it("a payment carries no call and no outflows", () => {
    const item = reviewItem(record("payment", { intent: { to: SPENDER, token: USDC, amount: "5000000" } }), tokens);
    expect(item).not.toHaveProperty("call");
    expect(item).not.toHaveProperty("outflows");
    expect(item.amounts).toEqual([{ token: USDC, symbol: "USDC", decimals: 6, amount: "5000000", human: "5" }]);
  });

  it("native ETH, under the 0xEeee… marker or the zero address, reads in ETH: a payment's amount and an execute's value", () => {
    const marker = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
    const zero = "0x0000000000000000000000000000000000000000";
    for (const token of [marker, zero]) {
      const item = reviewItem(record("payment", { intent: { to: SPENDER, token, amount: "500000000000000000" } }), tokens);
      expect(item.amounts).toEqual([{ token, symbol: "ETH", decimals: 18, amount: "500000000000000000", human: "0.5" }]);
    }
    const call = reviewItem(record("execute", { intent: { ...executeIntent, value: "250000000000000000" }, callData: approve }), tokens);
    expect(call.amounts).toEqual([{ token: zero, symbol: "ETH", decimals: 18, amount: "250000000000000000", human: "0.25" }]);
  });
});
