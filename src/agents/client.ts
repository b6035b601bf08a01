// The relayer's side of a separate panel (`relay agents`, docs/design.md "AI holds"): each request
// the vault holds for the AI scan is posted to the agents as the bot's API body, which they check
// against the chain themselves, judge with their own panel and sign with their own keys. This host
// holds none of those keys. An unreachable or failing panel is AI_VERIFICATION_TIMEOUT (nothing is
// executed; the bot may retry with its idempotency key).
import type { Address, Hex } from "viem";
import { executeRequestBody, paymentRequestBody, swapAndPayRequestBody, swapRequestBody, type BodyExtras } from "../../packages/client/src/bodies.ts";
import type { VaultDomain } from "../../packages/client/src/intent-types.ts";
import { OFF_CHAIN_FIELD_NAMES } from "../api/off-chain.ts";
import type { RelayRequest } from "../api/validate.ts";
import { relayError } from "../errors.ts";
import type { Judgement, VerdictPanel } from "../relayer/ai/verdicts.ts";
import type { ScanResult } from "../relayer/ai/types.ts";
import { toWire } from "./wire.ts";

export function remotePanel(url: string, options: { timeoutMs: number }): VerdictPanel {
  const endpoint = new URL("/v1/verdicts", url).toString();
  return {
    where: url,
    async judge(judgement: Judgement) {
      const { input, request, domain, deadline, scenario } = judgement;
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: toWire({ kind: request.kind, body: apiBodyOf(request, domain), input, scenario, deadline }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        throw relayError("AI_VERIFICATION_TIMEOUT", `the verification agents did not answer: ${(error as Error).message}`);
      }
      const text = await res.text();
      let answer: { result?: ScanResult; intentHash?: Hex; verdicts?: { signer: Address; signature: Hex }[]; code?: string; details?: string };
      try {
        answer = JSON.parse(text);
      } catch {
        throw relayError("AI_VERIFICATION_TIMEOUT", `the verification agents answered ${res.status} without JSON`);
      }
      if (!res.ok || !answer.result) {
        throw relayError("AI_VERIFICATION_TIMEOUT", `the verification agents answered ${res.status} ${answer.code ?? ""}: ${answer.details ?? ""}`);
      }
      // Verdicts for another hash count for nothing on-chain: dropped here, so the relayer holds the request.
      const same = answer.intentHash?.toLowerCase() === judgement.intentHash.toLowerCase();
      return { result: answer.result, verdicts: same ? (answer.verdicts ?? []) : [] };
    },
  };
}

/** The request as the bot's POST body (the client's builders), for the agents to validate afresh. */
export function apiBodyOf(request: RelayRequest, domain: VaultDomain): unknown {
  const extras: BodyExtras = { idempotencyKey: request.idempotencyKey, memo: request.memo, metadata: request.metadata };
  for (const field of OFF_CHAIN_FIELD_NAMES) if (request[field] !== undefined) (extras as Record<string, unknown>)[field] = request[field];
  switch (request.kind) {
    case "payment":
      return request.swap
        ? swapAndPayRequestBody(domain, request.intent, request.signature, request.swap.intent, request.swap.signature, extras)
        : paymentRequestBody(domain, request.intent, request.signature, extras);
    case "execute":
      return executeRequestBody(domain, request.intent, request.callData, request.signature, { ...extras, protocolName: request.protocolName });
    case "swap":
      return swapRequestBody(domain, request.intent, request.signature, extras);
  }
}
