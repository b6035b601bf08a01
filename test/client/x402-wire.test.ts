// relay-client's own reading and writing of the x402 v2 headers (x402-wire.ts), checked against the
// x402 packages' encoders and decoders both ways, and its choice among a 402's requirements
// (x402-choose.ts): chain, scheme, transfer method, balance, and the maximum, inclusive.
import { describe, expect, it } from "vitest";
import { getAddress, type Address } from "viem";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import {
  decodeBase64Json,
  encodeBase64Json,
  paymentSignatureHeader,
  readPaymentRequired,
  readSettlement,
  type X402PaymentRequirements,
} from "../../packages/client/src/x402-wire.ts";
import { chooseRequirement } from "../../packages/client/src/x402-choose.ts";
import { X402NoPayableRequirementError, X402PriceAboveMaxError, X402ProtocolError } from "../../packages/client/src/x402-errors.ts";

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address;
const DAI = "0x6B175474E89094C44Da98b954EedeAC495271d0F" as Address;
const MERCHANT = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955" as Address;
const requirement = (over: Partial<X402PaymentRequirements> = {}): X402PaymentRequirements => ({
  scheme: "exact",
  network: "eip155:84532",
  amount: "10000",
  asset: USDC,
  payTo: MERCHANT,
  maxTimeoutSeconds: 300,
  extra: { name: "USDC", version: "2" },
  ...over,
});
const headers = (values: Record<string, string>) => new Headers(values);

describe("the x402 headers", () => {
  it("reads a PAYMENT-REQUIRED header the x402 packages wrote, and drops entries it cannot read", () => {
    const header = encodePaymentRequiredHeader({
      x402Version: 2,
      error: "Payment required",
      resource: { url: "https://api.example/report", description: "a report ✓", mimeType: "application/json" },
      accepts: [requirement(), { ...requirement(), amount: "-5" }, { ...requirement(), payTo: "merchant.example" }],
    } as never);
    const read = readPaymentRequired(headers({ "PAYMENT-REQUIRED": header }));
    expect(read).toEqual({ x402Version: 2, error: "Payment required", resource: { url: "https://api.example/report", description: "a report ✓", mimeType: "application/json" }, accepts: [requirement()] });
  });

  it("refuses a 402 that is not x402 v2, with X402ProtocolError", () => {
    expect(() => readPaymentRequired(headers({}))).toThrow(X402ProtocolError);
    expect(() => readPaymentRequired(headers({ "payment-required": "not base64 !" }))).toThrow(/not base64 of a JSON object/);
    expect(() => readPaymentRequired(headers({ "payment-required": encodeBase64Json({ x402Version: 1, accepts: [] }) }))).toThrow(/version 1; this client speaks version 2/);
    expect(() => readPaymentRequired(headers({ "payment-required": encodeBase64Json({ x402Version: 2 }) }))).toThrow(/no `accepts` list/);
  });

  it("writes a PAYMENT-SIGNATURE header the x402 packages read: the requirement accepted exactly as given", () => {
    const required = { x402Version: 2, resource: { url: "https://api.example/report" }, accepts: [requirement()], extensions: { note: { a: 1 } } };
    const authorization = { from: MERCHANT, to: MERCHANT, value: "10000", validAfter: "0", validBefore: "99", nonce: `0x${"ab".repeat(32)}` as const };
    const decoded = decodePaymentSignatureHeader(paymentSignatureHeader(required, requirement(), authorization, "0x1234"));
    expect(decoded).toEqual({ x402Version: 2, resource: { url: "https://api.example/report" }, accepted: requirement(), payload: { authorization, signature: "0x1234" }, extensions: { note: { a: 1 } } });
  });

  it("reads the settlement of a PAYMENT-RESPONSE header, and nothing from a missing or broken one", () => {
    const tx = `0x${"12".repeat(32)}`;
    const header = encodePaymentResponseHeader({ success: true, transaction: tx, network: "eip155:84532", payer: MERCHANT } as never);
    expect(readSettlement(headers({ "payment-response": header }))).toEqual({ success: true, transaction: tx, network: "eip155:84532", payer: MERCHANT });
    expect(readSettlement(headers({}))).toBeUndefined();
    expect(readSettlement(headers({ "payment-response": "%%%" }))).toBeUndefined();
  });

  it("round-trips UTF-8 JSON through base64 (standard and URL-safe alphabets)", () => {
    const value = { text: "prix: 5 € — ✓", n: [1, 2] };
    const encoded = encodeBase64Json(value);
    expect(decodeBase64Json(encoded)).toEqual(value);
    expect(decodeBase64Json(encoded.replace(/\+/g, "-").replace(/\//g, "_"))).toEqual(value);
    expect(decodeBase64Json("////")).toBeUndefined();
  });
});

describe("choosing what the vault pays", () => {
  const balances: Record<string, bigint> = { [USDC]: 50_000n, [DAI]: 0n };
  const options = (max?: bigint) => ({
    chainId: 84532,
    vaultBalance: async (asset: Address) => balances[getAddress(asset)] ?? 0n,
    ...(max === undefined ? {} : { max: async () => max }),
  });

  it("takes the first exact EIP-3009 requirement on the vault's chain in a token the vault holds enough of", async () => {
    const accepts = [
      requirement({ scheme: "upto" }),
      requirement({ network: "eip155:8453" }),
      requirement({ extra: { name: "USDC", version: "2", assetTransferMethod: "permit2" } }),
      requirement({ extra: {} }),
      requirement({ asset: DAI }),
      requirement({ amount: "60000" }),
      requirement({ amount: "20000" }),
      requirement({ amount: "30000" }),
    ];
    const chosen = await chooseRequirement(accepts, options());
    expect(chosen).toMatchObject({ price: 20_000n, asset: USDC, payTo: MERCHANT, name: "USDC", version: "2" });
    expect(chosen.requirement).toBe(accepts[6]);
  });

  it("says why none can be paid", async () => {
    const error = await chooseRequirement([requirement({ network: "eip155:8453" }), requirement({ amount: "60000" }), requirement({ amount: "0" })], options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(X402NoPayableRequirementError);
    expect((error as X402NoPayableRequirementError).reasons).toEqual([
      "exact on eip155:8453: the vault is on eip155:84532",
      `exact on eip155:84532: the vault holds 50000 of ${USDC}, the price is 60000`,
      "exact on eip155:84532: a price of 0",
    ]);
    await expect(chooseRequirement([], options())).rejects.toThrow(/it offers none/);
  });

  it("pays a price equal to the maximum, refuses one above it naming the cheapest, and passes over a dearer one for a cheaper", async () => {
    expect((await chooseRequirement([requirement()], options(10_000n))).price).toBe(10_000n);
    const above = await chooseRequirement([requirement({ amount: "30000" }), requirement({ amount: "20000" })], options(10_000n)).catch((e: unknown) => e);
    expect(above).toBeInstanceOf(X402PriceAboveMaxError);
    expect(above).toMatchObject({ price: 20_000n, max: 10_000n });
    expect((await chooseRequirement([requirement({ amount: "30000" }), requirement({ amount: "9000" })], options(10_000n))).price).toBe(9_000n);
  });
});
