// The relayer's side of a separate panel (`relay agents`, docs/design.md "AI holds"): each request
// the vault holds for the AI scan is posted to the agents, which check it against the chain
// themselves, judge it with their own panel and sign verdicts with their own keys. This host holds
// none of those keys. An unreachable or failing panel is AI_VERIFICATION_TIMEOUT (the request is
// not executed; the bot retries with its idempotency key).
import type { Address, Hex } from "viem";
import { relayError } from "../errors.ts";
import type { Judgement, VerdictPanel } from "../relayer/ai/verdicts.ts";
import type { ScanResult } from "../relayer/ai/types.ts";
import { toWire } from "./wire.ts";

export function remotePanel(url: string, options: { timeoutMs: number }): VerdictPanel {
  const endpoint = new URL("/v1/verdicts", url).toString();
  return {
    where: url,
    async judge(judgement: Judgement) {
      const { input, body, deadline, scenario } = judgement;
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: toWire({ chainId: input.chainId, kind: input.kind, body, input, scenario, deadline }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        throw relayError("AI_VERIFICATION_TIMEOUT", `the verification agents at ${url} did not answer: ${(error as Error).message}`);
      }
      const text = await res.text();
      let answer: { result?: ScanResult; intentHash?: Hex; verdicts?: { signer: Address; signature: Hex }[]; code?: string; details?: string };
      try {
        answer = JSON.parse(text);
      } catch {
        throw relayError("AI_VERIFICATION_TIMEOUT", `the verification agents at ${url} answered ${res.status} with no JSON`);
      }
      if (!res.ok || !answer.result) {
        throw relayError("AI_VERIFICATION_TIMEOUT", `the verification agents at ${url} answered ${res.status} ${answer.code ?? ""}: ${answer.details ?? ""}`.trim());
      }
      // Verdicts for another hash count for nothing on-chain: dropped here, so the relayer holds the request.
      const same = answer.intentHash?.toLowerCase() === judgement.intentHash.toLowerCase();
      return { result: answer.result, verdicts: same ? (answer.verdicts ?? []) : [] };
    },
  };
}
