// A rejection is final on-chain: the relayer cancels every intent a rejected request carried
// (`cancelIntent` on its vault), whichever way it was rejected (the owner through the API, the CLI or
// the review screen, a lapsed review, a self-deciding devnet review). The rejection and the queued
// cancels commit together (Store.rejectReview, src/ledger/intent-cancels.ts); this file sends them
// after the commit, with the relayer key that serves the vault, through that key's queue (the
// submitter: same nonces, same durable record before broadcast). A cancel only removes capability,
// and cancelling twice changes nothing, so a doubt is always settled by sending one more.
//
// Crashes: a cancel recorded but not known to have landed is followed from the chain by the next
// pass (at start-up, then every few seconds): cancelled or used on the chain, it is done; its
// transaction mined, or its nonce taken by another, a new one is sent; otherwise the recorded bytes
// are re-broadcast unchanged, so that no nonce is left unsent behind which the key's later
// transactions would wait. A failure is retried with backoff, counted and logged (never a key or a
// signature). Several instances: a cancel is claimed by one live instance, and only by the holder
// of the key's lease, before anything is sent.
//
// The bound: between the rejection and the cancel's block, a leaked relayer key holding the bot's
// signature can still race the intent onto the chain (usually a block or two). The owner can always
// cancel directly (`relay owner cancel`).
import { encodeFunctionData, type Address, type Hex } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import type { CancelKey, IntentCancel } from "../../ledger/index.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import type { Store } from "../store.ts";
import type { Dispatcher } from "./dispatcher.ts";
import { LeaseLostError } from "./key-lease.ts";
import { followRecorded } from "./stuck-watch.ts";

const vaultAbi = readArtifact("ServiceVault").abi;

/** Gas of one cancelIntent (a storage write and an event, plus the registry's relayer check): measured ~35k. */
const CANCEL_GAS = 80_000n;
/**
 * How long a claim holds a cancel: longer than recording it and waiting for its block take (the
 * submitter waits up to two minutes for a receipt), so a live sender never loses it midway.
 */
const CLAIM_MS = 180_000;
/** Longest wait at shutdown for the pass under way. */
const STOP_WAIT_MS = 5_000;
/** Waits before the attempt after the n-th failure: 1 s, 5 s, 30 s, 2 min, then every 10 min. */
const BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000] as const;

/** What became of one look at a cancel (relay_intent_cancels_total). */
export type CancelResult =
  /** Our cancel transaction landed. */
  | "cancelled"
  /** The chain already showed the intent cancelled (the owner's, or ours before a restart). */
  | "already"
  /** The intent executed before any cancel landed: the race the bound above describes. */
  | "executed"
  /** An attempt failed; it is retried with backoff. */
  | "failed";

export interface CancelSenderDeps {
  store: Store;
  chains: ReadonlyMap<number, ChainRuntime>;
  dispatcher: Dispatcher;
  onResult?: (chainId: number, result: CancelResult) => void;
  log?: (line: string) => void;
}

