// The shapes the AI scan speaks: what the relayer hands in (ScanInput), what one agent answers
// (Verdict) and what the panel of three decides (ScanResult). All USD amounts carry 6 decimals.

export type AgentName = "safety" | "behavioral" | "reasoning";

/** The three agents, in the order their verdicts are listed. */
export const agentNames: readonly AgentName[] = ["safety", "behavioral", "reasoning"];

/** One agent's answer; `reason` is a short sentence for the owner, whether it approves or not. */
export interface Verdict {
  agent: AgentName;
  approve: boolean;
  reason: string;
}

/** Why the relayer put the request on the AI scan path (DESIGN.md section 7, Paths). */
export type ScanReason = "ai_threshold" | "velocity_burst" | "ai_required" | "nft_transfer";

/** What the relayer knows about the bot's past on this vault. */
export interface BotHistory {
  /** Requests by this bot on this vault in the last 24 h (any status). */
  requests24h: number;
  /** Of which rejected. */
  rejected24h: number;
  /** USD (6 decimals) approved in the last 24 h. */
  approvedUsd24h: bigint;
  /** Median USD of its last 50 approved requests (0 if none). */
  medianUsd: bigint;
  /** Approved requests ever. */
  approvedCount: number;
  /** It had an approved request to the same counterparty before. */
  knownCounterparty: boolean;
}

/** Whether the request sends money to its counterparty: a payment, or an x402 authorization (to its merchant). */
export function paysCounterparty(kind: ScanInput["kind"]): boolean {
  return kind === "payment" || kind === "x402";
}

export interface ScanInput {
  kind: "payment" | "execute" | "swap" | "x402";
  chainId: number;
  vault: `0x${string}`;
  bot: `0x${string}`;
  /** payment: recipient; execute: protocol; swap: router or output token; x402: the merchant (payTo). */
  counterparty: `0x${string}`;
  /** One line, e.g. "pay 12000 USDC (12000.00 USD) to 0xAbC…". */
  summary: string;
  /** USD value, 6 decimals. */
  usdValue: bigint;
  /** Execute only: the 4-byte selector of callData. */
  selector?: `0x${string}`;
  memo?: string;
  metadata?: Record<string, string>;
  /**
   * The other off-chain fields the bot sent, by name: invoiceId, orderId, recipientLabel, resourceUrl,
   * and x402Funding as compact JSON. The bot's words like the memo, never checked against the intent.
   */
  offChain?: Record<string, string>;
  /** Why it is being scanned. */
  reasons: ScanReason[];
  /** USD, 6 decimals; 0 means not set. */
  policy: { aiTriggerThreshold: bigint; maxPerTxAmount: bigint; dailyLimit: bigint };
  history: BotHistory;
}

export interface ScanResult {
  /** At least 2 of the 3 agents approve. */
  approved: boolean;
  /** The verdicts that arrived before the outcome was certain, in agent order. */
  verdicts: Verdict[];
  backend: "rules" | "openai";
  elapsedMs: number;
}

export interface AiConfig {
  /** How long the panel may take to reach an outcome. */
  timeoutMs: number;
  /** Base URL of an OpenAI-compatible API (e.g. http://127.0.0.1:9999/v1); unset = rules backend. */
  endpoint?: string;
  model?: string;
  apiKey?: string;
}

/** One agent as the panel sees it: answers now (rules) or later (a remote model). */
export type Agent = (input: ScanInput, signal: AbortSignal) => Verdict | Promise<Verdict>;
