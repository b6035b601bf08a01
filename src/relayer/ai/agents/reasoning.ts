// The Reasoning agent: does the stated purpose (memo, metadata) make sense for this request?
//
// | Rule                        | Objects when                                                     |
// |-----------------------------|------------------------------------------------------------------|
// | thin-memo                   | the request reaches the AI trigger threshold and the memo is     |
// |                             | missing or thin: fewer than 8 characters or fewer than 2 words   |
// |                             | of letters                                                       |
// | memo-amount-mismatch        | the memo states USD amounts ("$1,200", "1200 USDC", "USD 50";    |
// |                             | markers $, USD, USDC, USDT, DAI, dollars) and none is within 10% |
// |                             | of the request's USD value                                       |
// | memo-address-mismatch       | a payment's memo names 0x addresses and none is the recipient    |
// | metadata-amount-mismatch    | a metadata amount key (amount, amountUsd, usd, total, price,     |
// |                             | value) holds a number not within 10% of the USD value            |
// | metadata-recipient-mismatch | a payment's metadata recipient key (to, recipient, payee,        |
// |                             | counterparty, address, wallet) holds another address             |
//
// Bare numbers ("invoice 42") are never read as amounts. No objection → approve, quoting the memo
// when there is one.
import { formatUsd, parseUsd, quote, withinPercent } from "../format.ts";
import { paysCounterparty, type ScanInput, type Verdict } from "../types.ts";
import { reachedThreshold, runRules, type Rule } from "./rule.ts";

export const minMemoLength = 8;
export const minMemoWords = 2;
/** How far a stated amount may be from the USD value and still agree with it. */
export const amountTolerancePercent = 10n;

const number = String.raw`(\d[\d,]*(?:\.\d+)?)`;
const currency = String.raw`(?:usdc|usdt|usd|dai|dollars?)`;
const amountPatterns = [
  new RegExp(String.raw`\$\s?${number}`, "gi"),
  new RegExp(String.raw`${number}\s?${currency}\b`, "gi"),
  new RegExp(String.raw`\b${currency}\s?${number}`, "gi"),
];
const addressPattern = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g;
const amountKeys = new Set(["amount", "amountusd", "usd", "total", "price", "value"]);
const recipientKeys = new Set(["to", "recipient", "payee", "counterparty", "address", "wallet"]);

/** USD amounts a text states with a currency marker. */
export function statedAmounts(text: string): bigint[] {
  const amounts: bigint[] = [];
  for (const pattern of amountPatterns) {
    for (const match of text.matchAll(pattern)) {
      const amount = parseUsd(match[1] ?? "");
      if (amount !== undefined) amounts.push(amount);
    }
  }
  return amounts;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => /\p{L}.*\p{L}/u.test(word)).length;
}

function metadataEntries(input: ScanInput, keys: ReadonlySet<string>): [string, string][] {
  return Object.entries(input.metadata ?? {}).filter(([key]) => keys.has(key.toLowerCase().replace(/[_-]/g, "")));
}

function shortAddress(address: string): string {
  return `${address.slice(0, 8)}…${address.slice(-4)}`;
}

export const reasoningRules: readonly Rule[] = [
  {
    name: "thin-memo",
    check: (input) => {
      const threshold = reachedThreshold(input);
      if (threshold === undefined) return undefined;
      const memo = (input.memo ?? "").trim();
      if (memo === "") return `no memo explains ${formatUsd(input.usdValue)} (AI trigger threshold ${formatUsd(threshold)})`;
      if (memo.length < minMemoLength || wordCount(memo) < minMemoWords) {
        return `memo ${quote(memo)} is too thin to explain ${formatUsd(input.usdValue)}`;
      }
      return undefined;
    },
  },
  {
    name: "memo-amount-mismatch",
    check: ({ memo, usdValue }) => {
      const amounts = statedAmounts(memo ?? "");
      if (amounts.length === 0 || amounts.some((a) => withinPercent(a, usdValue, amountTolerancePercent))) return undefined;
      return `memo states ${amounts.map(formatUsd).join(", ")} but the request is worth ${formatUsd(usdValue)}`;
    },
  },
  {
    name: "memo-address-mismatch",
    check: ({ kind, memo, counterparty }) => {
      if (!paysCounterparty(kind)) return undefined;
      const named = (memo ?? "").match(addressPattern) ?? [];
      if (named.length === 0 || named.some((a) => a.toLowerCase() === counterparty.toLowerCase())) return undefined;
      return `memo names ${shortAddress(named[0] ?? "")} but the payment goes to ${shortAddress(counterparty)}`;
    },
  },
  {
    name: "metadata-amount-mismatch",
    check: (input) => {
      for (const [key, value] of metadataEntries(input, amountKeys)) {
        const amount = parseUsd(value.trim().replace(/^\$\s?/, "").replace(/\s?(usdc|usdt|usd|dai)$/i, ""));
        if (amount !== undefined && !withinPercent(amount, input.usdValue, amountTolerancePercent)) {
          return `metadata ${key} = ${formatUsd(amount)} but the request is worth ${formatUsd(input.usdValue)}`;
        }
      }
      return undefined;
    },
  },
  {
    name: "metadata-recipient-mismatch",
    check: (input) => {
      if (!paysCounterparty(input.kind)) return undefined;
      for (const [key, value] of metadataEntries(input, recipientKeys)) {
        const address = value.trim();
        if (/^0x[0-9a-fA-F]{40}$/.test(address) && address.toLowerCase() !== input.counterparty.toLowerCase()) {
          return `metadata ${key} = ${shortAddress(address)} but the payment goes to ${shortAddress(input.counterparty)}`;
        }
      }
      return undefined;
    },
  },
];

function approveReason(input: ScanInput): string {
  const memo = (input.memo ?? "").trim();
  if (memo !== "") return `stated purpose fits the request: ${quote(memo)}`;
  return input.policy.aiTriggerThreshold > 0n
    ? "below the AI trigger threshold, so no memo is needed"
    : "no AI trigger threshold set, so no memo is needed";
}

export function reviewReasoning(input: ScanInput): Verdict {
  return runRules("reasoning", reasoningRules, input, approveReason);
}
