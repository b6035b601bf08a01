// Native ETH's two names read as ETH wherever the relayer shows amounts: the AI scan's summary and
// an execute's measured outflows (review items are covered in review-item.test.ts).
import { describe, expect, it } from "vitest";
import { zeroAddress } from "viem";
import type { RelayRequest } from "../../src/api/validate.ts";
import { ETH_MARKER } from "../../src/chain/eth.ts";
import { describeOutflows } from "../../src/relayer/chain/call-decode.ts";
import { summarize } from "../../src/relayer/route/scan-input.ts";

const TO = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const tokens = new Map<string, { symbol: string; decimals: number }>();

describe("ETH in human units", () => {
  it.each([ETH_MARKER, zeroAddress])("the AI scan summary of a payment in %s says ETH", (token) => {
    const request = { kind: "payment", intent: { to: TO, token, amount: 5n * 10n ** 17n } } as unknown as RelayRequest;
    expect(summarize(request, 1_500_000_000n, tokens)).toBe(`pay 0.5 ETH (1500 USD) to ${TO}`);
  });

  it("the summary of an x402 funding payment names the merchant it funds", () => {
    const merchant = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955";
    const request = { kind: "payment", intent: { to: TO, token: ETH_MARKER, amount: 10n ** 18n }, x402Funding: { payTo: merchant.toLowerCase(), amount: "1" } } as unknown as RelayRequest;
    expect(summarize(request, 3_000_000_000n, tokens)).toBe(`pay 1 ETH (3000 USD) to ${TO}, funding an x402 payment to ${merchant}`);
    expect(summarize({ ...request, x402Funding: true } as RelayRequest, 3_000_000_000n, tokens)).toBe(`pay 1 ETH (3000 USD) to ${TO}`);
  });

  it("an execute's ETH outflow reads in ETH", () => {
    expect(describeOutflows([{ token: zeroAddress, amount: "2000000000000000000", usd: "6000000000" }], tokens)).toEqual([
      { token: zeroAddress, amount: "2000000000000000000", symbol: "ETH", decimals: 18, human: "2", usdValue: 6000, text: "2 ETH ($6,000.00)" },
    ]);
  });
});
