// What the relayer and `relay agents` say to each other over HTTP (POST /v1/verdicts): JSON, with
// bigints as decimal strings.
import type { Hex } from "viem";
import type { ScanInput, ScanResult } from "../relayer/ai/types.ts";
import type { SignedVerdict } from "../eip712/verdict.ts";

/** The relayer's question: the request as the bot sent it, the relayer's scan input, the verdicts' deadline. */
export interface VerdictQuestion {
  chainId: number;
  /** payment | execute | swap */
  kind: string;
  /** The request's body (intent, signature, memo, metadata…), as stored by the relayer. */
  body: unknown;
  /** The relayer's scan input: the bot's history is the relayer's word; the rest is checked again. */
  input: ScanInput;
  /** The devnet's forced outcome, if any (honoured only on a devnet the agents serve). */
  scenario?: string;
  deadline: bigint;
}

/** The agents' answer: their outcome, and when they approve, their signatures and the hash they signed. */
export interface VerdictAnswer {
  result: ScanResult;
  intentHash?: Hex;
  verdicts: SignedVerdict[];
}

export const toWire = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));

const big = (v: unknown, field: string): bigint => {
  if (typeof v !== "string" || !/^\d{1,78}$/.test(v)) throw new Error(`${field} must be a decimal string`);
  return BigInt(v);
};

/** The scan input's bigints, revived from their strings (a bad one throws, naming its field). */
export function reviveScanInput(raw: unknown): ScanInput {
  if (typeof raw !== "object" || raw === null) throw new Error("input must be an object");
  const input = raw as Record<string, unknown> & { policy?: Record<string, unknown>; history?: Record<string, unknown> };
  if (typeof input.policy !== "object" || input.policy === null) throw new Error("input.policy must be an object");
  if (typeof input.history !== "object" || input.history === null) throw new Error("input.history must be an object");
  return {
    ...(input as unknown as ScanInput),
    usdValue: big(input.usdValue, "input.usdValue"),
    policy: {
      aiTriggerThreshold: big(input.policy.aiTriggerThreshold, "input.policy.aiTriggerThreshold"),
      maxPerTxAmount: big(input.policy.maxPerTxAmount, "input.policy.maxPerTxAmount"),
      dailyLimit: big(input.policy.dailyLimit, "input.policy.dailyLimit"),
    },
    history: {
      ...(input.history as unknown as ScanInput["history"]),
      approvedUsd24h: big(input.history.approvedUsd24h, "input.history.approvedUsd24h"),
      medianUsd: big(input.history.medianUsd, "input.history.medianUsd"),
    },
  };
}
