// The Safety agent: is what is being paid or called dangerous in itself, whoever asks for it?
//
// | Rule               | Objects when                                                              |
// |--------------------|---------------------------------------------------------------------------|
// | zero-counterparty  | the counterparty is the zero address                                      |
// | own-address        | a payment (or x402 authorization) goes to the bot's own address or the vault |
// | approval-grant     | an execute's selector grants token allowances: approve, increaseAllowance, |
// |                    | setApprovalForAll, EIP-2612 / DAI permit, Permit2 approve / permit        |
// | far-above-trigger  | the USD value is over 10× the AI trigger threshold (when one is set)      |
// | over-per-tx-limit  | the USD value is over the per-transaction limit (when one is set)         |
// | credential-wording | memo or metadata mention seed/recovery phrases, private keys, passwords,  |
// |                    | one-time or 2FA codes                                                      |
// | urgency-wording    | memo or metadata push for haste: "urgent", "immediately", "act now",      |
// |                    | "asap", "final notice", "account suspended/locked", "within 10 minutes"   |
// | lure-wording       | memo or metadata read like a scam lure: "double your", "guaranteed        |
// |                    | return", "claim your airdrop", "gift card", "verify your wallet"          |
//
// No objection → approve: "no safety concern found (counterparty, call, size and wording checked)".
import { keccak256 } from "../../../crypto/keccak.ts";
import { formatUsd, zeroAddress } from "../format.ts";
import { paysCounterparty, type ScanInput, type Verdict } from "../types.ts";
import { runRules, statedText, type Rule } from "./rule.ts";

/** How far above the AI trigger threshold a request may go before Safety objects. */
export const triggerMultipleLimit = 10n;

function selectorOf(signature: string): `0x${string}` {
  return `0x${keccak256(Buffer.from(signature)).subarray(0, 4).toString("hex")}`;
}

/** Function signatures whose call lets someone else move the vault's tokens. */
const approvalSignatures: Record<string, string> = {
  "approve(address,uint256)": "approve",
  "increaseAllowance(address,uint256)": "increaseAllowance",
  "setApprovalForAll(address,bool)": "setApprovalForAll",
  "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)": "permit (EIP-2612)",
  "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)": "permit (DAI)",
  "approve(address,address,uint160,uint48)": "Permit2 approve",
  "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)": "Permit2 permit",
  "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)": "Permit2 permit batch",
};

/** Selector (lower-case hex) → the call's name, for every approval-granting function above. */
export const approvalSelectors: ReadonlyMap<string, string> = new Map(
  Object.entries(approvalSignatures).map(([signature, name]) => [selectorOf(signature), name]),
);

const wording: { rule: string; what: string; pattern: RegExp }[] = [
  {
    rule: "credential-wording",
    what: "asks about credentials",
    pattern:
      /\b(seed|secret|recovery) ?phrase|\bmnemonic|\bprivate ?key|\bsecret ?key|\bpass(word|phrase)|\b2fa\b|\bone[- ]time (code|password)|\bverification code/i,
  },
  {
    rule: "urgency-wording",
    what: "pushes for haste",
    pattern:
      /\burgent(ly)?\b|\bimmediately\b|\bact now\b|\basap\b|\bfinal (notice|warning)\b|\baccount (will be |is |has been )?(suspended|locked|frozen|closed)\b|\bwithin \d+ (minutes?|mins?|hours?)\b/i,
  },
  {
    rule: "lure-wording",
    what: "reads like a scam lure",
    pattern:
      /\bdouble your\b|\bguaranteed (return|profit|yield)s?\b|\bclaim your (airdrop|reward|prize|tokens?)\b|\bgift ?cards?\b|\bverify your (wallet|account)\b|\bwallet (verification|validation|sync)\b/i,
  },
];

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export const safetyRules: readonly Rule[] = [
  {
    name: "zero-counterparty",
    check: (input) => (sameAddress(input.counterparty, zeroAddress) ? "counterparty is the zero address" : undefined),
  },
  {
    name: "own-address",
    check: (input) => {
      if (!paysCounterparty(input.kind)) return undefined;
      if (sameAddress(input.counterparty, input.bot)) return "payment goes to the bot's own address";
      if (sameAddress(input.counterparty, input.vault)) return "payment goes back to the vault itself";
      return undefined;
    },
  },
  {
    name: "approval-grant",
    check: (input) => {
      if (input.kind !== "execute" || input.selector === undefined) return undefined;
      const name = approvalSelectors.get(input.selector.toLowerCase());
      return name === undefined ? undefined : `call grants a token approval (${name})`;
    },
  },
  {
    name: "far-above-trigger",
    check: ({ usdValue, policy }) => {
      const limit = policy.aiTriggerThreshold * triggerMultipleLimit;
      if (policy.aiTriggerThreshold === 0n || usdValue <= limit) return undefined;
      return `${formatUsd(usdValue)} is over ${triggerMultipleLimit}× the AI trigger threshold (${formatUsd(policy.aiTriggerThreshold)})`;
    },
  },
  {
    name: "over-per-tx-limit",
    check: ({ usdValue, policy }) =>
      policy.maxPerTxAmount > 0n && usdValue > policy.maxPerTxAmount
        ? `${formatUsd(usdValue)} is over the per-transaction limit (${formatUsd(policy.maxPerTxAmount)})`
        : undefined,
  },
  ...wording.map(({ rule, what, pattern }) => ({
    name: rule,
    check: (input: ScanInput) => {
      const found = pattern.exec(statedText(input));
      return found === null ? undefined : `memo or metadata ${what} ("${found[0]}")`;
    },
  })),
];

export function reviewSafety(input: ScanInput): Verdict {
  return runRules("safety", safetyRules, input, () => "no safety concern found (counterparty, call, size and wording checked)");
}
