// Reserving a request's USD value in its rolling spend windows, inside the transaction that records
// it (relayer.ts): two requests together above a limit can never both pass.
import type { RelayRequest } from "../../api/validate.ts";
import { relayError } from "../../errors.ts";
import { bucketAvailableAt, type PolicySnapshot, type SpendBucket } from "../chain/snapshot.ts";
import type { StoreOps } from "../store.ts";
import { formatUsd } from "../usd.ts";

/**
 * Payments and executes: the bot's and the vault's windows (403 EXCEEDS_DAILY_LIMIT for a 86400 s
 * window, else EXCEEDS_VELOCITY_LIMIT). `burst`: a window's maxCount was passed, which is scanned.
 */
export async function reservePaymentWindows(tx: StoreOps, request: RelayRequest, snapshot: PolicySnapshot, requestId: string, nowSeconds?: bigint): Promise<{ burst: boolean }> {
  const reserved = await tx.reserveSpend(
    { chainId: request.chainId, vault: request.vaultAddress, bot: request.intent.bot, requestId, usd: snapshot.usdValue },
    { botLimits: snapshot.config.spendingLimits, vaultLimits: snapshot.vaultLimits },
  );
  if (!reserved.ok) {
    const scope = reserved.scope === "bot" ? "the bot's" : "the vault's";
    throw relayError(reserved.code, `${scope} limit of ${formatUsd(reserved.limit.amount)} USD per ${reserved.limit.windowSeconds} s has ${formatUsd(reserved.remaining)} USD left`);
  }
  if (nowSeconds !== undefined) await checkBucketsPending(tx, request, snapshot, nowSeconds, "spend");
  return { burst: reserved.burst };
}

/**
 * A swap's value counts against the bot's swap volume window, which the owner sets on-chain
 * (setBotSwapLimit). Swaps keep their own windows, apart from payments and executes: the ledger's
 * spend scope for them is the vault's address with a `#swap` suffix. A swap-and-pay counts twice,
 * as what it is: its payment in the payment windows, its swap here (swap-and-pay.ts reserveSwapLeg).
 */
export async function reserveSwapVolume(tx: StoreOps, request: RelayRequest, snapshot: PolicySnapshot, requestId: string, nowSeconds?: bigint): Promise<{ burst: boolean }> {
  const limit = snapshot.swapLimit;
  if (limit.amount === 0n || limit.windowSeconds === 0n) return { burst: false };
  const reserved = await tx.reserveSpend(
    { chainId: request.chainId, vault: `${request.vaultAddress}#swap`, bot: request.intent.bot, requestId, usd: snapshot.usdValue },
    { botLimits: [{ amount: limit.amount, maxCount: 0n, windowSeconds: limit.windowSeconds }], vaultLimits: [] },
  );
  if (!reserved.ok) {
    throw relayError("EXCEEDS_REBALANCE_LIMIT", `the bot's swap volume limit of ${formatUsd(limit.amount)} USD per ${limit.windowSeconds} s has ${formatUsd(reserved.remaining)} USD left`);
  }
  if (nowSeconds !== undefined) await checkBucketsPending(tx, request, snapshot, nowSeconds, "swap");
  return { burst: false };
}

/**
 * The vault's own spend buckets (contracts/vault/VaultBuckets.sol), read through the lens at the
 * snapshot's block and brought to `nowSeconds` (the request's chain's clock) with the vault's own
 * arithmetic: a request one of them would refuse now is refused here, before it is simulated or
 * sent, with the code its window has in the ledger (a payment's or an execute's: 403
 * EXCEEDS_DAILY_LIMIT for a 86400 s bucket, else EXCEEDS_VELOCITY_LIMIT; a swap's, or a
 * swap-and-pay's swap leg: 403 EXCEEDS_REBALANCE_LIMIT). Its message is the window's, with what the
 * vault's bucket has left: the same words whichever of the two refuses when they agree. A bucket
 * never refuses what the ledger's rolling window allows at the same times and prices, but it may hold
 * less than the window thinks when transactions executed later than they were reserved, prices
 * moved, or a key outside this relayer spent (docs/design.md, "Spend windows on-chain"); requests
 * reserved since the snapshot's block are counted against it at the record step (reserve* above).
 */
