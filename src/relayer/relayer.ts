// The request spine. A signed intent goes through these named steps, in DESIGN.md §7's order:
//
//   validate → idempotency → signature (on the vault's cached domain, before any chain read) → read
//   (vault, policy snapshot at one block) → vault exists → rate limit → deadline → bot active → pause
//   → terms → replay (also an intent the owner refused or cancelled) → policy → balance, or a
//   swap-and-pay's swap (route/swap-and-pay.ts) → simulate (same block; an execute is then valued by
//   what it moves, chain/outflows.ts; every call but a plain payment's is traced once, for what it
//   grants, chain/grants.ts, and for what no feed prices, chain/nft-outflows.ts) → record (the
//   idempotency key's claim + duplicate check + spend windows, a swap-and-pay's swap in the swap
//   window, one transaction) → path (a swap-and-pay's the stricter of its payment's and its swap's)
//   → [scan] → submit → answer
//
// Where each step is. The stage folders, lowest first: ai/, chain/, policy/, kinds/, submit/,
// intake/, route/, review/; each imports only from those before it and the shared files beside this
// one (test/app/layers.test.ts), and opens with a README.md or an index comment.
//
//   validate        src/api/validate.ts
//   idempotency     here, on the store (store.ts): the key looked up (a read) before the checks,
//                   claimed in the record's transaction
//   signature, vault exists, deadline, bot active, pause, balance    intake/checks.ts
//   read            chain/read-batcher.ts (one policy-lens call, chain/chain-runtime.ts)
//   rate limit      rate-limiter.ts
//   terms           intake/terms.ts
//   replay          intake/checks.ts (executed or cancelled on-chain); here (the owner's refusals,
//                   and the ledger's check in the record's transaction)
//   policy          policy/ (its rules in order, policy/index.ts; a funding payment's merchant,
//                   x402Funding.payTo, policy/x402-merchant.ts; an x402 authorization's window,
//                   nonce and digest, policy/x402-authorization.ts)
//   swap-and-pay    route/swap-and-pay.ts; SWAP_REQUIRED kinds/swap-required.ts
//   simulate        chain/simulate.ts, chain/outflows.ts, chain/grants.ts, chain/nft-outflows.ts
//   record          here: each kind's reserve (kinds/) on policy/spend-windows.ts, one transaction
//   path            route/path.ts
//   scan            route/scan-input.ts → ai/
//   submit          submit/settle.ts → submit/dispatcher.ts → submit/submitter.ts
//   answer          submit/responses.ts
//   review          review/reviews.ts (the owner's queue for a held request)
//
// The ledger's replay check runs in the record's transaction; a request that fails a step between
// the two is looked up before its error is answered, so the errors still come in that order.
//
// On a devnet, `metadata.scenario` (intake/scenarios.ts) is parsed once, up front, and forces its
// outcome at the step it imitates: rate limit, simulate, just before record (rpc-error-once), or
// path; never past a review the request takes anyway, which is the owner's alone (scenarioPath).
//
// A payment the vault cannot cover in its token but could through a swap from another token leaves
// the spine at the balance step: it is answered 200 rejected SWAP_REQUIRED (kinds/swap-required.ts).
//
// What differs between payments, executes and swaps is asked of the request's kind descriptor
// (kinds/); the policy step runs the ordered rules of policy/.
//
// Cheap synchronous checks come first; the chain is read once (the policy lens) and simulated once,
// together with other requests under way (chain/read-batcher.ts).
// From its signature check on, a plain payment is on its way to its relayer key's queue: a batch of
// its vault about to be sent waits a little for it (submit/submitter.ts).
// A request is recorded before any transaction for it is signed, and made durable with that signed
// transaction before it is broadcast (submit/submitter.ts); every 200 answer is stored with the
// request and under its idempotency key, so replays are byte-for-byte identical.
//
// The idempotency key's lookup, the checks and the record are timed for relay_step_duration_seconds, as
// are the transaction's steps (submit/submitter.ts) and the settle (submit/settle.ts): see steps.ts.
import { zeroHash, type Address, type Hex } from "viem";
import { validateBody, type HeaderBag, type RelayRequest } from "../api/validate.ts";
import { requestFingerprint } from "../api/fingerprint.ts";
import { stringifyWithBigints } from "../api/bigint-json.ts";
import { relayError, isRelayError, sanitizeDetails, type RelayError } from "../errors.ts";
import type { IntentKind } from "../../packages/client/src/intent-types.ts";
import type { RequestRecord } from "../ledger/index.ts";
import type { KeyState, Store, StoreOps } from "./store.ts";
import { admitUnauthenticated, chargeFailure, spendUnauthenticated, takeOrThrow, type RateLimiter } from "./rate-limiter.ts";
import type { Scanner } from "./ai/index.ts";
import { aiScenarioOf, FailedOnce, FORCED, parseScenario, selfDecidingHold, type Scenario } from "./intake/scenarios.ts";
import type { Decision, SelfDecidingReviews } from "./review/self-review.ts";
import type { ChainRuntime } from "./chain/chain-runtime.ts";
import type { PolicySnapshot } from "./chain/snapshot.ts";
import type { Clocks } from "./clock.ts";
import { checkBalance, checkBotAndVault, checkDeadline, checkSignature, checkVaultExists, intentHashOf } from "./intake/checks.ts";
import { checkPolicy, checkValue } from "./policy/index.ts";
import { unpricedTokens, type Outflow } from "./chain/outflows.ts";
import type { RelayerConfig } from "./config.ts";
import type { SwapRoute } from "./chain/intents.ts";
import { executionCalldata, kindOf, snapshotQuery, type KindDescriptor } from "./kinds/index.ts";
import type { SwapRequired } from "./kinds/kind.ts";
import { choosePath, describeScan, isNftTransfer, mandatoryReview, type Path } from "./route/path.ts";
import { selectorOf } from "./chain/selector.ts";
import { traceCall, type CallTrace } from "./chain/call-trace.ts";
import { describeGrants, grantsIn, newGrants } from "./chain/grants.ts";
import { tokenOutflowsIn, unpricedHold, unpricedOutflowsIn, untracedNftHold, type UnpricedOutflow } from "./chain/nft-outflows.ts";
import { moveWithAnswer, responseOf, storeAnswer, type AnswerExtras } from "./submit/responses.ts";
import { executeAndSettle } from "./submit/settle.ts";
import { gasLimitOf, PAYMENT_GAS, simulate, stoppedAtAiGate, stoppedAtReviewGate, type SimulationOk } from "./chain/simulate.ts";
import { VERDICT_SECONDS, type VerdictPanel } from "./ai/verdicts.ts";
import { packVerdicts, type SignedVerdict } from "../eip712/verdict.ts";
import { vaultAbi } from "./chain/intents.ts";
import { rpcFailure } from "./rpc-errors.ts";
import type { Dispatcher } from "./submit/dispatcher.ts";
import { scanInput } from "./route/scan-input.ts";
import { faultPoint } from "./faults.ts";
import { ReadBatcher, type PinnedRead } from "./chain/read-batcher.ts";
import type { Terms } from "./intake/terms.ts";
import { newRequestId } from "../ledger/index.ts";
import { checkSpendBuckets } from "./policy/spend-windows.ts";
import { checkSwapLeg, isSwapAndPay, reserveSwapLeg, scannedValue, swapAndPayPath, type CheckedSwapLeg } from "./route/swap-and-pay.ts";
import { timed, type OnStep } from "./steps.ts";

