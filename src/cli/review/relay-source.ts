// The ReviewSource of a real relayer: the owner routes of the HTTP API through RelayClient.
//
// Signs in lazily before the first owner call, and once more when the relayer answers 401 (a session
// that expired or a relayer that lost it); a second 401 is passed on. Connection errors are passed on
// as RelayUnreachableError so that callers can show "reconnecting" and try again later. The on-chain
// cancel is not an API call: it is handed in (`cancelIntent`) and offered as the source's `cancel`.
import type { Address, Hex } from "viem";
import { RelayApiError } from "../../../packages/client/src/errors.ts";
import type { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { signReviewApproval, type TypedDataSigner } from "../../../packages/client/src/sign.ts";
import type { ReviewDecisionResponse, ReviewItem } from "../../../packages/client/src/types.ts";
import type { VaultDomain } from "../../../packages/client/src/intent-types.ts";
import type { CancelTarget, ReviewSource } from "./source.ts";
import { checkShownIntent } from "./verify-item.ts";

/** How long the owner's approval stays valid on-chain, in seconds, unless told otherwise. */
export const DEFAULT_APPROVAL_WINDOW_SECONDS = 3600;

export interface RelaySourceOptions {
  client: RelayClient;
  /** The vault owner: signs the `ReviewApproval`s. */
  owner: TypedDataSigner;
  /** Signs in on `client` (sets its bearer token), e.g. with Sign-In with Ethereum. */
  signIn: (signal?: AbortSignal) => Promise<void>;
  /** The EIP-712 domain of a vault, read from the chain (see `readVaultDomain`). */
  vaultDomain: (vault: Address) => Promise<VaultDomain>;
  /** Only the reviews of this chain and/or vault. */
  filter?: { chainId?: number; vault?: Address };
  approvalWindowSeconds?: number;
  /** Sends the vault's `cancelIntent` with the owner key (see cancel.ts); without it the source cannot cancel. */
  cancelIntent?: (review: CancelTarget, signal?: AbortSignal) => Promise<Hex>;
  /** Current time in ms (tests). */
  now?: () => number;
  /**
   * The chain's time in unix seconds, where it may be ahead of the wall clock (a devnet whose time
   * was moved, `relay time advance`): an approval's deadline then counts from the later of the two,
   * as the relayer and the vault check it against that chain's time.
   */
  chainTime?: () => Promise<number>;
}

export function createRelaySource(options: RelaySourceOptions): ReviewSource {
  const { client, owner, vaultDomain, filter = {} } = options;
  const now = options.now ?? Date.now;
  const windowSeconds = options.approvalWindowSeconds ?? DEFAULT_APPROVAL_WINDOW_SECONDS;
  let signedIn = false;

  async function signIn(signal?: AbortSignal): Promise<void> {
    signedIn = false;
    await options.signIn(signal);
    signedIn = true;
  }

  // Run an owner call, signing in first if needed and once more after a 401.
  async function asOwner<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!signedIn) await signIn(signal);
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof RelayApiError) || error.status !== 401) throw error;
      await signIn(signal);
      return call();
    }
  }

  return {
    signIn,

    async list(signal) {
      const { reviews } = await asOwner(() => client.reviews(filter, { signal }), signal);
      return reviews;
    },

    detail(requestId, signal) {
      return asOwner(() => client.review(requestId, { signal }), signal);
    },

    async approve(requestId, signal): Promise<ReviewDecisionResponse> {
      const item: ReviewItem = await asOwner(() => client.review(requestId, { signal }), signal);
      const domain = await vaultDomain(item.vault);
      if (domain.chainId !== item.chainId) {
        throw new Error(`review ${requestId} is on chain ${item.chainId}, but the RPC URL serves chain ${domain.chainId}`);
      }
      // The hash signed must be the hash of the intent shown, on the domain read from the chain.
      checkShownIntent(item, domain);
      const from = Math.max(Math.floor(now() / 1000), (await options.chainTime?.()) ?? 0);
      const deadline = BigInt(from + windowSeconds);
      const signature = await signReviewApproval(owner, domain, { intentHash: item.intentHash, deadline });
      return asOwner(() => client.approveReview(requestId, { deadline, signature }, { signal }), signal);
    },

    reject(requestId, reason, signal) {
      return asOwner(() => client.rejectReview(requestId, reason, { signal }), signal);
    },

    ...(options.cancelIntent === undefined ? {} : { cancel: options.cancelIntent }),
  };
}
