import { describe, expect, it } from "vitest";
import { RelayError } from "../../../src/errors.ts";
import { aiScenarios, createScanner } from "../../../src/relayer/ai/index.ts";
import { parseScenario } from "../../../src/relayer/intake/scenarios.ts";
import { ordinaryPayment } from "./support.ts";

describe("parseScenario", () => {
  it("returns a known scenario on a devnet", () => {
    for (const scenario of aiScenarios) expect(parseScenario({ scenario, other: "x" }, true)).toEqual({ name: scenario });
    expect(parseScenario({ scenario: "simulation-failed" }, true)).toEqual({ name: "simulation-failed" });
    expect(parseScenario({ scenario: "rpc-error-once" }, true)).toEqual({ name: "rpc-error-once" });
  });

  it("reads N seconds, with the defaults of the table", () => {
    expect(parseScenario({ scenario: "rate-limited" }, true)).toEqual({ name: "rate-limited", seconds: 1 });
    expect(parseScenario({ scenario: "rate-limited:7" }, true)).toEqual({ name: "rate-limited", seconds: 7 });
    expect(parseScenario({ scenario: "review-approve" }, true)).toEqual({ name: "review-approve", seconds: 2 });
    expect(parseScenario({ scenario: "review-reject:0" }, true)).toEqual({ name: "review-reject", seconds: 0 });
  });

  it("returns undefined without metadata or without the key", () => {
    expect(parseScenario(undefined, true)).toBeUndefined();
    expect(parseScenario({ invoice: "42" }, true)).toBeUndefined();
  });

  it("ignores the key off a devnet, even an unknown value", () => {
    expect(parseScenario({ scenario: "ai-approve" }, false)).toBeUndefined();
    expect(parseScenario({ scenario: "nonsense" }, false)).toBeUndefined();
  });

  it("throws INVALID_REQUEST for an unknown value on a devnet", () => {
    for (const value of ["nonsense", "", "AI-APPROVE", "toString", "rate-limited:", "rate-limited:1.5", "review-approve:-1", "review-reject:86401", "ai-approve:3"]) {
      let error: unknown;
      try {
        parseScenario({ scenario: value }, true);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(RelayError);
      expect(error).toMatchObject({
        code: "INVALID_REQUEST",
        status: 400,
        details: "metadata.scenario must be one of ai-approve, ai-no-consensus, ai-reject, ai-timeout, simulation-failed, rpc-error-once, rate-limited[:N], review-approve[:N], review-reject[:N] (N: whole seconds, at most 86400)",
      });
    }
  });

  it("does not read a scenario from the prototype chain", () => {
    expect(parseScenario(Object.create({ scenario: "ai-approve" }) as Record<string, string>, true)).toBeUndefined();
  });
});

describe("scenarios in the scanner", () => {
  // An input every rule rejects, so a forced approval cannot come from the rules.
  const bad = ordinaryPayment({
    counterparty: "0x0000000000000000000000000000000000000000",
    memo: "urgent",
    history: { requests24h: 500, rejected24h: 200 },
  });
  // An unreachable endpoint: a scenario must not call the backend at all.
  const scanners = [
    createScanner({ timeoutMs: 5000 }),
    createScanner({ timeoutMs: 5000, endpoint: "http://127.0.0.1:1/v1" }),
  ];

  it("ai-approve: all three approve with the forced reason", async () => {
    for (const scanner of scanners) {
      const result = await scanner.scan(bad, { scenario: "ai-approve" });
      expect(result.approved).toBe(true);
      expect(result.verdicts).toEqual(
        ["safety", "behavioral", "reasoning"].map((agent) => ({
          agent,
          approve: true,
          reason: "forced by metadata.scenario=ai-approve",
        })),
      );
    }
  });

  it("ai-no-consensus: safety approves, the others reject", async () => {
    const result = await createScanner({ timeoutMs: 5000 }).scan(ordinaryPayment(), { scenario: "ai-no-consensus" });
    expect(result.approved).toBe(false);
    expect(result.verdicts.map((v) => [v.agent, v.approve, v.reason])).toEqual([
      ["safety", true, "forced by metadata.scenario=ai-no-consensus"],
      ["behavioral", false, "forced by metadata.scenario=ai-no-consensus"],
      ["reasoning", false, "forced by metadata.scenario=ai-no-consensus"],
    ]);
  });

  it("ai-reject: all three refuse", async () => {
    const result = await createScanner({ timeoutMs: 5000 }).scan(ordinaryPayment(), { scenario: "ai-reject" });
    expect(result.approved).toBe(false);
    expect(result.verdicts.map((v) => [v.agent, v.approve, v.reason])).toEqual(
      ["safety", "behavioral", "reasoning"].map((agent) => [agent, false, "the agent refuses (forced by metadata.scenario=ai-reject)"]),
    );
  });

  it("ai-timeout: throws AI_VERIFICATION_TIMEOUT at once, whatever the timeout", async () => {
    for (const scanner of [...scanners, createScanner({ timeoutMs: 3_600_000 })]) {
      await expect(scanner.scan(ordinaryPayment(), { scenario: "ai-timeout" })).rejects.toMatchObject({
        code: "AI_VERIFICATION_TIMEOUT",
        details: expect.stringMatching(/^safety, behavioral, reasoning did not answer within \d+ ms \(forced by metadata\.scenario=ai-timeout\)$/),
      });
    }
  });
});