export class CancelSender {
  readonly #deps: CancelSenderDeps;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(deps: CancelSenderDeps) {
    this.#deps = deps;
  }

  /**
   * Sends every cancel that is due: after a rejection commits, at start-up and periodically. Passes
   * never overlap: a call during one runs another after it. Resolves when done; never rejects.
   */
  run(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#pass();
        } while (this.#again && !this.#stopped);
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  /**
   * Shutting down: no pass starts any more; the one under way is waited for a little (a cancel
   * waiting for its block is not worth holding the shutdown: recorded, the next start follows it).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.race([this.#running, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
  }

  async #pass(): Promise<void> {
    const { store, log } = this.#deps;
    let open: IntentCancel[];
    try {
      open = await store.listCancels();
    } catch (error) {
      log?.(`listing the on-chain cancels to send failed: ${firstLine(error)}`);
      return;
    }
    const now = store.now();
    // Concurrently: each goes into its key's queue, where nonces keep their order.
    await Promise.all(open.filter((c) => c.notBefore <= now && this.#deps.chains.has(c.chainId)).map((c) => this.#one(c)));
  }

  async #one(cancel: IntentCancel): Promise<void> {
    const { store, dispatcher } = this.#deps;
    const chain = this.#deps.chains.get(cancel.chainId)!;
    const key: CancelKey = { chainId: cancel.chainId, vault: cancel.vault, intentHash: cancel.intentHash };
    let claimed: IntentCancel | undefined;
    try {
      // Only the instance holding the vault's key sends (several instances); it takes a free lease.
      const signer = dispatcher.signerFor(cancel.chainId, cancel.vault as Address);
      if ((await dispatcher.signingRight(cancel.chainId, signer)) === undefined) return;
      claimed = await store.claimCancel(key, store.now() + CLAIM_MS);
      if (!claimed) return;
      const onChain = await this.#onChain(chain, claimed);
      if (onChain !== "live") {
        await store.finishCancel(key);
        this.#result(claimed, onChain === "cancelled" ? "already" : "executed");
        return;
      }
      if (claimed.status === "sent") {
        if ((await this.#follow(chain, claimed)) === "waiting") {
          await store.releaseCancel(key);
        } else {
          // Lost (reverted, or its nonce taken): pending again, sent anew by the pass that follows this one.
          await store.retryCancel(key, "its transaction was lost", 0);
          this.#again = true;
        }
        return;
      }
      const outcome = await dispatcher.submitCancel(cancel.chainId, {
        requestId: claimed.requestId,
        vault: claimed.vault as Address,
        data: encodeFunctionData({ abi: vaultAbi, functionName: "cancelIntent", args: [claimed.intentHash as Hex] }),
        gas: CANCEL_GAS,
        intentHash: claimed.intentHash as Hex,
        cancel: true,
      });
      // The node did not confirm the broadcast: recorded as sent, followed by the next pass.
      if (outcome.ok === "unknown") return void (await store.releaseCancel(key));
      if (outcome.ok === false) throw new Error(outcome.reason);
      await store.finishCancel(key);
      this.#result(claimed, "cancelled");
      this.#deps.log?.(`intent ${claimed.intentHash} of rejected request ${claimed.requestId} cancelled on-chain, tx ${outcome.txHash}`);
    } catch (error) {
      if (!claimed) {
        this.#deps.log?.(`cancelling intent ${cancel.intentHash} on-chain could not start: ${firstLine(error)}`);
        return;
      }
      // Another instance took the key's lease meanwhile: nothing was recorded here; its holder sends it.
      if (error instanceof LeaseLostError) return void (await store.releaseCancel(key).catch(() => {}));
      const attempts = claimed.attempts + 1;
      const waitMs = BACKOFF_MS[Math.min(attempts, BACKOFF_MS.length) - 1]!;
      await store.retryCancel(key, firstLine(error), waitMs).catch(() => {});
      this.#result(claimed, "failed");
      this.#deps.log?.(
        `cancelling intent ${claimed.intentHash} of rejected request ${claimed.requestId} on-chain failed (attempt ${attempts}, next in ${waitMs / 1000} s): ${firstLine(error)}`,
      );
    }
  }

  /** What the vault says of the intent now: cancelled, executed (used), or still live. */
  async #onChain(chain: ChainRuntime, cancel: IntentCancel): Promise<"cancelled" | "used" | "live"> {
    const read = (functionName: "cancelledIntents" | "usedIntents") =>
      chain.clients.publicClient.readContract({ address: cancel.vault as Address, abi: vaultAbi, functionName, args: [cancel.intentHash as Hex] }) as Promise<boolean>;
    if (await read("cancelledIntents")) return "cancelled";
    return (await read("usedIntents")) ? "used" : "live";
  }

  /**
   * A cancel recorded earlier whose intent is still live, followed as reconcile.ts follows a request
   * (stuck-watch.ts, followRecorded): waiting (not mined yet, its newest version broadcast again
   * unchanged; or mined just now) or lost (reverted, or its nonce used by another transaction, or
   * beyond what the chain knows).
   */
  async #follow(chain: ChainRuntime, cancel: IntentCancel): Promise<"waiting" | "lost"> {
    // Under any of its versions: the stuck-transaction watch replaces a cancel stuck under a low fee.
    const standing = await followRecorded(this.#deps.store, chain, cancel);
    // Mined since the vault was read: the next look finds the intent cancelled.
    if (standing.state === "mined") return standing.receipt.status === "success" ? "waiting" : "lost";
    return standing.state === "rebroadcast" ? "waiting" : "lost";
  }

  #result(cancel: IntentCancel, result: CancelResult): void {
    this.#deps.onResult?.(cancel.chainId, result);
    if (result === "executed") {
      this.#deps.log?.(`intent ${cancel.intentHash} of rejected request ${cancel.requestId} was executed on-chain before its cancel landed`);
    }
  }
}

/**
 * Why an attempt failed, on one short line: the relayer's own detail (a RelayError's) or message,
 * then its cause's (the node's own words where viem kept them). Node answers and relayer messages
 * name addresses and hashes, never a key.
 */
function firstLine(error: unknown): string {
  const line = (e: unknown) => {
    const { details, message } = (e ?? {}) as { details?: unknown; message?: unknown };
    return String(typeof details === "string" && details !== "" ? details : (message ?? e)).split("\n")[0]!.slice(0, 200);
  };
  const cause = (error as Error)?.cause;
  return cause === undefined ? line(error) : `${line(error)}: ${line(cause)}`;
}
