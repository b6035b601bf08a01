// An in-memory ReviewSource for the screen and command tests: held reviews in an array, decisions
// recorded, and switches to make the next calls fail as a lost session or an unreachable relayer would.
import { encodeFunctionData, erc20Abi, keccak256 } from "viem";
import { RelayApiError, RelayUnreachableError } from "../../../../packages/client/src/errors.ts";
import type { ReviewDecisionResponse, ReviewItem } from "../../../../packages/client/src/types.ts";
import type { CancelTarget, ReviewSource } from "../../../../src/cli/review/source.ts";
import type { RequestRecord } from "../../../../src/ledger/index.ts";
import { reviewItem } from "../../../../src/relayer/review/review-item.ts";

export const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const PAYEE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
export const VAULT = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
export const BOT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

/** A held payment of `usdc` USDC (6 decimals). */
export function heldPayment(id: string, usdc: number, extra: Partial<ReviewItem> = {}): ReviewItem {
  return {
    requestId: id,
    kind: "payment",
    status: "pending_review",
    chainId: 84532,
    vault: VAULT,
    bot: BOT,
    intentHash: `0x${"ab".repeat(32)}`,
    createdAt: 1_700_000_000_000,
    deadline: 1_700_000_300,
    heldBecause: "the owner requires human review for this bot",
    intent: { to: PAYEE, token: USDC, amount: String(usdc * 1_000_000) },
    usdValue: usdc,
    reviewExpiresAt: new Date(1_700_086_400_000).toISOString(),
    ...extra,
  };
}

export class MemorySource implements ReviewSource {
  reviews: ReviewItem[];
  readonly decisions: Array<{ id: string; action: "approve" | "reject"; reason?: string }> = [];
  signIns = 0;
  listCalls = 0;
  /** While true, every call fails as if the relayer were down. */
  down = false;

  constructor(reviews: ReviewItem[]) {
    this.reviews = reviews;
  }

  async signIn(): Promise<void> {
    this.#check();
    this.signIns += 1;
  }

  async list(): Promise<ReviewItem[]> {
    this.listCalls += 1;
    this.#check();
    return this.reviews.filter((r) => r.status === "pending_review");
  }

  async detail(id: string): Promise<ReviewItem> {
    this.#check();
    return this.#find(id);
  }

  async approve(id: string): Promise<ReviewDecisionResponse> {
    this.#check();
    const item = this.#decide(id, "approved");
    this.decisions.push({ id, action: "approve" });
    return { requestId: item.requestId, status: "approved", txHash: `0x${"12".repeat(32)}` };
  }

  async reject(id: string, reason: string): Promise<ReviewDecisionResponse> {
    this.#check();
    const item = this.#decide(id, "rejected");
    this.decisions.push({ id, action: "reject", reason });
    return { requestId: item.requestId, status: "rejected", reason };
  }

  #check(): void {
    if (this.down) throw new RelayUnreachableError("cannot reach the relayer at http://127.0.0.1:1/v1/reviews: ECONNREFUSED", { url: "http://127.0.0.1:1" });
  }

  #find(id: string): ReviewItem {
    const item = this.reviews.find((r) => r.requestId === id);
    if (item === undefined) throw new RelayApiError({ status: 404, code: "NOT_FOUND", message: `no review ${id}` });
    return item;
  }

  #decide(id: string, status: "approved" | "rejected"): ReviewItem {
    const item = this.#find(id);
    if (item.status !== "pending_review") {
      throw new RelayApiError({ status: 409, code: "REVIEW_ALREADY_DECIDED", message: `${id} is already ${item.status}` });
    }
    item.status = status;
    return item;
  }
}

/** A MemorySource that can also cancel on-chain (as with an owner key): cancels are recorded, or fail while `cancelFails`. */
export class CancellingSource extends MemorySource {
  readonly cancels: CancelTarget[] = [];
  cancelFails = false;

  async cancel(review: CancelTarget): Promise<`0x${string}`> {
    if (this.cancelFails) throw new Error("cancelIntent would revert: NotOwnerOrOperator()");
    this.cancels.push({ intentHash: review.intentHash, vault: review.vault, chainId: review.chainId });
    return `0x${"ca".repeat(32)}`;
  }
}

export const SPENDER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";

/**
 * A held `USDC.approve(SPENDER, usdc)` as the relayer's own item builder makes it (review-item.ts),
 * through JSON as on the wire; with `outflows` stored as the relayer stores them when given.
 */
export function heldApprove(id: string, usdc: bigint, options: { outflows?: Array<{ token: string; amount: string; usd: string }> } = {}): ReviewItem {
  const callData = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, usdc] });
  const intent = { bot: BOT, protocol: USDC, calldataHash: keccak256(callData), tokens: [], amounts: [], value: "0", deadline: "1700000300", ref: `0x${"01".repeat(32)}` };
  const body = { kind: "execute", intent, signature: `0x${"00".repeat(65)}`, callData, counterparty: USDC.toLowerCase(), ...(options.outflows ? { outflows: options.outflows } : {}) };
  const record: RequestRecord = {
    id,
    kind: "execute",
    chainId: 84532,
    vault: VAULT.toLowerCase(),
    bot: BOT.toLowerCase(),
    intentHash: `0x${"ab".repeat(32)}`,
    idempotencyKey: id,
    fingerprint: id,
    status: "held",
    usdValue: 0n,
    body: JSON.stringify(body),
    heldBecause: "the call grants an approval over the vault's assets",
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    deadline: 1_700_000_300n,
    reviewExpiresAt: 1_700_086_400_000,
  };
  const tokens = new Map([[USDC.toLowerCase(), { symbol: "USDC", decimals: 6 }]]);
  return JSON.parse(JSON.stringify(reviewItem(record, tokens))) as ReviewItem;
}
