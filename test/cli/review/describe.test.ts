// Reading review items into what the owner sees, and the text output of the non-interactive commands.
import { describe, expect, it } from "vitest";
import { botBook, botLabel, describeReview, timeLeft, toMs, tokenBook } from "../../../src/cli/review/describe.ts";
import { formatDecision, formatDetail, formatList } from "../../../src/cli/review/format.ts";
import { BOT, SPENDER, USDC, heldApprove, heldPayment } from "./support/memory-source.ts";

const WETH = "0x4200000000000000000000000000000000000006";
const tokens = tokenBook({ USDC: { address: USDC, decimals: 6 }, WETH: { address: WETH, decimals: 18 } });
const NOW = 1_700_000_000_000;

describe("describeReview", () => {
  it("names a bot the manifest names (any address case), and keeps the address of one it does not", () => {
    const bots = botBook({ default: { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }, reviewed: { address: BOT.toLowerCase() } });
    const named = describeReview(heldPayment("req_a", 1), tokens, bots);
    expect(named.botName).toBe("reviewed");
    expect(botLabel(named, "line")).toBe("reviewed");
    expect(botLabel(named, "detail")).toBe(`reviewed (${BOT})`);
    expect(formatDetail(named, NOW)).toMatch(new RegExp(`Bot:\\s+reviewed \\(${BOT}\\)`));
    const stranger = describeReview(heldPayment("req_b", 1), tokens, botBook(undefined));
    expect(stranger.botName).toBeUndefined();
    expect(botLabel(stranger, "line")).toBe("0x3C44…93BC");
    expect(botLabel(stranger, "detail")).toBe(BOT);
  });

  it("makes the memo's control characters visible", () => {
    expect(describeReview(heldPayment("req_a", 1, { memo: "rent\u001b[2J" }), tokens).memo).toBe("rent\\u001b[2J");
    expect(describeReview(heldPayment("req_a", 1, { memo: "" }), tokens).memo).toBeUndefined();
  });

  it("shows a payment in human units with its symbol, recipient and USD value", () => {
    const view = describeReview(heldPayment("req_a", 0.25), tokens);
    expect(view.summary).toBe("pay 0.25 USDC to 0x7099…79C8");
    expect(view.amounts).toEqual(["0.25 USDC (250000)"]);
    expect(view.valueUsd).toBe("$0.25");
    expect(view.expiresAt).toBe(1_700_086_400_000);
  });

  it("uses the symbol and decimals the relayer gives for a token the CLI does not know", () => {
    const DAI = "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb";
    const item = heldPayment("req_a", 1, { intent: { to: USDC, token: DAI, amount: "1500000000000000000" }, amounts: [{ token: DAI, symbol: "DAI", decimals: 18, amount: "1500000000000000000", human: "1.5" }] });
    expect(describeReview(item, tokens).amounts).toEqual(["1.5 DAI (1500000000000000000)"]);
  });

  it("falls back to base units for a token nobody describes, and reads a flat intent", () => {
    const item = heldPayment("req_a", 1, { intent: undefined, to: USDC, token: WETH.replace("6", "7"), amount: "42", usdValue: undefined });
    const view = describeReview(item, tokens);
    expect(view.summary).toBe(`pay 42 base units of 0x4200…0007 to 0x036C…CF7e`);
    expect(view.valueUsd).toBeUndefined();
  });

  it("a swap-and-pay says what its swap may spend", () => {
    const item = heldPayment("req_sp", 25, { swap: { intent: { fromToken: WETH, maxFromAmount: "10000000000000000", toToken: USDC, minToAmount: "25000000" } } });
    const view = describeReview(item, tokens);
    expect(view.summary).toBe("pay 25 USDC to 0x7099…79C8, swapping at most 0.01 WETH for it");
    expect(view.amounts).toEqual(["25 USDC (25000000)", "0.01 WETH (10000000000000000) at most, swapped"]);
    expect(formatDetail(view, NOW)).toContain("Amount:");
  });

  it("an x402 authorization says who may collect what, and what it buys, in the detail and on the screen's rows", () => {
    const MERCHANT = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955" as const;
    const buys = { resource: "http://127.0.0.1:1/demo/report", description: "a report\u001b[2J", payTo: MERCHANT, amount: "10000", asset: USDC, scheme: "exact" };
    const item = heldPayment("req_x", 0.01, { kind: "x402", intent: { token: USDC, payTo: MERCHANT, amount: "10000", validBefore: "1700000600" }, x402: buys });
    const view = describeReview(item, tokens);
    expect(view.summary).toBe("let 0x14dC…9955 collect 0.01 USDC from the vault (x402)");
    expect(view.recipient).toBe(MERCHANT);
    expect(view.x402).toEqual({ resource: buys.resource, description: "a report\\u001b[2J", payTo: MERCHANT, price: "0.01 USDC (10000)", scheme: "exact" });
    const detail = formatDetail(view, NOW);
    expect(detail).toMatch(/Buys:\s+http:\/\/127\.0\.0\.1:1\/demo\/report\n\s+a report\\u001b\[2J\n\s+0\.01 USDC \(10000\) to 0x14dC79964da2C08b23698B3D3cc7Ca32193d9955 \(x402 exact\)/);
    // A funding payment naming its requirement shows what it funds the same way; one without shows no purchase.
    const funding = describeReview(heldPayment("req_f", 0.01, { x402Funding: { payTo: MERCHANT }, x402: { payTo: MERCHANT, amount: "10000", asset: USDC } }), tokens);
    expect(formatDetail(funding, NOW)).toContain("Buys:");
    expect(describeReview(heldPayment("req_p", 1), tokens).x402).toBeUndefined();
    expect(formatDetail(describeReview(heldPayment("req_p", 1), tokens), NOW)).not.toContain("Buys:");
  });

  it("describes a swap and an execute", () => {
    const swap = describeReview(
      heldPayment("req_s", 0, { kind: "swap", intent: { fromToken: USDC, maxFromAmount: "3000000000", toToken: WETH, minToAmount: "1000000000000000000" } }),
      tokens,
    );
    expect(swap.summary).toBe("swap up to 3000 USDC for at least 1 WETH");
    expect(swap.recipient).toBe("the vault itself");
    const execute = describeReview(
      heldPayment("req_e", 0, {
        kind: "execute",
        intent: { protocol: WETH, protocolName: "Marketplace", tokens: [USDC], amounts: ["10000000"], value: "0" },
        usdValue: undefined,
        valueUsd: "10",
      }),
      tokens,
    );
    expect(execute.summary).toBe("call 0x4200…0006 (Marketplace) spending 10 USDC");
    expect(execute.valueUsd).toBe("$10.00");
  });

  it("shows an execute's call as the relayer decoded it: function, labelled arguments, simulated outflows", () => {
    const view = describeReview(heldApprove("req_e", 20_000_000_000n, { outflows: [{ token: USDC, amount: "20000000000", usd: "20000000000" }] }), tokens);
    expect(view.summary).toBe("call 0x036C…CF7e (USDC): approve(spender 0x90F7…b906, amount 20,000 USDC)");
    expect(view.call).toEqual({
      decoded: true,
      function: "approve(address,uint256)",
      arguments: [
        ["spender", SPENDER],
        ["amount", "20,000 USDC (20000000000 base units)"],
      ],
      summary: "approve(spender 0x90F7…b906, amount 20,000 USDC)",
    });
    expect(view.outflows).toEqual(["20,000 USDC ($20,000.00)"]);
    const bare = describeReview(heldApprove("req_f", 1n), tokens);
    expect(bare.outflows).toEqual([]);
    expect(describeReview(heldPayment("req_p", 1), tokens).call).toBeUndefined();
  });

  it("says plainly when the relayer could not decode a call", () => {
    const item = heldPayment("req_u", 0, {
      kind: "execute",
      intent: { protocol: WETH, tokens: [], amounts: [], value: "0" },
      call: { decoded: false, target: WETH, selector: "0x12345678", calldataBytes: 68, summary: "not decoded: unknown function 0x12345678 (68 bytes of calldata)" },
    });
    const view = describeReview(item, tokens);
    expect(view.call).toEqual({ decoded: false, function: "not decoded: unknown function 0x12345678 (68 bytes of calldata)", arguments: [], summary: "not decoded: unknown function 0x12345678 (68 bytes of calldata)" });
    expect(view.summary).toBe("call 0x4200…0006");
    expect(formatDetail(view, NOW)).toMatch(/^Function: +not decoded: unknown function 0x12345678 \(68 bytes of calldata\)$/m);
  });

  it("reads the agents' verdicts, also when they arrive as JSON text", () => {
    const verdicts = [
      { agent: "Safety", approve: false, reason: "new payee" },
      { name: "Reasoning", verdict: "approve", reason: "memo matches" },
    ];
    for (const agents of [verdicts, JSON.stringify(verdicts)]) {
      expect(describeReview(heldPayment("req_a", 1, { agents }), tokens).agents).toEqual([
        { agent: "Safety", approve: false, reason: "new payee" },
        { agent: "Reasoning", approve: true, reason: "memo matches" },
      ]);
    }
  });
});

describe("times", () => {
  it("reads seconds, milliseconds and ISO dates", () => {
    expect(toMs(1_700_000_000)).toBe(NOW);
    expect(toMs(String(NOW))).toBe(NOW);
    expect(toMs("2023-11-14T22:13:20.000Z")).toBe(NOW);
    expect(toMs("soon")).toBeUndefined();
  });

  it("says how long is left", () => {
    expect(timeLeft(NOW + 2 * 3600_000 + 5 * 60_000, NOW)).toBe("2h 05m");
    expect(timeLeft(NOW + 250_000, NOW)).toBe("4m 10s");
    expect(timeLeft(NOW + 12_000, NOW)).toBe("12s");
    expect(timeLeft(NOW - 1, NOW)).toBe("expired");
    expect(timeLeft(undefined, NOW)).toBe("unknown");
  });
});

describe("text output", () => {
  it("lists reviews as aligned columns, or says there are none", () => {
    const text = formatList([describeReview(heldPayment("req_a", 5), tokens), describeReview(heldPayment("req_bb", 12), tokens)], NOW);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+KIND\s+REQUEST\s+USD\s+TIME LEFT$/);
    expect(lines[1]).toMatch(/^req_a \s+payment  pay 5 USDC to 0x7099…79C8 \s+\$5\.00 \s+24h 00m$/);
    expect(lines[1]!.indexOf("payment")).toBe(lines[2]!.indexOf("payment"));
    expect(formatList([], NOW)).toBe("No reviews pending.\n");
  });

  it("shows every field of one review", () => {
    const item = heldPayment("req_a", 5, { memo: "invoice 7", metadata: { order: "42" }, agents: [{ agent: "Safety", approve: true, reason: "ok" }] });
    const text = formatDetail(describeReview(item, tokens), NOW);
    expect(text).toMatch(/^Request: +req_a \(payment, pending_review\)$/m);
    expect(text).toMatch(/^Amount: +5 USDC \(5000000\)$/m);
    expect(text).toMatch(/^Held because: +the owner requires human review for this bot$/m);
    expect(text).toMatch(/^ {2}order: +42$/m);
    expect(text).toMatch(/^ {2}Safety: approve \(ok\)$/m);
  });

  it("shows no countdown for a review already decided", () => {
    const text = formatDetail(describeReview(heldPayment("req_a", 5, { status: "rejected" }), tokens), NOW);
    expect(text).toMatch(/^Time left: +decided$/m);
  });

  it("says what a decision did", () => {
    expect(formatDecision({ requestId: "req_a", status: "approved", txHash: "0xab" })).toBe("req_a: approved, tx 0xab\n");
    expect(formatDecision({ requestId: "req_a", status: "rejected", reason: "no" })).toBe("req_a: rejected, reason: no\n");
  });
});
