// The Behavioral agent: does this request fit the bot's own past on this vault?
//
// | Rule                  | Objects when                                                           |
// |-----------------------|------------------------------------------------------------------------|
// | request-burst         | the bot sent 100 or more requests in the last 24 h                     |
// | recent-rejections     | 3 or more of its requests in the last 24 h were rejected, and they are |
// |                       | at least a quarter of its requests in that time                        |
// | new-counterparty-jump | the counterparty is new to the bot and the USD value is over 3× the    |
// |                       | median of its last approved requests                                   |
// | size-spike            | the USD value is over 10× that median, whoever the counterparty is     |
// | first-large-request   | the bot has never had a request approved and this one reaches the AI   |
// |                       | trigger threshold                                                      |
//
// The median rules apply only when the bot has a median (at least one approved request of value).
// No objection → approve: "consistent with its history (…)" with the figures it looked at.
import { formatRatio, formatUsd } from "../format.ts";
import type { ScanInput, Verdict } from "../types.ts";
import { reachedThreshold, runRules, type Rule } from "./rule.ts";

export const burstRequests24h = 100;
export const minRejections24h = 3;
/** Above this multiple of its median, a new counterparty is suspicious. */
export const newCounterpartyMedianMultiple = 3n;
/** Above this multiple of its median, any request is suspicious. */
export const spikeMedianMultiple = 10n;

export const behavioralRules: readonly Rule[] = [
  {
    name: "request-burst",
    check: ({ history }) =>
      history.requests24h >= burstRequests24h
        ? `${history.requests24h} requests in the last 24 h is a burst (${burstRequests24h} or more)`
        : undefined,
  },
  {
    name: "recent-rejections",
    check: ({ history }) =>
      history.rejected24h >= minRejections24h && history.rejected24h * 4 >= history.requests24h
        ? `${history.rejected24h} of its ${history.requests24h} requests in the last 24 h were rejected`
        : undefined,
  },
  {
    name: "new-counterparty-jump",
    check: ({ history, usdValue }) => {
      const median = history.medianUsd;
      if (history.knownCounterparty || median <= 0n || usdValue <= median * newCounterpartyMedianMultiple) return undefined;
      return `new counterparty and ${formatUsd(usdValue)} is ${formatRatio(usdValue, median)} its median (${formatUsd(median)})`;
    },
  },
  {
    name: "size-spike",
    check: ({ history, usdValue }) => {
      const median = history.medianUsd;
      if (median <= 0n || usdValue <= median * spikeMedianMultiple) return undefined;
      return `${formatUsd(usdValue)} is ${formatRatio(usdValue, median)} its median (${formatUsd(median)})`;
    },
  },
  {
    name: "first-large-request",
    check: (input) => {
      const threshold = reachedThreshold(input);
      if (input.history.approvedCount > 0 || threshold === undefined) return undefined;
      return `first request of this bot and already at the AI trigger threshold (${formatUsd(threshold)})`;
    },
  },
];

function approveReason({ history, usdValue }: ScanInput): string {
  const counterparty = history.knownCounterparty ? "known counterparty" : "new counterparty";
  const size = history.medianUsd > 0n ? `${formatRatio(usdValue, history.medianUsd)} its median` : "no median yet";
  return `consistent with its history (${history.approvedCount} approved before, ${counterparty}, ${size})`;
}

export function reviewBehavioral(input: ScanInput): Verdict {
  return runRules("behavioral", behavioralRules, input, approveReason);
}
