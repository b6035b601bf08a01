// The panel: asks the three agents at once and decides as soon as the outcome is certain.
//
// - 2 approvals → approved; 2 rejections → not approved; otherwise it waits for the third answer.
// - Verdicts are listed in agent order (safety, behavioral, reasoning). An agent that had not
//   answered when the outcome became certain is left out, and its work is aborted.
// - Agents that answer synchronously (the rules) are all heard before anything is decided, so the
//   rules backend always lists three verdicts.
// - No outcome within `timeoutMs` → AI_VERIFICATION_TIMEOUT naming the agents still silent.
// - The caller's signal aborting stops the wait: the promise rejects with the signal's reason.
// - An agent that throws (other than by being aborted) fails the whole panel with that error.
import { relayError, type RelayError } from "../../errors.ts";
import { agentNames, type AgentName, type Verdict } from "./types.ts";

export interface PanelMember {
  name: AgentName;
  review(signal: AbortSignal): Verdict | Promise<Verdict>;
}

export interface PanelOutcome {
  approved: boolean;
  verdicts: Verdict[];
}

/** Votes needed on one side for the outcome to be certain: 2 of 3. */
export const majority = 2;

export function timeoutError(silent: readonly AgentName[], timeoutMs: number, note = ""): RelayError {
  return relayError("AI_VERIFICATION_TIMEOUT", `${silent.join(", ")} did not answer within ${timeoutMs} ms${note}`);
}

export function convene(members: readonly PanelMember[], timeoutMs: number, signal?: AbortSignal): Promise<PanelOutcome> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const answers = new Map<AgentName, Verdict>();
    const work = new AbortController();
    let settled = false;

    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      work.abort();
      action();
    };
    const onAbort = (): void => settle(() => reject(signal?.reason));
    const timer = setTimeout(() => {
      const silent = members.map((m) => m.name).filter((name) => !answers.has(name));
      settle(() => reject(timeoutError(silent, timeoutMs)));
    }, timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });

    const decideIfCertain = (): void => {
      const verdicts = agentNames.flatMap((name) => answers.get(name) ?? []);
      const approvals = verdicts.filter((v) => v.approve).length;
      const rejections = verdicts.length - approvals;
      if (approvals >= majority || rejections >= majority || verdicts.length === members.length) {
        settle(() => resolve({ approved: approvals >= majority, verdicts }));
      }
    };
    const record = (name: AgentName, verdict: Verdict): void => {
      answers.set(name, { agent: name, approve: verdict.approve, reason: verdict.reason });
    };
    const fail = (error: unknown): void => settle(() => reject(error));

    for (const member of members) {
      let answer: Verdict | Promise<Verdict>;
      try {
        answer = member.review(work.signal);
      } catch (error) {
        fail(error);
        return;
      }
      if (answer instanceof Promise) {
        answer.then(
          (verdict) => {
            if (settled) return;
            record(member.name, verdict);
            decideIfCertain();
          },
          (error: unknown) => {
            if (!settled) fail(error);
          },
        );
      } else {
        record(member.name, answer);
      }
    }
    decideIfCertain();
  });
}
