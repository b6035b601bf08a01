import { describe, expect, it } from "vitest";
import { behavioralRules, reviewBehavioral } from "../../../src/relayer/ai/agents/behavioral.ts";
import { ordinaryPayment, usd } from "./support.ts";

describe("Behavioral agent", () => {
  it("approves an ordinary payment and says what it looked at", () => {
    expect(reviewBehavioral(ordinaryPayment())).toEqual({
      agent: "behavioral",
      approve: true,
      reason: "consistent with its history (40 approved before, known counterparty, 1.2× its median)",
    });
  });

  it("has exactly the rules tested below", () => {
    expect(behavioralRules.map((r) => r.name)).toEqual([
      "request-burst",
      "recent-rejections",
      "new-counterparty-jump",
      "size-spike",
      "first-large-request",
    ]);
  });

  it("request-burst: rejects from 100 requests in 24 h", () => {
    expect(reviewBehavioral(ordinaryPayment({ history: { requests24h: 100 } }))).toMatchObject({
      approve: false,
      reason: "100 requests in the last 24 h is a burst (100 or more)",
    });
    expect(reviewBehavioral(ordinaryPayment({ history: { requests24h: 99 } })).approve).toBe(true);
  });

  it("recent-rejections: rejects 3+ rejections that are at least a quarter of the requests", () => {
    expect(reviewBehavioral(ordinaryPayment({ history: { requests24h: 12, rejected24h: 3 } }))).toMatchObject({
      approve: false,
      reason: "3 of its 12 requests in the last 24 h were rejected",
    });
    // Two rejections are not a pattern; three out of 13 are under a quarter.
    expect(reviewBehavioral(ordinaryPayment({ history: { requests24h: 4, rejected24h: 2 } })).approve).toBe(true);
    expect(reviewBehavioral(ordinaryPayment({ history: { requests24h: 13, rejected24h: 3 } })).approve).toBe(true);
  });

  it("new-counterparty-jump: rejects a new counterparty above 3× the median", () => {
    const history = { knownCounterparty: false, medianUsd: usd(1000) };
    expect(reviewBehavioral(ordinaryPayment({ usdValue: usd(3000.01), history }))).toMatchObject({
      approve: false,
      reason: "new counterparty and 3000.01 USD is 3.0× its median (1000.00 USD)",
    });
    expect(reviewBehavioral(ordinaryPayment({ usdValue: usd(3000), history })).approve).toBe(true);
    // The same amount to a known counterparty is fine.
    expect(reviewBehavioral(ordinaryPayment({ usdValue: usd(5000), history: { medianUsd: usd(1000) } })).approve).toBe(true);
  });

  it("size-spike: rejects above 10× the median even to a known counterparty", () => {
    const verdict = reviewBehavioral(ordinaryPayment({ usdValue: usd(12000), history: { medianUsd: usd(1000) } }));
    expect(verdict).toMatchObject({ approve: false, reason: "12000.00 USD is 12.0× its median (1000.00 USD)" });
    expect(reviewBehavioral(ordinaryPayment({ usdValue: usd(10000), history: { medianUsd: usd(1000) } })).approve).toBe(true);
  });

  it("first-large-request: rejects a first-ever request at the threshold, not a small one", () => {
    const history = { approvedCount: 0, medianUsd: 0n, knownCounterparty: false };
    expect(reviewBehavioral(ordinaryPayment({ usdValue: usd(10000), history }))).toMatchObject({
      approve: false,
      reason: "first request of this bot and already at the AI trigger threshold (10000.00 USD)",
    });
    const small = reviewBehavioral(ordinaryPayment({ usdValue: usd(50), reasons: ["ai_required"], history }));
    expect(small).toMatchObject({ approve: true, reason: expect.stringContaining("no median yet") });
  });
});
