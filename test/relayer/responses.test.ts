import { describe, expect, it } from "vitest";
import type { RequestRecord } from "../../src/ledger/index.ts";
import { finalResponseOf, responseOf } from "../../src/relayer/submit/responses.ts";

const base: RequestRecord = {
  id: "req_01JABCDEFGHJKMNPQRSTVWXYZ0",
  kind: "payment",
  chainId: 31337,
  vault: "0x1111111111111111111111111111111111111111",
  bot: "0x2222222222222222222222222222222222222222",
  intentHash: `0x${"33".repeat(32)}`,
  idempotencyKey: "key-1",
  fingerprint: "fp",
  status: "submitted",
  usdValue: 1_000_000n,
  body: JSON.stringify({ to: "0x4444444444444444444444444444444444444444" }),
  createdAt: 1,
  updatedAt: 1,
  deadline: 2n,
};
const extras = { simulationResult: { success: true, gasEstimate: "21000" }, estimatedResolutionMs: 12 };
const hash = `0x${"AB".repeat(32)}`;

describe("finalResponseOf", () => {
  it("is the answer of the record moved to approved, byte for byte", () => {
    for (const record of [base, { ...base, kind: "x402" as const, body: JSON.stringify({ digest: `0x${"55".repeat(32)}` }) }]) {
      const built = JSON.stringify(finalResponseOf(record, { status: "approved", txHash: hash.toLowerCase() }, extras));
      expect(built).toBe(JSON.stringify(responseOf({ ...record, status: "approved", txHash: hash.toLowerCase() }, extras)));
      expect(JSON.parse(built)).toMatchObject({ requestId: record.id, status: "approved", txHash: hash.toLowerCase() });
    }
  });

  it("is the answer of the record moved to rejected with a hash, whatever signer or review it had", () => {
    const rows = [base, { ...base, heldBecause: "owner review" }, { ...base, heldBecause: "owner review", signer: base.bot, txHash: `0x${"66".repeat(32)}` }];
    for (const record of rows) {
      const end = { status: "rejected" as const, txHash: hash.toLowerCase(), reason: "reverted on-chain" };
      const built = JSON.stringify(finalResponseOf(record, end, extras));
      expect(built).toBe(JSON.stringify(responseOf({ ...record, ...end }, extras)));
      expect(JSON.parse(built)).toMatchObject({ status: "rejected", reason: "reverted on-chain", errorCode: "EXECUTION_FAILED" });
    }
  });

  it("is the answer of the record moved to held: its poll URL and extras", () => {
    const built = JSON.stringify(finalResponseOf(base, { status: "held" }, extras));
    const held = { ...base, status: "held" as const, heldBecause: "review", reviewExpiresAt: 5 };
    expect(built).toBe(JSON.stringify(responseOf(held, extras)));
    expect(JSON.parse(built)).toEqual({ requestId: base.id, status: "pending_review", pollUrl: `/v1/payments/${base.id}`, ...extras });
  });

  it("keeps a swap-required rejection's code and options", () => {
    const record = { ...base, body: JSON.stringify({ swapRequired: { options: [{ tokenIn: "0x7", amountIn: "5" }] } }) };
    const end = { status: "rejected" as const, reason: "swap" };
    const built = finalResponseOf(record, end);
    expect(built).toEqual(responseOf({ ...record, ...end }));
    expect(built).toMatchObject({ errorCode: "SWAP_REQUIRED", swapOptions: [{ tokenIn: "0x7", amountIn: "5" }] });
  });
});
