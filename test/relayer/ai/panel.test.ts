import { describe, expect, it } from "vitest";
import { RelayError } from "../../../src/errors.ts";
import { convene, type PanelMember } from "../../../src/relayer/ai/panel.ts";
import type { AgentName, Verdict } from "../../../src/relayer/ai/types.ts";

/** A verdict the test releases by hand, and whether the panel aborted the agent's work. */
function heldAgent(name: AgentName) {
  let release!: (approve: boolean) => void;
  const state = { aborted: false };
  const member: PanelMember = {
    name,
    review: (signal) =>
      new Promise<Verdict>((resolve) => {
        signal.addEventListener("abort", () => (state.aborted = true));
        release = (approve) => resolve({ agent: name, approve, reason: `${name} says ${approve}` });
      }),
  };
  return { member, release: (approve: boolean) => release(approve), state };
}

function instant(name: AgentName, approve: boolean): PanelMember {
  return { name, review: () => ({ agent: name, approve, reason: `${name} says ${approve}` }) };
}

const never = (name: AgentName): PanelMember => ({ name, review: () => new Promise<Verdict>(() => {}) });

describe("the panel", () => {
  it("approves on 2 of 3 and lists all three synchronous verdicts in agent order", async () => {
    const outcome = await convene(
      [instant("reasoning", false), instant("safety", true), instant("behavioral", true)],
      1000,
    );
    expect(outcome.approved).toBe(true);
    expect(outcome.verdicts.map((v) => [v.agent, v.approve])).toEqual([
      ["safety", true],
      ["behavioral", true],
      ["reasoning", false],
    ]);
  });

  it("is not approved with only one approval", async () => {
    const outcome = await convene([instant("safety", true), instant("behavioral", false), instant("reasoning", false)], 1000);
    expect(outcome.approved).toBe(false);
    expect(outcome.verdicts).toHaveLength(3);
  });

  it("decides on two approvals without waiting for the third, and aborts its work", async () => {
    const third = heldAgent("reasoning");
    const outcome = await convene([instant("safety", true), instant("behavioral", true), third.member], 60_000);
    expect(outcome).toEqual({
      approved: true,
      verdicts: [
        { agent: "safety", approve: true, reason: "safety says true" },
        { agent: "behavioral", approve: true, reason: "behavioral says true" },
      ],
    });
    expect(third.state.aborted).toBe(true);
  });

  it("decides on two rejections arriving later, leaving the silent agent out", async () => {
    const safety = heldAgent("safety");
    const behavioral = heldAgent("behavioral");
    const pending = convene([safety.member, behavioral.member, never("reasoning")], 60_000);
    behavioral.release(false);
    safety.release(false);
    const outcome = await pending;
    expect(outcome.approved).toBe(false);
    expect(outcome.verdicts.map((v) => v.agent)).toEqual(["safety", "behavioral"]);
  });

  it("waits for the third answer on a split vote", async () => {
    const reasoning = heldAgent("reasoning");
    const pending = convene([instant("safety", true), instant("behavioral", false), reasoning.member], 60_000);
    let done = false;
    void pending.then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    reasoning.release(true);
    const outcome = await pending;
    expect(outcome.approved).toBe(true);
    expect(outcome.verdicts).toHaveLength(3);
  });

  it("times out with AI_VERIFICATION_TIMEOUT naming the silent agents", async () => {
    const error = await convene([instant("safety", true), never("behavioral"), never("reasoning")], 20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RelayError);
    expect(error).toMatchObject({
      code: "AI_VERIFICATION_TIMEOUT",
      status: 500,
      retryable: true,
      details: "behavioral, reasoning did not answer within 20 ms",
    });
  });

  it("times out on a split vote whose third agent stays silent", async () => {
    const error = await convene([instant("safety", true), instant("behavioral", false), never("reasoning")], 20).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "AI_VERIFICATION_TIMEOUT", details: "reasoning did not answer within 20 ms" });
  });

  it("stops waiting when the caller's signal aborts, and aborts the agents' work", async () => {
    const safety = heldAgent("safety");
    const controller = new AbortController();
    const pending = convene([safety.member, never("behavioral"), never("reasoning")], 60_000, controller.signal);
    controller.abort(new Error("shutting down"));
    await expect(pending).rejects.toThrow("shutting down");
    expect(safety.state.aborted).toBe(true);
  });

  it("does not start the agents when the signal is already aborted", async () => {
    let started = false;
    const member: PanelMember = { name: "safety", review: () => ((started = true), { agent: "safety", approve: true, reason: "x" }) };
    await expect(convene([member], 1000, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
    expect(started).toBe(false);
  });

  it("fails with an agent's own error", async () => {
    const broken: PanelMember = { name: "behavioral", review: () => Promise.reject(new Error("bug in agent")) };
    await expect(convene([instant("safety", true), broken, never("reasoning")], 60_000)).rejects.toThrow("bug in agent");
  });

  it("labels a verdict with the agent that gave it", async () => {
    const liar: PanelMember = { name: "reasoning", review: () => ({ agent: "safety", approve: true, reason: "r" }) };
    const outcome = await convene([instant("safety", false), instant("behavioral", false), liar], 1000);
    expect(outcome.verdicts.map((v) => v.agent)).toEqual(["safety", "behavioral", "reasoning"]);
  });
});
