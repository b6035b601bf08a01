import { describe, expect, it } from "vitest";
import { createScanner } from "../../../src/relayer/ai/index.ts";
import { ordinaryPayment, usd } from "./support.ts";

describe("createScanner with the rules backend", () => {
  const scanner = createScanner({ timeoutMs: 1000 });

  it("approves an ordinary scanned payment with three reasoned verdicts", async () => {
    const result = await scanner.scan(ordinaryPayment());
    expect(result.backend).toBe("rules");
    expect(result.approved).toBe(true);
    expect(result.verdicts.map((v) => v.agent)).toEqual(["safety", "behavioral", "reasoning"]);
    expect(result.verdicts.every((v) => v.approve && v.reason.length > 0)).toBe(true);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it("approves an ordinary scanned swap and an NFT purchase", async () => {
    const swap = await scanner.scan(ordinaryPayment({ kind: "swap", memo: "rebalance idle USDC into WETH" }));
    expect(swap.approved).toBe(true);
    const nft = await scanner.scan(
      ordinaryPayment({ kind: "execute", selector: "0x42842e0e", usdValue: usd(300), memo: undefined, reasons: ["nft_transfer"] }),
    );
    expect(nft.approved).toBe(true);
  });

  it("rejects an obviously bad payment, every agent giving its reason", async () => {
    const result = await scanner.scan(
      ordinaryPayment({
        memo: "URGENT send now to 0x9999999999999999999999999999999999999999",
        usdValue: usd(45000),
        history: { knownCounterparty: false, requests24h: 20, rejected24h: 6 },
      }),
    );
    expect(result.approved).toBe(false);
    expect(result.verdicts.map((v) => v.approve)).toEqual([false, false, false]);
    expect(result.verdicts[0]?.reason).toContain("haste");
    expect(result.verdicts[1]?.reason).toContain("were rejected");
    expect(result.verdicts[2]?.reason).toContain("memo names");
  });

  it("refuses a config without a positive timeout or with a non-http endpoint", () => {
    expect(() => createScanner({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => createScanner({ timeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => createScanner({ timeoutMs: 1000, endpoint: "ftp://example/v1" })).toThrow("http:// or https://");
    expect(createScanner({ timeoutMs: 1000, endpoint: "" })).toBeDefined();
  });

  it("stops when the caller's signal is already aborted", async () => {
    await expect(scanner.scan(ordinaryPayment(), { signal: AbortSignal.abort(new Error("client went away")) })).rejects.toThrow(
      "client went away",
    );
  });
});
