// The owner's side checks an x402 review item before signing its approval: the intent shown hashes
// to the intent hash the approval names, and the purchase shown (`x402`) is the signed one.
import { describe, expect, it } from "vitest";
import type { X402Intent } from "../../../packages/client/src/intent-types.ts";
import { intentDigest } from "../../../packages/client/src/sign.ts";
import { checkShownIntent, MismatchedReviewError } from "../../../src/cli/review/verify-item.ts";
import { BOT, USDC, heldPayment } from "./support/memory-source.ts";

const domain = { name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: "0x8464135c8F25Da09e49BC8782676a84730C318bC" } as const;
const MERCHANT = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955";
const intent: X402Intent = { bot: BOT, token: USDC, payTo: MERCHANT, amount: 10_000n, validAfter: 0n, validBefore: 1_700_000_600n, nonce: `0x${"5a".repeat(32)}`, deadline: 1_700_000_300n };
const shownIntent = Object.fromEntries(Object.entries(intent).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]));
const item = (extra: Record<string, unknown> = {}) =>
  heldPayment("req_x", 0.01, { kind: "x402", intentHash: intentDigest(domain, "X402Intent", intent), intent: shownIntent, x402: { resource: "http://127.0.0.1:1/r", payTo: MERCHANT, amount: "10000", asset: USDC, scheme: "exact" }, ...extra });

describe("checkShownIntent for an x402 item", () => {
  it("accepts the intent and purchase as signed, with or without the purchase shown", () => {
    expect(() => checkShownIntent(item(), domain)).not.toThrow();
    expect(() => checkShownIntent(item({ x402: undefined }), domain)).not.toThrow();
  });

  it("refuses a purchase naming another merchant, amount or token than the intent signs", () => {
    for (const change of [{ payTo: BOT }, { amount: "10001" }, { asset: MERCHANT }]) {
      const shown = { ...(item().x402 as object), ...change };
      expect(() => checkShownIntent(item({ x402: shown }), domain)).toThrow(MismatchedReviewError);
    }
  });

  it("refuses an intent shown that is not the one hashed", () => {
    expect(() => checkShownIntent(item({ intent: { ...shownIntent, amount: "1" }, x402: undefined }), domain)).toThrow(/does not hash/);
  });
});