export interface RelayerParts {
  config: RelayerConfig;
  store: Store;
  chains: ReadonlyMap<number, ChainRuntime>;
  dispatcher: Dispatcher;
  rateLimiter: RateLimiter;
  scanner: Scanner;
  /**
   * The panel whose agents sign verdicts for a request the vault holds for the AI scan (ai/verdicts.ts):
   * in this process, or `relay agents`. Without one such a request is held for the owner's review.
   */
  panel?: VerdictPanel;
  /** Each chain's clock (clock.ts): the wall clock, or on a devnet that chain's time. */
  clocks: Clocks;
  /** Decides `review-approve` / `review-reject` scenarios (devnet only, self-review.ts). */
  selfReviews?: SelfDecidingReviews;
  /** The relayer's terms of service; without it (or with no terms configured) nothing is required. */
  terms?: Terms;
  onOutcome?: (kind: IntentKind, outcome: string) => void;
  /** Told of each AI scan's result (relay_ai_scans_total). */
  onAiScan?: (result: "approved" | "no_consensus" | "timeout") => void;
  /** Told how long each step of a request took (steps.ts; relay_step_duration_seconds). */
  onStep?: OnStep;
  /**
   * Other relayer instances share the store: a claimed idempotency key this instance is not running
   * may be running on another one. One that claims before its checks (a relay of an earlier release,
   * during a rolling upgrade) has recorded nothing yet while it checks the request.
   */
  sharedStore?: boolean;
  /**
   * Told of each unexpected failure answered 500 INTERNAL_ERROR, as one line naming its cause (URLs
   * removed: an RPC URL may embed an API key), so an operator can see why without the client seeing it.
   */
  log?: (line: string) => void;
}

/** Longest pause between two looks at an idempotency key another instance is running. */
const SHARED_CLAIM_POLL_MAX_MS = 250;

/**
 * A plain payment on its way to its relayer key's queue, from its signature check on: a batch of its
 * vault about to be sent waits for it a little (Submitter.onItsWay). `arrived` is set then, and called
 * once the payment is queued or leaves the fast path (held, scanned, refused, failed).
 */
interface OnItsWay {
  arrived?: () => void;
}

/** Whether a window's maxCount was passed (scanned, not refused): the request's, and a swap-and-pay's swap's. */
interface Bursts {
  request: boolean;
  swap: boolean;
}

/** A request that passed every check, with what later steps need. */
interface Checked {
  request: RelayRequest;
  way: OnItsWay;
  chain: ChainRuntime;
  intentHash: Hex;
  snapshot: PolicySnapshot;
  route?: SwapRoute;
  data: Hex;
  gas: bigint;
  /** The simulation's outcome; undefined for a request held at the vault's review gate. */
  sim?: SimulationOk;
  /** The devnet's forced outcome (`metadata.scenario`, scenarios.ts), if any. */
  scenario?: Scenario;
  /** A review-approve / review-reject scenario: who decides the held request, how, and when. */
  selfReview?: { owner: Address; decision: Decision; seconds: number };
  /** An execute's measured outflows (outflows.ts), where the node could measure them. */
  outflows?: Outflow[];
  /** Why the owner must decide it, from what its call tree grants (grants.ts) or the vault's review gate. */
  review?: string;
  /** What an execute moves out of the vault that relay cannot price (nft-outflows.ts), if anything. */
  unpriced?: UnpricedOutflow[];
  /** Why the owner must decide it for that (path.ts), if so. */
  unpricedHold?: string;
  /** A payment the vault holds too little of, which these swaps would cover: answered SWAP_REQUIRED. */
  swapRequired?: SwapRequired;
  /** A swap-and-pay's swap (swap-and-pay.ts). */
  swapLeg?: CheckedSwapLeg;
  /** The simulation stopped at the vault's AI hold: it executes only with verdicts or the owner's approval. */
  aiGate?: boolean;
  /** The request's chain's time when it was checked (seconds): the vault's buckets are brought to it. */
  nowSeconds?: bigint;
}

export class Relayer {
  readonly #parts: RelayerParts;
  readonly #supported: ReadonlySet<number>;
  /**
   * Work under way per idempotency key (`kind:key`), with its request's fingerprint: a same-key
   * request joins the first, from before the key is looked up until its outcome.
   */
  readonly #running = new Map<string, { fingerprint: string; work: Promise<string> }>();
  /** Per chain: the coalesced policy reads and payment simulations. */
  readonly #reads: ReadonlyMap<number, ReadBatcher>;
  /** Intents that already had their one forced RPC_ERROR (scenario rpc-error-once). */
  readonly #failedOnce = new FailedOnce();
  #draining = false;

