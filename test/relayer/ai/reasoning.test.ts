import { describe, expect, it } from "vitest";
import { reasoningRules, reviewReasoning, statedAmounts } from "../../../src/relayer/ai/agents/reasoning.ts";
import { otherAddress, ordinaryPayment, recipient, usd } from "./support.ts";

describe("Reasoning agent", () => {
  it("approves an ordinary payment, quoting its memo", () => {
    expect(reviewReasoning(ordinaryPayment())).toEqual({
      agent: "reasoning",
      approve: true,
      reason: 'stated purpose fits the request: "invoice 42 for hosting"',
    });
  });

  it("has exactly the rules tested below", () => {
    expect(reasoningRules.map((r) => r.name)).toEqual([
      "thin-memo",
      "memo-amount-mismatch",
      "memo-address-mismatch",
      "metadata-amount-mismatch",
      "metadata-recipient-mismatch",
    ]);
  });

  it("thin-memo: at the threshold, a missing or thin memo is rejected", () => {
    expect(reviewReasoning(ordinaryPayment({ memo: undefined }))).toMatchObject({
      approve: false,
      reason: "no memo explains 12000.00 USD (AI trigger threshold 10000.00 USD)",
    });
    expect(reviewReasoning(ordinaryPayment({ memo: "   " })).approve).toBe(false);
    expect(reviewReasoning(ordinaryPayment({ memo: "stuff" }))).toMatchObject({
      approve: false,
      reason: 'memo "stuff" is too thin to explain 12000.00 USD',
    });
    // Long enough but a single word of letters.
    expect(reviewReasoning(ordinaryPayment({ memo: "payment 1234" })).approve).toBe(false);
    expect(reviewReasoning(ordinaryPayment({ memo: "pay rent" })).approve).toBe(true);
  });

  it("thin-memo: below the threshold or with none set, no memo is needed", () => {
    expect(reviewReasoning(ordinaryPayment({ memo: undefined, usdValue: usd(500), reasons: ["velocity_burst"] }))).toEqual({
      agent: "reasoning",
      approve: true,
      reason: "below the AI trigger threshold, so no memo is needed",
    });
    expect(reviewReasoning(ordinaryPayment({ memo: undefined, policy: { aiTriggerThreshold: 0n } })).reason).toBe(
      "no AI trigger threshold set, so no memo is needed",
    );
  });

  it("reads amounts only next to a currency marker", () => {
    expect(statedAmounts("invoice 42 for hosting, order 7")).toEqual([]);
    expect(statedAmounts("$1,200.50 due")).toEqual([1_200_500_000n]);
    expect(statedAmounts("12000 USDC for hosting")).toEqual([12_000_000_000n]);
    expect(statedAmounts("USD 50 tip and 3 dollars")).toEqual([3_000_000n, 50_000_000n]);
  });

  it("memo-amount-mismatch: rejects when no stated amount is within 10%", () => {
    expect(reviewReasoning(ordinaryPayment({ memo: "hosting invoice for $120" }))).toMatchObject({
      approve: false,
      reason: "memo states 120.00 USD but the request is worth 12000.00 USD",
    });
    expect(reviewReasoning(ordinaryPayment({ memo: "hosting invoice, 11,000 USD plus fees" })).approve).toBe(true);
    expect(reviewReasoning(ordinaryPayment({ memo: "hosting invoice, 10,800 USD" })).approve).toBe(true);
    expect(reviewReasoning(ordinaryPayment({ memo: "hosting invoice, 10,799 USD" })).approve).toBe(false);
  });

  it("memo-address-mismatch: a payment memo naming another address is rejected", () => {
    expect(reviewReasoning(ordinaryPayment({ memo: `hosting invoice, pay to ${otherAddress}` }))).toMatchObject({
      approve: false,
      reason: "memo names 0x999999…9999 but the payment goes to 0xAbC000…0def",
    });
    expect(reviewReasoning(ordinaryPayment({ memo: `hosting invoice, pay to ${recipient.toLowerCase()}` })).approve).toBe(true);
    expect(reviewReasoning(ordinaryPayment({ kind: "swap", memo: `rebalance into ${otherAddress}` })).approve).toBe(true);
  });

  it("metadata-amount-mismatch: an amount key must agree with the USD value", () => {
    expect(reviewReasoning(ordinaryPayment({ metadata: { amount_usd: "$500" } }))).toMatchObject({
      approve: false,
      reason: "metadata amount_usd = 500.00 USD but the request is worth 12000.00 USD",
    });
    expect(reviewReasoning(ordinaryPayment({ metadata: { total: "12,000.00 USDC", invoice: "42" } })).approve).toBe(true);
    // Keys that are not amounts, and values that are not numbers, are left alone.
    expect(reviewReasoning(ordinaryPayment({ metadata: { invoice: "500", amount: "twelve thousand" } })).approve).toBe(true);
  });

  it("metadata-recipient-mismatch: a payment's recipient key must name the counterparty", () => {
    expect(reviewReasoning(ordinaryPayment({ metadata: { recipient: otherAddress } }))).toMatchObject({
      approve: false,
      reason: "metadata recipient = 0x999999…9999 but the payment goes to 0xAbC000…0def",
    });
    expect(reviewReasoning(ordinaryPayment({ metadata: { payee: recipient.toLowerCase() } })).approve).toBe(true);
    expect(reviewReasoning(ordinaryPayment({ kind: "execute", metadata: { to: otherAddress } })).approve).toBe(true);
  });
});
