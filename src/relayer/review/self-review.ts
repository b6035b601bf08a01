// Self-deciding reviews (devnet only): `metadata.scenario=review-approve[:N]` or `review-reject[:N]`
// holds the request for review like any held request, then after N seconds decides it through the
// same Reviews code the owner's approve and reject use (reviews.ts), so a bot's polling loop can be
// tested without a person.
//
// Approving executes with the owner's ReviewApproval, which the vault checks on-chain: the relayer
// signs it with the vault owner's key, and only when that key is public anyway — one of the
// well-known development accounts (a devnet's owner). Any other owner: the scenario is refused at
// submission (400 INVALID_REQUEST), before anything is recorded.
//
// It decides only the review its scenario asked for (scenarios.ts selfDecidingHold), never one the
// request took anyway (the vault's review gate, an approval grant, an unpriced outflow): those are
// the owner's alone. The spine schedules only the former; re-arming and the decision itself check
// the held request's heldBecause again, so neither a restart nor a mistake upstream signs for the
// owner what the owner must decide.
//
// The timers live in memory. A relayer that stops before one fires leaves that review pending; the
// next start re-arms it from the ledger (`rearm`: the scenario is in the stored request), due N
// seconds after the request was held, at once if that has passed. Until then the owner may decide
// it, and it lapses at the end of the review window, like any other review.
import { getAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../chain/artifacts.ts";
import { signReviewApproval } from "../../../packages/client/src/sign.ts";
import { devKeyOf } from "../../devnet/accounts.ts";
import { relayError } from "../../errors.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import type { Clocks } from "../clock.ts";
import type { Reviews } from "./reviews.ts";
import type { Store } from "../store.ts";
import { decidesItself, parseScenario } from "../intake/scenarios.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
/** Lifetime of the ReviewApproval the relayer signs: enough for the approval to be mined. */
const APPROVAL_LIFETIME_SECONDS = 3_600n;

export interface SelfReviewDeps {
  reviews: Reviews;
  chains: ReadonlyMap<number, ChainRuntime>;
  /** Each chain's clock (clock.ts): a review is decided, and its approval signed, by its own chain's time. */
  clocks: Clocks;
  log?: (line: string) => void;
}

export type Decision = "approve" | "reject";

/** The held request to decide, and who decides it. */
export interface HeldRequest {
  requestId: string;
  chain: ChainRuntime;
  vault: Address;
  intentHash: Hex;
  owner: Address;
}

export class SelfDecidingReviews {
  readonly #deps: SelfReviewDeps;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(deps: SelfReviewDeps) {
    this.#deps = deps;
  }

  /**
   * The vault owner who will decide: for an approval, one whose key is a well-known development key
   * (400 INVALID_REQUEST otherwise, saying why).
   */
  async owner(chain: ChainRuntime, vault: Address, decision: Decision): Promise<Address> {
    const owner = (await chain.clients.publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "owner" })) as Address;
    if (decision === "approve" && devKeyOf(owner) === undefined) {
      throw relayError(
        "INVALID_REQUEST",
        `metadata.scenario=review-approve needs the owner's ReviewApproval, and the relayer signs it only for an owner whose key is a well-known development key; vault ${getAddress(vault)}'s owner ${getAddress(owner)} is not`,
      );
    }
    return owner;
  }

  /** Decides the held request as its owner after `seconds`. */
  schedule(held: HeldRequest, decision: Decision, seconds: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#decide(held, decision).catch((error: unknown) => {
        this.#deps.log?.(`the self-deciding review of request ${held.requestId} did not ${decision}: ${(error as Error).message}`);
      });
    }, seconds * 1000);
    timer.unref();
    this.#timers.add(timer);
  }

  /**
   * Start-up: re-arms the self-deciding reviews of devnet chains that a stopped relayer left held.
   * Returns how many; a review whose owner cannot be read now is left to the owner (and logged).
   */
  async rearm(store: Store, devnets: ReadonlySet<number>): Promise<number> {
    let armed = 0;
    for (const record of await store.listReviews({})) {
      const chain = this.#deps.chains.get(record.chainId);
      if (!chain || !devnets.has(record.chainId)) continue;
      const { metadata } = JSON.parse(record.body) as { metadata?: Record<string, string> };
      let scenario;
      try {
        scenario = parseScenario(metadata, true);
      } catch {
        continue; // not a scenario this relayer knows
      }
      if (scenario?.name !== "review-approve" && scenario?.name !== "review-reject") continue;
      if (!decidesItself(record.heldBecause)) continue; // held for the owner: no scenario decides it
      const decision: Decision = scenario.name === "review-approve" ? "approve" : "reject";
      const vault = getAddress(record.vault);
      try {
        const owner = await this.owner(chain, vault, decision);
        // createdAt is by the request's chain's clock (RequestRecord), as is this.
        const dueInMs = record.createdAt + scenario.seconds * 1000 - this.#deps.clocks.of(record.chainId).now();
        this.schedule({ requestId: record.id, chain, vault, intentHash: record.intentHash as Hex, owner }, decision, Math.max(0, dueInMs) / 1000);
        armed++;
      } catch (error) {
        this.#deps.log?.(`the self-deciding review of request ${record.id} was not re-armed: ${(error as Error).message}`);
      }
    }
    return armed;
  }

  /** Stops every timer (shutdown): those reviews stay pending. */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  async #decide(held: HeldRequest, decision: Decision): Promise<void> {
    const { reviews } = this.#deps;
    const item = await reviews.detail(held.owner, held.requestId);
    if (!decidesItself(item.heldBecause as string | undefined)) {
      throw new Error(`it is held for the owner (${String(item.heldBecause)}): only the owner decides it`);
    }
    if (decision === "reject") {
      await reviews.reject(held.owner, held.requestId, "rejected by metadata.scenario=review-reject (devnet)");
      return;
    }
    const key = devKeyOf(held.owner);
    if (key === undefined) throw new Error("the owner's key is not a development key");
    const domain = await held.chain.domainOf(held.vault);
    // The vault checks the approval's deadline against its chain's time, which that chain's clock follows.
    const deadline = BigInt(Math.floor(this.#deps.clocks.of(held.chain.chainId).now() / 1000)) + APPROVAL_LIFETIME_SECONDS;
    const signature = await signReviewApproval(privateKeyToAccount(key), domain, { intentHash: held.intentHash, deadline });
    await reviews.approve(held.owner, held.requestId, { deadline, signature });
  }
}
