// The owner's review queue: list, detail, approve (with the owner's ReviewApproval signature, which
// lets the vault execute even after the bot's deadline), reject, and expiry of undecided reviews.
// Only a vault's on-chain owner may see or decide its reviews.
import { getAddress, type Address, type Hex } from "viem";
import type { RelayRequest } from "../../api/validate.ts";
import { relayError } from "../../errors.ts";
import { hashIntent } from "../../eip712/hash.ts";
import { recoverSigner } from "../../eip712/recover.ts";
import { publicStatus, type RequestRecord } from "../../ledger/index.ts";
import type { Store } from "../store.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import type { Clocks } from "../clock.ts";
import type { Dispatcher } from "../submit/dispatcher.ts";
import type { SwapRoute } from "../chain/intents.ts";
import { executionCalldata, kindOf } from "../kinds/index.ts";
import { storeAnswer } from "../submit/responses.ts";
import { executeAndSettle } from "../submit/settle.ts";
import { reviewItem } from "./review-item.ts";
import type { StoredBody } from "../kinds/kind.ts";
import { gasLimitOf, simulate } from "../chain/simulate.ts";
import type { OnStep } from "../steps.ts";
import { readArtifact } from "../../chain/artifacts.ts";
import { faultPoint } from "../faults.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
/**
 * How long an owner's decision holds its claim on a review: past it, an instance that died while
 * deciding no longer blocks the review. Longer than an approval takes to be recorded for the chain
 * (the simulation, and the wait for the relayer key); once recorded the review is no longer held.
 */
const DECISION_CLAIM_MS = 180_000;

function undecidable(): Error {
  return relayError("REVIEW_ALREADY_DECIDED", "this review was already decided, or a decision on it is under way");
}
const MAX_REASON = 500;

export interface ReviewDeps {
  store: Store;
  chains: ReadonlyMap<number, ChainRuntime>;
  dispatcher: Dispatcher;
  /** Each chain's clock (clock.ts): a review's approval deadline is checked by its own chain's. */
  clocks: Clocks;
  /** Told how long an approved request's settle step took (steps.ts). */
  onStep?: OnStep;
  /**
   * Told after a rejection (the owner's or a lapse) commits: the on-chain cancels it queued in the
   * same transaction are sent then (submit/cancels.ts), without the answer waiting for them.
   */
  afterRejection?: () => void;
}

export class Reviews {
  readonly #deps: ReviewDeps;

  constructor(deps: ReviewDeps) {
    this.#deps = deps;
  }