export function checkSpendBuckets(request: RelayRequest, snapshot: PolicySnapshot, nowSeconds: bigint, swapLeg?: { snapshot: PolicySnapshot }): void {
  checkBucketsNow(request.kind === "swap" ? "swap" : "spend", snapshot, nowSeconds);
  if (swapLeg) checkBucketsNow("swap", swapLeg.snapshot, nowSeconds);
}

function checkBucketsNow(which: "spend" | "swap", snapshot: PolicySnapshot, nowSeconds: bigint): void {
  for (const { bucket, scope, code } of bucketsOf(which, snapshot)) {
    const available = bucketAvailableAt(bucket, snapshot.timestamp, nowSeconds);
    if (snapshot.usdValue > available) throw bucketRefusal(code, scope, bucket, available);
  }
}

/**
 * At the record step, after the ledger reserved the request: this request and those reserved after
 * the second of the snapshot's block (so not in the block the buckets were read at) must fit in
 * each bucket as it stands now. Throws, undoing the record's transaction, when they do not. Requests
 * reserved within the block's own second may or may not be in it and are not counted (a block's
 * transactions were reserved before it was built, mostly in that second): two requests checked in
 * that one second against a bucket lower than the ledger's window (lag, a price move, a spend by a
 * key outside this relayer) may together find it short, and the second then fails on-chain alone
 * (a batch item) or in its simulation before it is sent.
 */
async function checkBucketsPending(tx: StoreOps, request: RelayRequest, snapshot: PolicySnapshot, nowSeconds: bigint, which: "spend" | "swap"): Promise<void> {
  const since = nowSeconds - snapshot.timestamp - 1n;
  for (const { bucket, scope, code } of bucketsOf(which, snapshot)) {
    const available = bucketAvailableAt(bucket, snapshot.timestamp, nowSeconds);
    const vault = which === "swap" ? `${request.vaultAddress}#swap` : request.vaultAddress;
    const pending = since > 0n
      ? (await tx.spentInWindow({ chainId: request.chainId, vault, bot: scope === "vault" ? undefined : request.intent.bot, windowSeconds: since })).usd
      : snapshot.usdValue;
    if (pending > available) throw bucketRefusal(code, scope, bucket, available);
  }
}

type BucketCode = "EXCEEDS_DAILY_LIMIT" | "EXCEEDS_VELOCITY_LIMIT" | "EXCEEDS_REBALANCE_LIMIT";

function bucketsOf(which: "spend" | "swap", snapshot: PolicySnapshot): { bucket: SpendBucket; scope: "bot" | "vault" | "swap"; code: BucketCode }[] {
  if (which === "swap") return snapshot.swapBucket[1] === 0n ? [] : [{ bucket: snapshot.swapBucket, scope: "swap", code: "EXCEEDS_REBALANCE_LIMIT" }];
  const code = (b: SpendBucket): BucketCode => (b[0] === 86_400n ? "EXCEEDS_DAILY_LIMIT" : "EXCEEDS_VELOCITY_LIMIT");
  return [
    ...snapshot.botBuckets.map((bucket) => ({ bucket, scope: "bot" as const, code: code(bucket) })),
    ...snapshot.vaultBuckets.map((bucket) => ({ bucket, scope: "vault" as const, code: code(bucket) })),
  ];
}

function bucketRefusal(code: BucketCode, scope: "bot" | "vault" | "swap", [windowSeconds, cap]: SpendBucket, available: bigint) {
  const what = scope === "swap" ? "the bot's swap volume limit" : `${scope === "bot" ? "the bot's" : "the vault's"} limit`;
  return relayError(code, `${what} of ${formatUsd(cap)} USD per ${windowSeconds} s has ${formatUsd(available)} USD left`);
}
