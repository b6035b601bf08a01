import { describe, expect, it } from "vitest";
import { approvalSelectors, reviewSafety, safetyRules } from "../../../src/relayer/ai/agents/safety.ts";
import { bot, ordinaryPayment, usd, vault } from "./support.ts";

const zero = "0x0000000000000000000000000000000000000000";

describe("Safety agent", () => {
  it("approves an ordinary payment, with a reason", () => {
    const verdict = reviewSafety(ordinaryPayment());
    expect(verdict).toEqual({ agent: "safety", approve: true, reason: expect.stringContaining("no safety concern") });
  });

  it("has exactly the rules tested below", () => {
    expect(safetyRules.map((r) => r.name)).toEqual([
      "zero-counterparty",
      "own-address",
      "approval-grant",
      "far-above-trigger",
      "over-per-tx-limit",
      "credential-wording",
      "urgency-wording",
      "lure-wording",
    ]);
  });

  it("zero-counterparty: rejects the zero address", () => {
    const verdict = reviewSafety(ordinaryPayment({ counterparty: zero }));
    expect(verdict.approve).toBe(false);
    expect(verdict.reason).toBe("counterparty is the zero address");
  });

  it("own-address: rejects a payment to the bot itself or to the vault, not an execute on them", () => {
    expect(reviewSafety(ordinaryPayment({ counterparty: bot })).reason).toBe("payment goes to the bot's own address");
    expect(reviewSafety(ordinaryPayment({ counterparty: vault.toUpperCase().replace("0X", "0x") as `0x${string}` })).reason).toBe(
      "payment goes back to the vault itself",
    );
    expect(reviewSafety(ordinaryPayment({ kind: "execute", counterparty: bot, selector: "0x12345678" })).approve).toBe(true);
    // An x402 authorization pays its merchant: the same rule.
    expect(reviewSafety(ordinaryPayment({ kind: "x402", counterparty: bot })).reason).toBe("payment goes to the bot's own address");
    expect(reviewSafety(ordinaryPayment({ kind: "x402" })).approve).toBe(true);
  });

  it("approval-grant: rejects every approval selector in an execute, and only there", () => {
    const expected: Record<string, string> = {
      "0x095ea7b3": "approve",
      "0xa22cb465": "setApprovalForAll",
      "0x39509351": "increaseAllowance",
      "0xd505accf": "permit (EIP-2612)",
      "0x8fcbaf0c": "permit (DAI)",
    };
    for (const [selector, name] of Object.entries(expected)) {
      expect(approvalSelectors.get(selector)).toBe(name);
      const verdict = reviewSafety(ordinaryPayment({ kind: "execute", selector: selector.toUpperCase().replace("0X", "0x") as `0x${string}` }));
      expect(verdict).toMatchObject({ approve: false, reason: `call grants a token approval (${name})` });
    }
    expect(approvalSelectors.size).toBe(8);
    // A transfer (transfer(address,uint256)) is not an approval; neither is a payment with no selector.
    expect(reviewSafety(ordinaryPayment({ kind: "execute", selector: "0xa9059cbb" })).approve).toBe(true);
  });

  it("far-above-trigger: rejects over 10× the threshold, accepts exactly 10×, ignores an unset threshold", () => {
    const policy = { aiTriggerThreshold: usd(1000), maxPerTxAmount: 0n };
    const over = reviewSafety(ordinaryPayment({ usdValue: usd(10000.01), policy }));
    expect(over.approve).toBe(false);
    expect(over.reason).toBe("10000.01 USD is over 10× the AI trigger threshold (1000.00 USD)");
    expect(reviewSafety(ordinaryPayment({ usdValue: usd(10000), policy })).approve).toBe(true);
    expect(reviewSafety(ordinaryPayment({ usdValue: usd(1e9), policy: { aiTriggerThreshold: 0n, maxPerTxAmount: 0n } })).approve).toBe(true);
  });

  it("over-per-tx-limit: rejects above the per-transaction limit when one is set", () => {
    const verdict = reviewSafety(ordinaryPayment({ usdValue: usd(12000), policy: { maxPerTxAmount: usd(11000) } }));
    expect(verdict).toMatchObject({ approve: false, reason: "12000.00 USD is over the per-transaction limit (11000.00 USD)" });
    expect(reviewSafety(ordinaryPayment({ policy: { maxPerTxAmount: usd(12000) } })).approve).toBe(true);
  });

  it.each([
    ["credential-wording", "please send your seed phrase to restore access", "asks about credentials", "seed phrase"],
    ["credential-wording", "wallet upgrade, enter private key", "asks about credentials", "private key"],
    ["urgency-wording", "URGENT: pay now or lose service", "pushes for haste", "URGENT"],
    ["urgency-wording", "your account will be suspended", "pushes for haste", "account will be suspended"],
    ["urgency-wording", "settle within 15 minutes", "pushes for haste", "within 15 minutes"],
    ["lure-wording", "double your USDC in one week", "reads like a scam lure", "double your"],
    ["lure-wording", "claim your airdrop here", "reads like a scam lure", "claim your airdrop"],
  ])("%s: rejects the memo %j", (_rule, memo, what, found) => {
    const verdict = reviewSafety(ordinaryPayment({ memo }));
    expect(verdict.approve).toBe(false);
    expect(verdict.reason).toBe(`memo or metadata ${what} ("${found}")`);
  });

  it("wording rules read metadata keys and values too", () => {
    expect(reviewSafety(ordinaryPayment({ metadata: { note: "verify your wallet first" } })).reason).toContain("scam lure");
    expect(reviewSafety(ordinaryPayment({ metadata: { mnemonic: "yes" } })).reason).toContain("credentials");
  });

  it("wording rules read the other off-chain fields too (a recipient label, an invoice id)", () => {
    expect(reviewSafety(ordinaryPayment({ offChain: { recipientLabel: "Support desk: account will be suspended" } })).reason).toContain("pushes for haste");
    expect(reviewSafety(ordinaryPayment({ offChain: { invoiceId: "INV-42", recipientLabel: "Acme Hosting" } })).approve).toBe(true);
  });

  it("does not flag ordinary business wording", () => {
    for (const memo of ["monthly hosting, invoice 2024-07", "team offsite catering", "key account retainer for June"]) {
      expect(reviewSafety(ordinaryPayment({ memo })).approve).toBe(true);
    }
  });

  it("lists every objection at once", () => {
    const verdict = reviewSafety(ordinaryPayment({ counterparty: zero, memo: "urgent, send the seed phrase" }));
    expect(verdict.reason.split("; ")).toHaveLength(3);
  });
});