  constructor(parts: RelayerParts) {
    this.#parts = parts;
    this.#supported = new Set(parts.chains.keys());
    this.#reads = new Map(
      [...parts.chains].map(([chainId, chain]) => [
        chainId,
        new ReadBatcher(chain, (vault) => parts.dispatcher.signerFor(chainId, vault), { maxBatch: parts.config.maxBatchSize }),
      ]),
    );
  }

  /**
   * Shutting down: same-key requests waiting for an earlier run's outcome stop waiting and get 503
   * (the outcome is settled after the restart, where a retry gets it). Work under way finishes.
   */
  drain(): void {
    this.#draining = true;
  }

  /** POST /v1/payments, /v1/execute, /v1/swap: the 200 body's exact JSON text, or a thrown RelayError. */
  async submit(kind: IntentKind, body: unknown, headers: HeaderBag, client: string): Promise<string> {
    const request = validateBody(kind, body, headers, { supportedChainIds: this.#supported });
    const fingerprint = requestFingerprint(request);
    const key = `${kind}:${request.idempotencyKey}`;
    const local = this.#running.get(key);
    if (local?.fingerprint === fingerprint) return local.work;
    // Other data under a key this process is running: 409, unless the key's stored answer is this request's.
    if (local) return this.#serve(request, fingerprint, client, { keyTaken: true });
    const work = this.#serve(request, fingerprint, client).finally(() => this.#running.delete(key));
    this.#running.set(key, { fingerprint, work });
    return work;
  }

  /**
   * Answers a request from its idempotency key's state, or runs it. The key is looked up with a
   * plain read (nothing written): a stored answer is replayed, other data under it is a conflict, a
   * run under way elsewhere is waited for; a free key is claimed only in the record's transaction,
   * with the request (#record), so that a request that fails before it writes nothing. Should
   * another instance take the key meanwhile, its claim is followed as if it had been found here.
   * `keyTaken`: a run of other data holds the key in this process (a free key is then a conflict).
   */
  async #serve(request: RelayRequest, fingerprint: string, client: string, options: { keyTaken?: boolean } = {}): Promise<string> {
    const { kind, idempotencyKey } = request;
    const waitUntil = Date.now() + this.#parts.config.receiptTimeoutMs;
    for (let pauseMs = 10; ; pauseMs = Math.min(2 * pauseMs, SHARED_CLAIM_POLL_MAX_MS)) {
      let state = await timed(this.#parts.onStep, "idempotency", () => this.#parts.store.lookupIdempotency(kind, idempotencyKey, fingerprint));
      if (state.outcome === "free") {
        if (options.keyTaken) state = { outcome: "conflict" };
        else {
          const ran = await this.#run(request, fingerprint, client);
          if (typeof ran === "string") return ran;
          state = ran;
        }
      }
      const answer = await this.#follow(request, state, { pauseMs, waitUntil });
      if (answer !== undefined) return answer;
    }
  }

  /**
   * The answer of a key another request holds: its stored answer (replay), 409 (other data), or,
   * while that request runs (in flight), its outcome once settled. Undefined when the key should be
   * looked at again: another instance still checks its request (nothing recorded yet: a claim from
   * an instance that claims before its checks), or the key was freed (its run failed, or it was an
   * orphan: see #awaitOrphan).
   */
  async #follow(request: RelayRequest, state: Exclude<KeyState, { outcome: "free" }>, wait: { pauseMs: number; waitUntil: number }): Promise<string | undefined> {
    switch (state.outcome) {
      case "replay":
        return state.response;
      case "conflict":
        throw relayError("IDEMPOTENCY_CONFLICT", "this idempotencyKey was used for a different request; use a new key");
      case "in_flight": {
        // A key nobody records for until the wait ends is an orphan (below).
        if (this.#parts.sharedStore && Date.now() < wait.waitUntil && !(await this.#parts.store.getRequest(state.requestId))) {
          if (this.#draining) throw relayError("SERVICE_UNAVAILABLE", "the relayer is shutting down; retry with the same idempotencyKey", { retryAfterSeconds: 1 });
          await new Promise((resolve) => setTimeout(resolve, wait.pauseMs));
          return undefined;
        }
        return this.#awaitOrphan(request.kind, request.idempotencyKey, state.requestId);
      }
    }
  }

  /**
   * Runs a request whose key was free: the checks, then the record, which claims the key. Returns
   * the answer's text, or the key's state when another request took the key first (nothing of this
   * one is recorded then, and its outcome is that request's). On an error after the record, frees
   * the key so that a retry runs again; before it, nothing was written.
   */
  async #run(request: RelayRequest, fingerprint: string, client: string): Promise<string | Exclude<KeyState, { outcome: "free" }>> {
    const requestId = newRequestId();
    let recorded: RequestRecord | undefined;
    const way: OnItsWay = {};
    try {
      const checked = await timed(this.#parts.onStep, "checks", () => this.#check(request, client, way));
      let text: string;
      if (checked.swapRequired) {
        text = await this.#answerSwapRequired(checked, checked.swapRequired, fingerprint, requestId);
      } else {
        const { record, burst } = await timed(this.#parts.onStep, "record", () => this.#record(checked, fingerprint, requestId));
        recorded = record;
        text = await this.#decide(checked, record, burst);
      }
      this.#parts.onOutcome?.(request.kind, JSON.parse(text).status);
      return text;
    } catch (thrown) {
      if (thrown instanceof KeyTaken) return thrown.state;
      if (!recorded) {
        // Nothing was written. Had another instance taken the key meanwhile (its checks passed
        // while these failed), its outcome is this request's: the key's first, as in §7's order.
        const state = await this.#parts.store.lookupIdempotency(request.kind, request.idempotencyKey, fingerprint).catch(() => undefined);
        if (state && state.outcome !== "free") return state;
      }
      const error = asRelayError(thrown);
      this.#parts.onOutcome?.(request.kind, error.code);
      if (error.code === "INTERNAL_ERROR") this.#parts.log?.(`${request.kind} request ${requestId}: internal error: ${causeOf(error)}`);
      if (error.code === "RPC_ERROR" && recorded && (await this.#mayBeOnChain(recorded.id))) {
        // The transaction may land: keep the key on this request, a retry waits for its outcome.
        throw error;
      }
      if (recorded) {
        const { id } = recorded;
        await this.#parts.store.transaction(async (tx) => {
          await tx.transition(id, ["received", "scanning"], "rejected", { reason: `not executed: ${error.code}` });
          await tx.releaseIdempotency(request.kind, request.idempotencyKey);
        }, relaxed);
      }
      throw error;
    } finally {
      way.arrived?.();
    }
  }

  // ---- steps ------------------------------------------------------------------------------------

  /**
   * Every check up to and including simulation. Nothing is written. The policy snapshot and the
   * simulation are pinned to one block (a payment's are read together with those of other requests
   * under way, see read-batcher.ts); the simulation's outcome is looked at only once every check has
   * passed, so a check's error always comes first.
   */
  async #check(request: RelayRequest, client: string, way: OnItsWay): Promise<Checked> {
    const chain = this.#parts.chains.get(request.chainId)!;
    const scenario = parseScenario(request.metadata, chain.devnet);
    const { intentHash, pinned, paymentData } = await this.#read(chain, request, client, way);
    const { snapshot, blockNumber } = pinned;
    const kind = kindOf(request);
    // An execute is simulated on its own (its gas is estimated too); a swap's calldata depends on
    // the route, which is chosen after the checks.
    const early = kind.simulatesEarly ? this.#simulate(chain, request, undefined, blockNumber) : undefined;
    early?.catch(() => {}); // awaited below, unless a check fails first
    checkVaultExists(request, snapshot); // the signature was checked by #read
    if (scenario?.name === "rate-limited") throw relayError("RATE_LIMITED", FORCED, { retryAfterSeconds: scenario.seconds });
    const taking = takeOrThrow(this.#parts.rateLimiter, [
      { scope: "bot", key: request.intent.bot },
      { scope: "vault", key: request.vaultAddress },
    ]);
    if (taking) await taking;
    // The request's own chain's clock: on a devnet it follows that chain (this snapshot's block is
    // the latest it has seen), and no other chain's time moves it.
    const clock = this.#parts.clocks.of(chain.chainId);
    // A block further on than the clock knew: the chain's time moved (time travel this relayer did not
    // see pass, or a burst of blocks), by as much as the block, perhaps a second old, shows or a
    // second more. One read of the block the node would mine now says exactly; should the node not
    // answer it, the block's lower bound stands.
    if (clock.observe(snapshot.timestamp)) await clock.follow(() => chain.nextBlockTimestamp()).catch(() => {});
    const nowSeconds = BigInt(Math.floor(clock.now() / 1000));
    const { maxDeadlineSeconds } = this.#parts.config;
    checkDeadline(request, nowSeconds, snapshot, maxDeadlineSeconds);
    checkBotAndVault(request, snapshot);
    await this.#checkTerms(chain, request);
    // Replay in the ledger: looked up in the record's transaction, where it must be anyway (two
    // requests for one intent never both record), so a request that passes costs no read here.
    // One that fails a later step is looked up first (below), so that a replay's error comes first:
    // its own intent's, then, once its swap is checked, a swap-and-pay's swap intent's.
    let swapLeg: CheckedSwapLeg | undefined;
    try {
      checkPolicy(request, snapshot);
      // What the kind checks on the chain beyond the snapshot (kinds/: a funding payment's merchant, an x402 authorization).
      await kind.chainChecks?.(chain, request, snapshot, blockNumber, nowSeconds);
      // A swap-and-pay's payment is paid from what its swap brings in: the swap's own checks stand
      // for the balance check (and the vault checks the payment's balance after the swap).
      swapLeg = isSwapAndPay(request)
        ? await checkSwapLeg(chain, request, blockNumber, { nowSeconds, maxDeadlineSeconds })
        : undefined;
      // The vault's buckets, before the simulation (which would revert on them) and the balance.
      checkSpendBuckets(request, snapshot, nowSeconds, swapLeg);
      if (!swapLeg) {
        const swapRequired = await this.#checkBalance(chain, kind, request, snapshot, blockNumber);
        if (swapRequired && paymentData) {
          return { request, way, chain, intentHash, snapshot, data: paymentData, gas: PAYMENT_GAS, scenario, swapRequired };
        }
      }

      const route = kind.route ? await kind.route(chain, request, blockNumber, snapshot) : swapLeg?.route;
      const simulation: Promise<{ data: Hex; sim?: SimulationOk }> = pinned.simulation && paymentData
        ? pinned.simulation.then((sim) => ({ data: paymentData, sim }))
        : (early ?? this.#simulate(chain, request, route, blockNumber));
      let aiGate = false;
      const { data, sim } = await simulation.catch((error: unknown) => {
        if (stoppedAtAiGate(error)) {
          // Held by the vault for the AI scan: simulated again with the agents' verdicts (#scan).
          aiGate = true;
          return { data: paymentData ?? executionCalldata(request, route), sim: undefined };
        }
        if (!stoppedAtReviewGate(error) || (mandatoryReview(request, snapshot) === undefined && !kind.call)) throw error;
        // A request the owner must decide stops at the vault's review gate: it is held, and
        // simulated again with the owner's approval before it is sent. For an execute the vault
        // also asks it of a protocol holding a standing allowance (see #grantReview).
        return { data: paymentData ?? executionCalldata(request, route), sim: undefined };
      });
      if (scenario?.name === "simulation-failed") throw relayError("SIMULATION_FAILED", FORCED);
      // One trace of the call tree, read for what it grants and for what it moves that no feed prices.
      // A plain payment's only external call is its token's transfer (or ETH to the payee): nothing to trace.
      const traced = paymentData ? undefined : this.#trace(chain, kind, request, data, sim !== undefined, blockNumber);
      const [valued, trace] = await Promise.all([
        kind.valuation && sim ? this.#value(chain, kind, request, data, snapshot, blockNumber, traced) : { snapshot },
        traced,
      ]);
      const review = paymentData ? undefined : await this.#grantReview(chain, kind, request, trace, sim !== undefined, snapshot, blockNumber, aiGate);
      const selfReview = await this.#selfReview(chain, request, scenario);
      // Last, before anything is recorded or reserved: an error stores no outcome, so the retry runs.
      if (scenario?.name === "rpc-error-once" && this.#failedOnce.first(chain.chainId, intentHash)) {
        throw relayError("RPC_ERROR", `${FORCED}=rpc-error-once; retry with the same idempotencyKey`);
      }
      return { request, way, chain, intentHash, ...valued, route, data, gas: sim ? gasLimitOf(sim) : PAYMENT_GAS, sim, scenario, selfReview, swapLeg, review, aiGate, nowSeconds };
    } catch (error) {
      await checkNotInLedger(this.#parts.store, request, intentHash);
      if (swapLeg) await checkNotInLedger(this.#parts.store, request, swapLeg.intentHash);
      throw error;
    }
  }

  /**
   * A review-approve / review-reject scenario: the vault's owner, who will decide (refused with 400
   * INVALID_REQUEST when approving would need an owner's key the relayer may not sign with).
   */
  async #selfReview(chain: ChainRuntime, request: RelayRequest, scenario: Scenario | undefined): Promise<Checked["selfReview"]> {
    if (scenario?.name !== "review-approve" && scenario?.name !== "review-reject") return undefined;
    const selfReviews = this.#parts.selfReviews;
    if (!selfReviews) throw relayError("INVALID_REQUEST", `metadata.scenario=${scenario.name} is not available on this relayer`);
    const decision: Decision = scenario.name === "review-approve" ? "approve" : "reject";
    const owner = await selfReviews.owner(chain, request.vaultAddress, decision);
    return { owner, decision, seconds: scenario.seconds };
  }

  /**
   * An execute is worth the larger of what it declares and what its simulation moves out of the
   * vault (outflows.ts); the value checks run again at that worth, and it is what the windows, the
   * AI threshold and the owner's review see.
   */
  async #value(
    chain: ChainRuntime,
    kind: KindDescriptor,
    request: RelayRequest,
    data: Hex,
    snapshot: PolicySnapshot,
    blockNumber: bigint,
    traced: Promise<CallTrace | undefined> | undefined,
  ): Promise<Pick<Checked, "snapshot" | "outflows" | "unpriced" | "unpricedHold">> {
    const from = this.#parts.dispatcher.signerFor(request.chainId, request.vaultAddress);
    // The call's trace (#trace), beside the balance measure: what leaves the vault anywhere in its call tree.
    const [valuation, trace] = await Promise.all([kind.valuation!(chain, from, request, data, blockNumber), traced]);
    const unpriced = await this.#unpriced(chain, request, trace, valuation?.outflows ?? [], blockNumber);
    if (!valuation) return { snapshot, ...unpriced };
    const valued: PolicySnapshot = {
      ...snapshot,
      usdValue: valuation.usdValue > snapshot.usdValue ? valuation.usdValue : snapshot.usdValue,
      priced: snapshot.priced && valuation.priced,
      priceStale: snapshot.priceStale || valuation.priceStale,
    };
    checkValue(request, valued);
    return { snapshot: valued, outflows: valuation.outflows, ...unpriced };
  }

  /**
   * What the call moves out of the vault that relay cannot price, by its trace: NFTs, and ERC-20s
   * with no usable feed. A node that cannot trace: an NFT transfer's selector stands for it.
   */
  async #unpriced(chain: ChainRuntime, request: RelayRequest, trace: CallTrace | undefined, measured: Outflow[], blockNumber: bigint): Promise<Pick<Checked, "unpriced" | "unpricedHold">> {
    const call = kindOf(request).call?.(request);
    if (!call || request.kind !== "execute") return {};
    if (trace === undefined || trace.reverted) {
      const nft = isNftTransfer(call.data, call.target, this.#parts.dispatcher.knownErc20s(request.chainId));
      return nft ? { unpricedHold: untracedNftHold } : {};
    }
    const vault = request.vaultAddress;
    const tokens = await unpricedTokens(chain, request, tokenOutflowsIn(trace.logs, vault), measured, blockNumber);
    const unpriced = [...unpricedOutflowsIn(trace.logs, vault), ...tokens];
    return unpriced.length > 0 ? { unpriced, unpricedHold: unpricedHold(unpriced) } : {};
  }

  /**
   * The request's call tree (call-trace.ts), traced once: the exact vault transaction's, from the
   * relayer key at the pinned block; for an execute stopped at the vault's review gate, that of its
   * protocol call made from the vault (the vault's own approvals of the declared tokens aside), so
   * that the owner reads what it would grant. Undefined where the node cannot trace.
   */
  #trace(chain: ChainRuntime, kind: KindDescriptor, request: RelayRequest, data: Hex, simulated: boolean, blockNumber: bigint): Promise<CallTrace | undefined> {
    const vault = request.vaultAddress;
    if (simulated) return traceCall(chain, { from: this.#parts.dispatcher.signerFor(request.chainId, vault), to: vault, data, blockNumber });
    const call = kind.call?.(request);
    if (!call) return Promise.resolve(undefined); // held at the gate for the bot's own review rule
    const value = request.kind === "execute" ? request.intent.value : 0n;
    return traceCall(chain, { from: vault, to: call.target, data: call.data, blockNumber, value });
  }

  /**
   * Why the owner must decide the request by what its call grants (grants.ts), read from its call
   * tree (#trace): a right over the vault's assets that outlives the call, wherever in the tree it is
   * granted, whatever the bot declared. An execute on a node that cannot trace is held: what it
   * grants cannot be shown. A swap's calldata is the relayer's own, to a registry router: traced
   * where the node can, not held where it cannot.
   */
  async #grantReview(chain: ChainRuntime, kind: KindDescriptor, request: RelayRequest, trace: CallTrace | undefined, simulated: boolean, snapshot: PolicySnapshot, blockNumber: bigint, aiGate = false): Promise<string | undefined> {
    const call = kind.call?.(request);
    const vault = request.vaultAddress;
    if (simulated && (trace === undefined || trace.reverted)) return call ? UNTRACEABLE : undefined;
    if (!simulated && !call) return undefined; // held at the gate for the bot's own review rule
    const grants = trace && !trace.reverted ? await newGrants(chain, vault, grantsIn(trace.logs, vault), blockNumber) : [];
    if (grants.length > 0) return describeGrants(grants, chain);
    // Stopped at the gate with no rule of the relayer's own: the vault's standing-allowance rule.
    // (Stopped at the AI hold, the vault checked nothing after it: the simulation with the verdicts does.)
    return simulated || aiGate || mandatoryReview(request, snapshot) !== undefined ? undefined : STANDING_ALLOWANCE;
  }

  /**
   * The intent's hash with its signature checked, then the pinned reads (with a payment's
   * simulation, and the calldata simulated). The signature is checked on the vault's cached domain
   * before the chain is read, so a bad signature costs no chain read. A vault seen for the first
   * time is probed (and its domain read) first: that read is paid from the client's bucket for
   * unauthenticated work, as is a failed signature, and a client whose bucket is empty is refused
   * before either (rate-limit.ts). Only a vault's domain is ever cached, so a cached domain means
   * the vault exists and the order clients see stays §7's.
   */
  async #read(chain: ChainRuntime, request: RelayRequest, client: string, way: OnItsWay): Promise<{ intentHash: Hex; pinned: PinnedRead; paymentData?: Hex }> {
    const reads = this.#reads.get(chain.chainId)!;
    const limiter = this.#parts.rateLimiter;
    await admitUnauthenticated(limiter, client);
    if (!chain.knowsDomain(request.vaultAddress)) {
      await spendUnauthenticated(limiter, client);
      const probe = await reads.read(snapshotQuery(request, zeroHash));
      if (!probe.snapshot.isVault) return { intentHash: zeroHash, pinned: probe };
    }
    const domain = await chain.domainOf(request.vaultAddress);
    const intentHash = intentHashOf(request, domain);
    await chargeFailure(limiter, client, () => checkSignature(request, intentHash));
    // Plain payments are simulated with the pinned read; a swap-and-pay needs its route first.
    const batched = kindOf(request).batched?.(request);
    const payment = batched ? { request: batched, data: executionCalldata(batched) } : undefined;
    if (batched) way.arrived = this.#parts.dispatcher.onItsWay(request.chainId, request.vaultAddress);
    return { intentHash, pinned: await reads.read(snapshotQuery(request, intentHash), payment), paymentData: payment?.data };
  }

  /** eth_call of the transaction that would carry the request (and its gas estimate unless a payment), at `blockNumber`. */
  async #simulate(chain: ChainRuntime, request: RelayRequest, route: SwapRoute | undefined, blockNumber: bigint) {
    const data = executionCalldata(request, route);
    const from = this.#parts.dispatcher.signerFor(request.chainId, request.vaultAddress);
    const sim = await simulate(chain, { from, to: request.vaultAddress, data, blockNumber, estimate: !kindOf(request).batched?.(request) });
    return { data, sim };
  }

  /**
   * The vault must hold every amount the request moves (422 INSUFFICIENT_BALANCE). A payment that a
   * swap from another token the vault holds would cover is not refused here: its swap options are
   * returned, and the request is answered SWAP_REQUIRED.
   */
  async #checkBalance(chain: ChainRuntime, kind: KindDescriptor, request: RelayRequest, snapshot: PolicySnapshot, blockNumber: bigint): Promise<SwapRequired | undefined> {
    const funds = kind.movedFunds(request);
    try {
      checkBalance(funds.tokens, funds.amounts, snapshot);
      return undefined;
    } catch (error) {
      if (!kind.coverShortfall || !isRelayError(error) || error.code !== "INSUFFICIENT_BALANCE") throw error;
      const swapRequired = await kind.coverShortfall(chain, request, snapshot, blockNumber);
      if (!swapRequired) throw error;
      return swapRequired;
    }
  }

  /**
   * With terms configured, the vault's owner must have accepted them (403 TERMS_NOT_ACCEPTED). It
   * comes after the signature and bot checks, so only the vault's own bots learn of it.
   */
  async #checkTerms(chain: ChainRuntime, request: RelayRequest): Promise<void> {
    await this.#parts.terms?.check(chain, request.vaultAddress);
  }

  /**
   * Claims the idempotency key, records the request and reserves its USD in the rolling windows, in
   * one transaction: two requests for the same key or the same intent, or together above a limit,
   * can never both pass; a key another request took first records nothing (KeyTaken). Not fsynced:
   * the submission that follows is, and it makes this commit durable with it.
   */
  #record(checked: Checked, fingerprint: string, requestId: string): Promise<{ record: RequestRecord; burst: Bursts }> {
    const { request, intentHash, snapshot, swapLeg } = checked;
    return this.#parts.store.transaction(async (tx) => {
      await claimKey(tx, request, fingerprint, requestId);
      await checkNotInLedger(tx, request, intentHash);
      if (swapLeg) await checkNotInLedger(tx, request, swapLeg.intentHash);
      const record = await createRecord(tx, checked, fingerprint, requestId);
      if (swapLeg) await tx.linkIntent(request.chainId, request.vaultAddress, swapLeg.intentHash, requestId);
      // The ledger's windows, then the vault's buckets less what was reserved since their block.
      const { burst } = await kindOf(request).reserve(tx, request, snapshot, requestId, checked.nowSeconds);
      // A swap-and-pay's swap counts in the swap window as a plain swap of its size does.
      const swap = swapLeg ? (await reserveSwapLeg(tx, swapLeg, requestId, checked.nowSeconds)).burst : false;
      return { record, burst: { request: burst, swap } };
    }, relaxed);
  }

  /**
   * A payment a swap would cover: recorded as `rejected` with its swap options (in the stored body)
   * and answered like any 200, so that a replay gets the same bytes. Nothing is reserved in the
   * spend windows and the intent is not refused: the bot re-sends this same payment with a signed
   * swap, under a new idempotency key.
   */
  #answerSwapRequired(checked: Checked, swapRequired: SwapRequired, fingerprint: string, requestId: string): Promise<string> {
    const { request } = checked;
    return this.#parts.store.transaction(async (tx) => {
      await claimKey(tx, request, fingerprint, requestId);
      await checkNotInLedger(tx, request, checked.intentHash);
      const record = await createRecord(tx, checked, fingerprint, requestId);
      // The record was just created: its answer once rejected is built before the move and written with it.
      const text = await moveWithAnswer(tx, record, ["received"], { status: "rejected", reason: swapRequired.reason }, { reason: swapRequired.reason });
      if (text === undefined) throw new Error(`request ${record.id} left its state while being answered`);
      return text;
    }, relaxed);
  }

  /** Picks the path and carries it out; returns the stored 200 text. */
  async #decide(checked: Checked, record: RequestRecord, burst: Bursts): Promise<string> {
    const { path, selfDecides } = scenarioPath(checked, this.#choosePath(checked, burst));
    const { sim, selfReview } = checked;
    const simulationResult = sim && { success: true, ...(sim.gasEstimate === undefined ? {} : { gasEstimate: sim.gasEstimate.toString() }) };
    // Only the fast path goes to the key's queue now.
    if (path.path !== "fast") checked.way.arrived?.();
    switch (path.path) {
      case "review": {
        const text = await this.#hold(record, path.heldBecause, undefined, { simulationResult });
        if (selfReview && selfDecides) {
          const { request, chain, intentHash } = checked;
          const held = { requestId: record.id, chain, vault: request.vaultAddress, intentHash, owner: selfReview.owner };
          this.#parts.selfReviews!.schedule(held, selfReview.decision, selfReview.seconds);
        }
        return text;
      }
      case "scan":
        return this.#scan(checked, record, path.reasons, simulationResult);
      case "fast":
        return this.#execute(checked, record, { simulationResult });
    }
  }

  /** The path the request takes by its own merits; a swap-and-pay's swap is judged as a plain swap and the stricter path taken. */
  #choosePath(checked: Checked, burst: Bursts): Path {
    const { request, snapshot, swapLeg } = checked;
    const knownErc20s = this.#parts.dispatcher.knownErc20s(request.chainId);
    const own = choosePath(request, snapshot, burst.request, knownErc20s, checked.review, checked.unpricedHold);
    const path = swapLeg ? swapAndPayPath(own, choosePath(swapLeg.swap, swapLeg.snapshot, burst.swap, knownErc20s)) : own;
    // The vault holds it for the AI scan (its own valuation, at the same block): never the fast path.
    return checked.aiGate && path.path === "fast" ? { path: "scan", reasons: ["ai_threshold"] } : path;
  }

  async #scan(checked: Checked, record: RequestRecord, reasons: Parameters<typeof describeScan>[0], simulationResult: AnswerExtras["simulationResult"]): Promise<string> {
    const { request, chain, snapshot } = checked;
    // Held by the vault (AiApprovalRequired): the agents' approval executes it only as verdicts
    // signed by the scanner keys its owner registered. Without them, the owner decides.
    const scanners = checked.aiGate ? await this.#scannersOf(chain, request.vaultAddress) : undefined;
    const panel = this.#parts.panel;
    if (scanners !== undefined) {
      const cannot = scanners.length === 0
        ? "the vault holds it for the AI scan and its owner registered no scanner keys (setScanners): the agents' approval cannot execute it"
        : panel === undefined ? "the vault holds it for the AI scan and this relayer has no verification agents that sign verdicts" : undefined;
      if (cannot !== undefined) return this.#hold(record, cannot, undefined, { simulationResult });
    }
    await this.#parts.store.transaction((tx) => tx.transition(record.id, ["received"], "scanning"), relaxed);
    const input = await scanInput(checked, this.#parts.store, reasons, this.#parts.dispatcher.tokenInfo(request.chainId));
    const scenario = aiScenarioOf(checked.scenario);
    const deadline = BigInt(Math.floor(this.#parts.clocks.of(chain.chainId).now() / 1000)) + VERDICT_SECONDS;
    const judged = scanners !== undefined && panel
      ? panel.judge({ input, scenario, request, domain: await chain.domainOf(request.vaultAddress), intentHash: checked.intentHash, deadline })
      : this.#parts.scanner.scan(input, { scenario }).then((result) => ({ result, verdicts: [] as SignedVerdict[] }));
    const { result, verdicts } = await judged.catch((error: unknown) => {
      if (isRelayError(error) && error.code === "AI_VERIFICATION_TIMEOUT") this.#parts.onAiScan?.("timeout");
      throw error;
    });
    this.#parts.onAiScan?.(result.approved ? "approved" : "no_consensus");
    const agents = JSON.stringify(result.verdicts);
    if (!result.approved) {
      const scanned = reasons.length > 0 ? describeScan(reasons, scannedValue(snapshot, checked.swapLeg), snapshot.config.aiTriggerThreshold) : `scanned because of metadata.scenario=${checked.scenario?.name}`;
      const why = `the verification agents did not reach consensus (${scanned})`;
      return this.#hold(record, why, agents, { simulationResult });
    }
    await this.#parts.store.transition(record.id, ["scanning"], "scanning", { agents });
    const extras = { simulationResult, estimatedResolutionMs: Math.max(1, Math.round(result.elapsedMs)) };
    if (scanners === undefined) return this.#execute(checked, record, extras);
    // Only the registered scanners' verdicts count on-chain, one per key.
    const registered = new Set(scanners.map((a) => a.toLowerCase()));
    const counted = [...new Map(verdicts.filter((v) => registered.has(v.signer.toLowerCase())).map((v) => [v.signer.toLowerCase(), v])).values()];
    if (counted.length < 2) {
      const why = `the verification agents approved, but ${counted.length} of their verdicts are signed by the vault's registered scanner keys and the vault needs 2: its owner decides`;
      return this.#hold(record, why, agents, { simulationResult });
    }
    return this.#executeWithVerdicts(checked, record, counted.slice(0, 3), deadline, agents, extras);
  }

  /** The vault's registered scanner keys (none when all are zero). */
  async #scannersOf(chain: ChainRuntime, vault: Address): Promise<Address[]> {
    const keys = (await rpcFailure(() => chain.clients.publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "scanners" }))) as readonly Address[];
    return keys.filter((a) => BigInt(a) !== 0n);
  }

  /**
   * Sends the request through the vault's reviewed entry point with the verdicts (their deadline
   * `deadline`), simulated first on the latest block. A call the vault then holds for the owner
   * (ReviewRequired: a standing allowance the protocol holds) is held for the owner's review.
   */
  async #executeWithVerdicts(checked: Checked, record: RequestRecord, verdicts: SignedVerdict[], deadline: bigint, agents: string, extras: AnswerExtras): Promise<string> {
    const { request, chain } = checked;
    const data = executionCalldata(request, checked.route, { deadline, signature: packVerdicts(verdicts) });
    const from = this.#parts.dispatcher.signerFor(request.chainId, request.vaultAddress);
    const blockNumber = await chain.latestBlock();
    let sim: SimulationOk;
    try {
      sim = await simulate(chain, { from, to: request.vaultAddress, data, blockNumber, estimate: true });
    } catch (error) {
      if (!stoppedAtReviewGate(error)) throw error;
      return this.#hold(record, "the verification agents approved, but the vault runs this call only with its owner's approval (a standing allowance of the protocol)", agents, extras);
    }
    return this.#execute(checked, record, extras, { data, gas: gasLimitOf(sim) });
  }

  /**
   * Holds the request for the owner's review; the held state and its answer commit together. The
   * review lapses by its chain's clock (as the store's sweep compares it).
   */
  #hold(record: RequestRecord, heldBecause: string, agents: string | undefined, extras: AnswerExtras): Promise<string> {
    const store = this.#parts.store;
    const reviewExpiresAt = this.#parts.clocks.of(record.chainId).now() + this.#parts.config.reviewWindowSeconds * 1000;
    return store.transaction(async (tx) => {
      // A held answer names only the request, its poll URL and the extras: built before the move, written with it.
      const text = await moveWithAnswer(tx, record, ["received", "scanning"], { status: "held" }, { heldBecause, agents, reviewExpiresAt }, extras);
      if (text === undefined) throw new Error(`request ${record.id} left its state while being held`);
      return text;
    });
  }

  /**
   * Submits and waits for the receipt; the answer is `approved` with txHash, or `rejected` with why.
   * `call`: another vault call than the checked one (the reviewed entry point with verdicts), never batched.
   */
  async #execute(checked: Checked, record: RequestRecord, extras: AnswerExtras, call?: { data: Hex; gas: bigint }): Promise<string> {
    const { request } = checked;
    const job = {
      requestId: record.id,
      vault: request.vaultAddress,
      data: call?.data ?? checked.data,
      gas: call?.gas ?? checked.gas,
      intentHash: checked.intentHash,
      // A swap-and-pay is never batched with plain payments: it is its own vault call.
      payment: call ? undefined : kindOf(request).batched?.(request),
    };
    const unconfirmed = "the transaction was recorded but the node did not confirm it; retry with the same idempotencyKey";
    const settled = executeAndSettle(this.#parts, record, request.chainId, job, extras, unconfirmed);
    // The job is in the key's queue (executeAndSettle hands it over before its first await).
    checked.way.arrived?.();
    const text = await settled;
    faultPoint("before-response");
    return text;
  }

  // ---- helpers ----------------------------------------------------------------------------------

  async #mayBeOnChain(requestId: string): Promise<boolean> {
    const status = (await this.#parts.store.getRequest(requestId))?.status;
    return status === "submitting" || status === "submitted";
  }

  /**
   * A same-key request whose first run is not in this process (it was interrupted by a restart, or
   * runs on another instance sharing the store): answer from the ledger once the request has
   * settled. Undefined when it never got anywhere: its key is freed, to be looked at again (and the
   * request run afresh).
   */
  async #awaitOrphan(kind: IntentKind, idempotencyKey: string, requestId: string): Promise<string | undefined> {
    const store = this.#parts.store;
    const until = Date.now() + this.#parts.config.receiptTimeoutMs;
    for (;;) {
      const record = await store.getRequest(requestId);
      if (!record || (record.status === "rejected" && !record.response)) {
        await store.releaseIdempotency(kind, record?.idempotencyKey ?? idempotencyKey);
        return undefined;
      }
      if (record.status === "held" || record.status === "approved" || record.status === "rejected") {
        return record.response ?? store.transaction((tx) => storeAnswer(tx, record));
      }
      if (Date.now() > until) throw relayError("RPC_ERROR", "the request is still being confirmed on-chain; retry with the same idempotencyKey");
      if (this.#draining) {
        throw relayError("SERVICE_UNAVAILABLE", "the relayer is shutting down; retry with the same idempotencyKey", { retryAfterSeconds: 1 });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** GET /v1/{payments,execute,swap}/:id */
  async status(kind: IntentKind, requestId: string): Promise<Record<string, unknown>> {
    const record = await this.#parts.store.getRequest(requestId);
    if (!record || record.kind !== kind || (record.status === "rejected" && !record.response)) {
      throw relayError("NOT_FOUND", `no ${kind} request ${requestId}`);
    }
    if (record.status === "received" || record.status === "scanning") throw relayError("NOT_FOUND", `no ${kind} request ${requestId}`);
    return responseOf(record);
  }
}

/**
 * The path a devnet scenario forces, whatever the amount: an ai-* scenario goes to the AI scan, a
 * review-* one is held and decides itself (`selfDecides`). A review the request takes anyway is the
 * owner's alone (the vault's review gate, an approval grant, an unpriced outflow: choosePath): it
 * stays the owner's, and no scenario decides it.
 */
function scenarioPath(checked: Checked, path: Path): { path: Path; selfDecides: boolean } {
  const { scenario, selfReview } = checked;
  if (scenario === undefined) return { path, selfDecides: false };
  if (path.path === "review") {
    if (aiScenarioOf(scenario) === undefined && !selfReview) return { path, selfDecides: false };
    const note = `; metadata.scenario=${scenario.name} does not decide a review the owner must make`;
    return { path: { path: "review", heldBecause: path.heldBecause + note }, selfDecides: false };
  }
  if (aiScenarioOf(scenario) !== undefined) return { path: { path: "scan", reasons: path.path === "scan" ? path.reasons : [] }, selfDecides: false };
  if (selfReview && (scenario.name === "review-approve" || scenario.name === "review-reject")) {
    return { path: { path: "review", heldBecause: selfDecidingHold({ name: scenario.name, seconds: selfReview.seconds }) }, selfDecides: true };
  }
  return { path, selfDecides: false };
}

/** Why an execute is held on a node that cannot show its call tree. */
const UNTRACEABLE = "the node cannot show what the call grants (it does not answer debug_traceCall with the callTracer), so the owner decides";
/** Why an execute is held when the vault asks the owner's review of it for no rule the relayer checks itself. */
const STANDING_ALLOWANCE =
  "the vault requires the owner's review of this call: the protocol holds a standing allowance from the vault over a token the vault tracks, which it could pass on or pull for anyone";

/** For commits whose loss on a power failure is harmless (see TransactionOptions). */
const relaxed = { durable: false } as const;

/**
 * An intent the owner refused (rejected, or left until its review lapsed) never executes; one
 * already approved or under way in the ledger (under another key) is a duplicate. One look (replayOf).
 */
async function checkNotInLedger(store: StoreOps, request: RelayRequest, intentHash: Hex): Promise<void> {
  const replay = await store.replayOf(request.chainId, request.vaultAddress, intentHash);
  if (replay === undefined) return;
  if ("refusal" in replay) {
    const { refusal } = replay;
    throw relayError("INTENT_REJECTED", `the vault's owner refused this intent (request ${refusal.requestId}: ${refusal.reason}); sign a new intent`);
  }
  throw relayError("DUPLICATE_INTENT", "this intent was already submitted");
}

/** Thrown inside the record's transaction (undoing it) when another request took the key first. */
class KeyTaken extends Error {
  readonly state: Exclude<KeyState, { outcome: "free" }>;

  constructor(state: Exclude<KeyState, { outcome: "free" }>) {
    super("the idempotency key was taken by another request");
    this.state = state;
  }
}

/** Claims the request's idempotency key in the record's transaction; KeyTaken if another request holds it. */
async function claimKey(tx: StoreOps, request: RelayRequest, fingerprint: string, requestId: string): Promise<void> {
  const claim = await tx.claimIdempotency(request.kind, request.idempotencyKey, fingerprint, requestId);
  if (claim.outcome !== "new") throw new KeyTaken(claim);
}

/** The request's ledger row, `received`. */
function createRecord(tx: StoreOps, checked: Checked, fingerprint: string, requestId: string): Promise<RequestRecord> {
  const { request, intentHash, snapshot } = checked;
  return tx.createRequest({
    id: requestId,
    kind: request.kind,
    chainId: request.chainId,
    vault: request.vaultAddress,
    bot: request.intent.bot,
    intentHash,
    idempotencyKey: request.idempotencyKey,
    fingerprint,
    usdValue: snapshot.usdValue,
    body: storedBody(checked),
    deadline: request.intent.deadline,
  });
}

function storedBody(checked: Checked): string {
  const { request, route, outflows, unpriced, swapRequired } = checked;
  const kind = kindOf(request);
  const call = kind.call?.(request);
  return stringifyWithBigints({
    ...request,
    counterparty: kind.counterparty(request).toLowerCase(),
    selector: call ? selectorOf(call.data) : undefined,
    route: route ? { router: route.router, swapCalldata: route.swapCalldata, quotedOut: route.quotedOut } : undefined,
    outflows,
    unpriced,
    swapRequired: swapRequired ? { options: swapRequired.options } : undefined,
  });
}

/** The innermost cause's name and message, cleaned like a client's details (no URLs, bounded). */
function causeOf(error: RelayError): string {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return sanitizeDetails(text.replace(/\s+/g, " "));
}

function asRelayError(thrown: unknown): RelayError {
  return isRelayError(thrown) ? thrown : relayError("INTERNAL_ERROR", undefined, { cause: thrown });
}


