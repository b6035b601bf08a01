// What the verification agents see of a request: a one-line summary, its USD value, memo, metadata
// and the other off-chain fields, why it is scanned, the bot's policy and its recent history from the ledger.
import type { StoreOps } from "../store.ts";
import type { ScanInput, ScanReason } from "../ai/index.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import { kindOf } from "../kinds/index.ts";
import { selectorOf } from "../chain/selector.ts";
import { tokenInfoOf, type TokenInfo } from "../chain/token-info.ts";
import { formatUsd } from "../usd.ts";
import { OFF_CHAIN_FIELD_NAMES } from "../../api/off-chain.ts";
import type { RelayRequest } from "../../api/validate.ts";
import { formatUnits } from "viem";
import { scannedValue, type CheckedSwapLeg } from "./swap-and-pay.ts";
import { fundingMerchant } from "../policy/x402-merchant.ts";

interface ScanSubject {
  request: RelayRequest;
  chain: ChainRuntime;
  snapshot: PolicySnapshot;
  /** A swap-and-pay's swap: the agents see it and its value as they would see it alone. */
  swapLeg?: CheckedSwapLeg;
}

export async function scanInput(subject: ScanSubject, store: StoreOps, reasons: readonly ScanReason[], tokens: ReadonlyMap<string, TokenInfo>): Promise<ScanInput> {
  const { request, snapshot, swapLeg } = subject;
  const kind = kindOf(request);
  const usdValue = scannedValue(snapshot, swapLeg);
  const swapped = swapLeg ? `, paid from a swap: ${summarize(swapLeg.swap, swapLeg.snapshot.usdValue, tokens)}` : "";
  // A funding payment goes to the bot's own key on its way to a merchant: the agents judge the
  // merchant (its history with this bot, whether it is known), as for a payment to it.
  const other = fundingMerchant(request) ?? kind.counterparty(request);
  const history = await store.botHistory(request.chainId, request.vaultAddress, request.intent.bot, other.toLowerCase());
  const dailyLimit = snapshot.config.spendingLimits.find((l) => l.windowSeconds === 86_400n)?.amount ?? 0n;
  const input: ScanInput = {
    kind: request.kind,
    chainId: request.chainId,
    vault: request.vaultAddress,
    bot: request.intent.bot,
    counterparty: other,
    summary: summarize(request, snapshot.usdValue, tokens) + swapped,
    usdValue,
    reasons: [...reasons],
    policy: { aiTriggerThreshold: snapshot.config.aiTriggerThreshold, maxPerTxAmount: snapshot.config.maxPerTxAmount, dailyLimit },
    history: {
      requests24h: history.requests24h,
      rejected24h: history.rejected24h,
      approvedUsd24h: history.approvedUsd24h,
      medianUsd: history.medianUsd,
      approvedCount: history.recentApproved,
      knownCounterparty: history.knownCounterparty,
    },
  };
  const call = kind.call?.(request);
  const selector = call && selectorOf(call.data);
  if (selector) input.selector = selector;
  if (request.memo !== undefined) input.memo = request.memo;
  if (request.metadata !== undefined) input.metadata = request.metadata;
  const offChain: Record<string, string> = {};
  for (const field of OFF_CHAIN_FIELD_NAMES) {
    const value = request[field];
    if (value !== undefined) offChain[field] = typeof value === "string" ? value : JSON.stringify(value);
  }
  if (Object.keys(offChain).length > 0) input.offChain = offChain;
  return input;
}

/** "pay 12000 USDC (12000 USD) to 0x…", "call 0x… (Marketplace)", "swap up to 5 WETH for ≥ 14000 USDC". */
export function summarize(request: RelayRequest, usdValue: bigint, tokens: ReadonlyMap<string, TokenInfo>): string {
  const human = (token: string, amount: bigint): string => {
    const info = tokenInfoOf(token, tokens);
    return info ? `${formatUnits(amount, info.decimals)} ${info.symbol}` : `${amount} units of ${token}`;
  };
  const merchant = fundingMerchant(request);
  const funds = merchant === undefined ? "" : `, funding an x402 payment to ${merchant}`;
  return kindOf(request).summary(request, `${formatUsd(usdValue)} USD`, human) + funds;
}
