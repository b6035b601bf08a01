// A held request as its vault's owner sees it in the review queue: the intent in base and human units,
// its USD value, memo and the other off-chain fields, why it was held, the agents' verdicts, and for
// an execute what the call does (decoded calldata) and what the simulation saw leave the vault.
import { formatUnits, getAddress, type Address, type Hex } from "viem";
import { OFF_CHAIN_FIELD_NAMES, type OffChainFields } from "../../api/off-chain.ts";
import type { RelayRequest } from "../../api/validate.ts";
import { publicStatus, type RequestRecord } from "../../ledger/index.ts";
import { kindOf } from "../kinds/index.ts";
import type { StoredBody } from "../kinds/kind.ts";
import { tokenInfoOf, type TokenInfo } from "../chain/token-info.ts";
import { usdNumber } from "../usd.ts";

/** `tokens`: the chain's known tokens by lower-case address (dispatcher.tokenInfo). */
export function reviewItem(record: RequestRecord, tokens: ReadonlyMap<string, TokenInfo>): Record<string, unknown> {
  const stored = JSON.parse(record.body) as StoredBody;
  const human = (token: string, amount: string) => {
    const info = tokenInfoOf(token, tokens);
    return info ? { token, symbol: info.symbol, decimals: info.decimals, amount, human: formatUnits(BigInt(amount), info.decimals) } : { token, amount };
  };
  const intent = stored.intent;
  const kind = kindOf(record.kind);
  const amounts = kind.reviewAmounts(intent).map(([token, amount]) => human(token, amount));
  const item: Record<string, unknown> = {
    requestId: record.id,
    kind: record.kind,
    status: publicStatus(record.status),
    chainId: record.chainId,
    vault: getAddress(record.vault),
    bot: getAddress(record.bot),
    intentHash: record.intentHash,
    createdAt: new Date(record.createdAt).toISOString(),
    deadline: record.deadline.toString(),
    reviewExpiresAt: record.reviewExpiresAt === undefined ? undefined : new Date(record.reviewExpiresAt).toISOString(),
    heldBecause: record.heldBecause,
    intent,
    amounts,
    counterparty: stored.counterparty,
    usdValue: usdNumber(record.usdValue),
    agents: record.agents ? JSON.parse(record.agents) : [],
  };
  Object.assign(item, kind.reviewExtras?.(stored, { tokens, vault: record.vault as Address, human }));
  if (record.reason) item.reason = record.reason;
  if (record.txHash) item.txHash = record.txHash;
  if (stored.memo !== undefined) item.memo = stored.memo;
  if (stored.metadata !== undefined) item.metadata = stored.metadata;
  if (stored.protocolName !== undefined) item.protocolName = stored.protocolName;
  for (const field of OFF_CHAIN_FIELD_NAMES) if (stored[field] !== undefined) item[field] = stored[field];
  return item;
}
