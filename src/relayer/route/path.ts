// Which path a checked request takes (DESIGN.md §7): owner's review, AI scan, or the fast path.
import { toFunctionSelector, type Address, type Hex } from "viem";
import type { RelayRequest } from "../../api/validate.ts";
import { approvalSelectors, type ScanReason } from "../ai/index.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import { kindOf } from "../kinds/index.ts";
import { selectorOf } from "../chain/selector.ts";
import { formatUsd } from "../usd.ts";

export type Path =
  | { path: "fast" }
  | { path: "scan"; reasons: ScanReason[] }
  | { path: "review"; heldBecause: string };

const selectors = (signatures: readonly string[]): ReadonlySet<string> => new Set(signatures.map((s) => toFunctionSelector(s)));

/** Calls that grant someone the right to move the vault's assets: always the owner's review. */
export const approvalGrantSelectors: ReadonlySet<string> = new Set(approvalSelectors.keys());

/**
 * ERC-721 and ERC-1155 transfers: always an AI scan, whatever the value; one that moves an NFT out
 * of the vault (seen in its trace, or by this selector when the node cannot trace) is the owner's.
 */
export const nftTransferSelectors = selectors([
  "safeTransferFrom(address,address,uint256)",
  "safeTransferFrom(address,address,uint256,bytes)",
  "safeTransferFrom(address,address,uint256,uint256,bytes)",
  "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
]);
// transferFrom(address,address,uint256) is shared by ERC-20 and ERC-721: an NFT transfer unless the
// target is a token the relayer knows as an ERC-20.
const transferFrom = toFunctionSelector("transferFrom(address,address,uint256)");

export function isNftTransfer(callData: Hex, target: Address, knownErc20s: ReadonlySet<string>): boolean {
  const selector = selectorOf(callData);
  if (selector === undefined) return false;
  if (nftTransferSelectors.has(selector)) return true;
  return selector === transferFrom && !knownErc20s.has(target.toLowerCase());
}

/**
 * Why the owner must decide this request whatever else holds, or undefined. The vault enforces
 * both on-chain (ReviewRequired): a bot whose config requires human review, and an approval grant,
 * which outlives the call, execute only with the owner's ReviewApproval. `found`: why the checks
 * found it must be the owner's, mostly what its call tree grants (grants.ts), wherever in the tree;
 * the selector below names a grant when nothing more precise was found.
 */
export function mandatoryReview(request: RelayRequest, snapshot: PolicySnapshot, found?: string): string | undefined {
  if (snapshot.config.requireHumanReview) return "the owner requires human review for this bot";
  if (found !== undefined) return found;
  const call = kindOf(request).call?.(request);
  const selector = call && selectorOf(call.data);
  if (selector !== undefined && approvalGrantSelectors.has(selector)) return "the call grants an approval over the vault's assets";
  return undefined;
}

/**
 * `found`: why the checks found the owner must decide it (what its call tree grants, grants.ts).
 * `unpriced`: why the owner must decide a call that moves what relay cannot price (an NFT, a token
 * with no feed: nft-outflows.ts). Its value against the caps and windows cannot be proven, so it is
 * held, never valued at $0 and never left to the agents alone.
 */
export function choosePath(
  request: RelayRequest,
  snapshot: PolicySnapshot,
  burst: boolean,
  knownErc20s: ReadonlySet<string>,
  found?: string,
  unpriced?: string,
): Path {
  const { config } = snapshot;
  const review = mandatoryReview(request, snapshot, found);
  if (review !== undefined) return { path: "review", heldBecause: review };
  if (unpriced !== undefined) return { path: "review", heldBecause: unpriced };
  if (!snapshot.priced) return { path: "review", heldBecause: "its USD value is unknown: a token it moves has no price feed, or the call names too many addresses to measure what it moves" };

  const reasons: ScanReason[] = [];
  if (config.aiTriggerThreshold > 0n && snapshot.usdValue >= config.aiTriggerThreshold) reasons.push("ai_threshold");
  if (burst) reasons.push("velocity_burst");
  if (config.requireAiVerification) reasons.push("ai_required");
  const call = kindOf(request).call?.(request);
  if (call && isNftTransfer(call.data, call.target, knownErc20s)) reasons.push("nft_transfer");
  return reasons.length > 0 ? { path: "scan", reasons } : { path: "fast" };
}

/** Words for the review queue: why the agents' scan did not approve, or why it was scanned. */
export function describeScan(reasons: readonly ScanReason[], usdValue: bigint, threshold: bigint): string {
  const words: Record<ScanReason, string> = {
    ai_threshold: `worth ${formatUsd(usdValue)} USD, at or above the AI trigger threshold of ${formatUsd(threshold)} USD`,
    velocity_burst: "more requests than a spending window allows (a burst)",
    ai_required: "the owner requires AI verification for this bot",
    nft_transfer: "an NFT transfer",
  };
  return reasons.map((r) => words[r]).join("; ");
}
