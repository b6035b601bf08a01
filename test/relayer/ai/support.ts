// Builders for scan inputs: an ordinary scanned payment that every agent approves, and helpers to
// change one field of it at a time.
import type { BotHistory, ScanInput } from "../../../src/relayer/ai/types.ts";

export const usd = (whole: number): bigint => BigInt(Math.round(whole * 100)) * 10_000n;

export const vault = "0x1111111111111111111111111111111111111111";
export const bot = "0x2222222222222222222222222222222222222222";
export const recipient = "0xAbC0000000000000000000000000000000000def";
export const otherAddress = "0x9999999999999999999999999999999999999999";

/** 12000 USD to a known recipient, threshold 10000, median 10000: approved by all three. */
export function ordinaryPayment(
  overrides: Omit<Partial<ScanInput>, "history" | "policy"> & {
    history?: Partial<BotHistory>;
    policy?: Partial<ScanInput["policy"]>;
  } = {},
): ScanInput {
  const { history, policy, ...rest } = overrides;
  return {
    kind: "payment",
    chainId: 84532,
    vault,
    bot,
    counterparty: recipient,
    summary: `pay 12000 USDC (12000.00 USD) to ${recipient}`,
    usdValue: usd(12000),
    memo: "invoice 42 for hosting",
    reasons: ["ai_threshold"],
    ...rest,
    policy: { aiTriggerThreshold: usd(10000), maxPerTxAmount: usd(50000), dailyLimit: usd(250000), ...policy },
    history: {
      requests24h: 5,
      rejected24h: 0,
      approvedUsd24h: usd(20000),
      medianUsd: usd(10000),
      approvedCount: 40,
      knownCounterparty: true,
      ...history,
    },
  };
}