  /** Held reviews of the vaults `owner` owns (optionally one chain or vault). */
  async list(owner: Address, filter: { chainId?: number; vault?: Address }): Promise<Record<string, unknown>[]> {
    await this.#expireLapsed();
    if (filter.vault && filter.chainId !== undefined) await this.#requireOwner(owner, filter.chainId, filter.vault);
    const records = await this.#deps.store.listReviews({ chainId: filter.chainId, vault: filter.vault });
    const owned = new Map<string, boolean>();
    const out: Record<string, unknown>[] = [];
    for (const record of records) {
      const key = `${record.chainId}:${record.vault}`;
      if (!owned.has(key)) owned.set(key, (await this.#ownerOf(record.chainId, record.vault as Address)) === owner.toLowerCase());
      if (owned.get(key)) out.push(this.#item(record));
    }
    if (filter.vault && out.length === 0 && records.length > 0) throw relayError("NOT_VAULT_OWNER", "only the vault's owner may list its reviews");
    return out;
  }

  async detail(owner: Address, requestId: string): Promise<Record<string, unknown>> {
    await this.#expireLapsed();
    const record = await this.#held(requestId);
    await this.#requireOwner(owner, record.chainId, record.vault as Address);
    return this.#item(record);
  }

  /** Approves: verify the owner's ReviewApproval, simulate again, execute; answers the request's response. */
  async approve(owner: Address, requestId: string, approval: { deadline: bigint; signature: Hex }): Promise<Record<string, unknown>> {
    await this.#expireLapsed();
    const record = await this.#held(requestId);
    const chain = this.#chain(record.chainId);
    const vault = record.vault as Address;
    await this.#requireOwner(owner, record.chainId, vault);
    this.#requireUndecided(record);
    // The vault checks the approval's deadline against its own chain's time, as this does.
    const nowSeconds = BigInt(Math.floor(this.#deps.clocks.of(record.chainId).now() / 1000));
    if (approval.deadline <= nowSeconds) throw relayError("DEADLINE_EXPIRED", "approval.deadline has passed");
    const domain = await chain.domainOf(vault);
    const digest = hashIntent("review", domain, { intentHash: record.intentHash as Hex, deadline: approval.deadline });
    let signer: Address;
    try {
      signer = recoverSigner(digest, approval.signature);
    } catch (error) {
      throw relayError("INVALID_SIGNATURE", `approval.signature: ${(error as Error).message}`);
    }
    if (signer.toLowerCase() !== owner.toLowerCase()) throw relayError("INVALID_SIGNATURE", "approval.signature is not the owner's ReviewApproval for this request");

    // One decision at a time, whatever instance it reaches: claimed in the store, atomically.
    await this.#claim(requestId);
    let sent = false;
    try {
      const stored = JSON.parse(record.body) as StoredBody;
      const request = revive(stored);
      const data = executionCalldata(request, stored.route as SwapRoute | undefined, approval);
      const from = this.#deps.dispatcher.signerFor(record.chainId, vault);
      // The chain's latest block, not the client's cached number: the approval is simulated on the
      // state it will execute against.
      const block = await chain.clients.publicClient.getBlockNumber({ cacheTime: 0 });
      const sim = await simulate(chain, { from, to: vault, data, blockNumber: block, estimate: !kindOf(request).batched?.(request) });
      const job = { requestId, vault, data, gas: gasLimitOf(sim), intentHash: record.intentHash as Hex };
      const unconfirmed = "the approval was recorded and sent, but the node did not confirm it yet; check the request's status";
      sent = true;
      return JSON.parse(await executeAndSettle(this.#deps, record, record.chainId, job, {}, unconfirmed));
    } catch (error) {
      const now = await this.#deps.store.getRequest(requestId);
      // Decided meanwhile without this approval (the review lapsed): nothing of this one was sent.
      if (sent && now && now.status === "rejected" && !now.txHash) throw relayError("REVIEW_ALREADY_DECIDED", `this review is already ${publicStatus(now.status)}`);
      // Nothing recorded for the chain: the review stays held, for this owner to try again.
      if (now?.status === "held") await this.#deps.store.releaseReview(requestId);
      throw error;
    }
  }

  async reject(owner: Address, requestId: string, reason: unknown): Promise<Record<string, unknown>> {
    if (typeof reason !== "string" || reason.trim() === "") throw relayError("INVALID_REQUEST", "reason is required");
    if (reason.length > MAX_REASON) throw relayError("INVALID_REQUEST", `reason must be at most ${MAX_REASON} characters`);
    await this.#expireLapsed();
    const record = await this.#held(requestId);
    await this.#requireOwner(owner, record.chainId, record.vault as Address);
    this.#requireUndecided(record);
    // The claim, the refusal and its answer commit together: refused while an approval is under way.
    const text = await this.#deps.store.transaction(async (tx) => {
      if (!(await tx.claimReview(requestId, this.#claimUntil()))) throw undecidable();
      const updated = await tx.rejectReview(requestId, reason);
      if (!updated) throw relayError("REVIEW_ALREADY_DECIDED", "this review was already decided");
      return storeAnswer(tx, updated);
    });
    faultPoint("after-rejection");
    this.#deps.afterRejection?.();
    return JSON.parse(text);
  }

  /** Rejects undecided reviews whose window has ended, each by its own chain's clock; returns how many. */
  async expire(): Promise<number> {
    const n = await this.#deps.store.transaction(async (tx) => {
      const expired = await tx.expireReviews();
      for (const record of expired) await storeAnswer(tx, record);
      return expired.length;
    });
    if (n > 0) this.#deps.afterRejection?.();
    return n;
  }

  /** Pending reviews (for metrics). */
  async pendingCount(): Promise<number> {
    return (await this.#deps.store.listReviews({})).length;
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** Lapses the reviews whose window ended before one is read or decided (their cancels then go out). */
  async #expireLapsed(): Promise<void> {
    if ((await this.#deps.store.expireReviews()).length > 0) this.#deps.afterRejection?.();
  }

  async #held(requestId: string): Promise<RequestRecord> {
    const record = await this.#deps.store.getRequest(requestId);
    if (!record || record.heldBecause === undefined) throw relayError("NOT_FOUND", `no review ${requestId}`);
    return record;
  }

  /** Claims the review for this decision (Store.claimReview), or refuses: decided, or a decision is under way. */
  async #claim(requestId: string): Promise<void> {
    if (!(await this.#deps.store.claimReview(requestId, this.#claimUntil()))) throw undecidable();
  }

  /**
   * Until when a decision's claim holds: by the store's wall clock, which the store compares it
   * with. A claim bounds how long a decision under way may take, real time whatever the chain's.
   */
  #claimUntil(): number {
    return this.#deps.store.now() + DECISION_CLAIM_MS;
  }

  #requireUndecided(record: RequestRecord): void {
    if (record.status !== "held") throw relayError("REVIEW_ALREADY_DECIDED", `this review is already ${publicStatus(record.status)}`);
  }

  #chain(chainId: number): ChainRuntime {
    const chain = this.#deps.chains.get(chainId);
    if (!chain) throw relayError("INVALID_CHAIN_ID", `chain ${chainId} is not served`);
    return chain;
  }

  async #ownerOf(chainId: number, vault: Address): Promise<string> {
    const chain = this.#chain(chainId);
    const owner = (await chain.clients.publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "owner" })) as Address;
    return owner.toLowerCase();
  }

  async #requireOwner(owner: Address, chainId: number, vault: Address): Promise<void> {
    if ((await this.#ownerOf(chainId, vault)) !== owner.toLowerCase()) {
      throw relayError("NOT_VAULT_OWNER", `only the owner of vault ${getAddress(vault)} may do this`);
    }
  }

  /** A review as the owner sees it (review-item.ts). */
  #item(record: RequestRecord): Record<string, unknown> {
    return reviewItem(record, this.#deps.dispatcher.tokenInfo(record.chainId));
  }
}

const bigintFields = new Set(["amount", "deadline", "value", "minToAmount", "maxFromAmount"]);

/** The stored body back as a request (bigints restored). */
function revive(stored: StoredBody): RelayRequest {
  const swap = (stored as { swap?: { intent: Record<string, unknown>; signature: string } }).swap;
  const revived = { ...stored, intent: reviveIntent(stored.intent) };
  // A swap-and-pay's swap (swap-and-pay.ts) has its own intent.
  return (swap ? { ...revived, swap: { ...swap, intent: reviveIntent(swap.intent) } } : revived) as unknown as RelayRequest;
}

function reviveIntent(stored: Record<string, unknown>): Record<string, unknown> {
  const intent: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) {
    intent[k] = bigintFields.has(k) ? BigInt(v as string) : k === "amounts" ? (v as string[]).map(BigInt) : v;
  }
  return intent;
}
