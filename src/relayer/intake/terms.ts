// The relayer's terms of service: whether a wallet has accepted them (GET /v1/tos/status), recording
// an owner's signed acceptance (POST /v1/tos/accept), and the spine's check that a vault's owner has
// accepted the configured version before any of the vault's intents runs.
//
// An acceptance is the wallet's EIP-191 signature over the fixed text of packages/client/src/terms-message.ts, which
// names the wallet, the terms version (and URL) and when it was issued. The relayer rebuilds that text
// itself and recovers the signer, so a signature counts for one wallet and one version only. Accepted
// versions are kept in the ledger; a version once accepted stays accepted, so positive lookups are
// cached in memory. A vault's owner is read from the chain and cached for a short while.
import { getAddress, type Address } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import type { TosAcceptance, TosStatus } from "../../../packages/client/src/types.ts";
import { recoverSigner } from "../../eip712/recover.ts";
import { relayError } from "../../errors.ts";
import type { Store } from "../store.ts";
import { admitUnauthenticated, chargeFailure, type RateLimiter } from "../rate-limiter.ts";
import { personalMessageDigest } from "../../siwe/digest.ts";
import { issuedAtOf, termsMessage } from "../../../packages/client/src/terms-message.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import type { RelayerConfig } from "../config.ts";
import { addressParam } from "../chain/reads.ts";
import { rpcFailure } from "../rpc-errors.ts";

export type TermsConfig = NonNullable<RelayerConfig["terms"]>;

/** An acceptance must have been issued within this long before it is sent (a day)… */
export const TERMS_MESSAGE_MAX_AGE_MS = 86_400_000;
/** …and not further ahead than this (clock skew between the signer and the relayer). */
export const TERMS_MESSAGE_MAX_SKEW_MS = 300_000;
/** How long a vault's on-chain owner is reused before it is read again. */
export const OWNER_CACHE_MS = 30_000;
/** Most entries in each in-memory cache; a full cache is emptied (it only saves reads). */
const MAX_CACHED = 100_000;
const MAX_MESSAGE_LENGTH = 2_048;

const vaultAbi = readArtifact("ServiceVault").abi;

/** GET /v1/tos/status's answer, the very type the client reads. `accepted` is true when nothing blocks the wallet's vaults. */
export type TermsStatus = TosStatus;
/** POST /v1/tos/accept's answer, the very type the client reads. */
export type TermsAcceptanceAnswer = TosAcceptance;

export interface TermsDeps {
  terms?: TermsConfig;
  store: Store;
  /** The bucket for unauthenticated work: a bad acceptance costs its client as a bad signature does. */
  rateLimiter: RateLimiter;
  now?: () => number;
}

export class Terms {
  readonly #deps: TermsDeps;
  readonly #now: () => number;
  /** "wallet:version" pairs known to be accepted (an acceptance is never withdrawn). */
  readonly #accepted = new Set<string>();
  /** A vault's owner ("chainId:vault" → owner), until `until`. */
  readonly #owners = new Map<string, { owner: Address; until: number }>();

  constructor(deps: TermsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** GET /v1/tos/status?wallet= */
  async status(walletParam: string | undefined): Promise<TermsStatus> {
    const wallet = addressParam("wallet", walletParam);
    const latest = await this.#deps.store.latestTermsAcceptance(wallet);
    const last = latest ? { acceptedVersion: latest.version, acceptedAt: isoOf(latest.at) } : {};
    const terms = this.#deps.terms;
    if (!terms) return { wallet, required: false, version: null, accepted: true, ...last };
    const current = await this.#deps.store.findTermsAcceptance(wallet, terms.version);
    const shown = current ? { acceptedVersion: current.version, acceptedAt: isoOf(current.at) } : last;
    return {
      wallet,
      required: true,
      version: terms.version,
      ...(terms.url === undefined ? {} : { url: terms.url }),
      accepted: current !== undefined,
      ...shown,
      ...(current ? {} : { message: termsMessage({ wallet, ...terms, issuedAt: isoOf(this.#now()) }) }),
    };
  }

  /**
   * POST /v1/tos/accept {wallet, version, signature, message}: verifies that `wallet` signed this
   * relayer's terms text for the current version and records it. Anything that is not exactly that
   * is 400 INVALID_SIGNATURE and records nothing; it also costs the client a token of its bucket for
   * unauthenticated work, and a client whose bucket is empty is refused before any verification.
   */
  async accept(body: unknown, client: string): Promise<TermsAcceptanceAnswer> {
    const terms = this.#deps.terms;
    if (!terms) throw relayError("INVALID_REQUEST", "this relayer has no terms of service to accept");
    const fields = parseAcceptBody(body);
    await admitUnauthenticated(this.#deps.rateLimiter, client);
    await chargeFailure(this.#deps.rateLimiter, client, () => this.#verify(terms, fields));
    // Accepting again is idempotent: the first acceptance stands (and costs no write).
    const known = await this.#deps.store.findTermsAcceptance(fields.wallet, terms.version);
    const recorded = known ?? (await this.#deps.store.recordTermsAcceptance({ ...fields, version: terms.version }));
    this.#remember(fields.wallet, terms.version);
    return { wallet: fields.wallet, version: recorded.version, acceptedAt: isoOf(recorded.at) };
  }

  /**
   * The spine's step: the vault's on-chain owner must have accepted the configured terms version,
   * else 403 TERMS_NOT_ACCEPTED naming the version and how to accept it. Nothing when no terms are set.
   */
  async check(chain: ChainRuntime, vault: Address): Promise<void> {
    const terms = this.#deps.terms;
    if (!terms) return;
    const owner = await this.#ownerOf(chain, vault);
    if (await this.#hasAccepted(owner, terms.version)) return;
    const where = terms.url === undefined ? "" : ` (${terms.url})`;
    throw relayError(
      "TERMS_NOT_ACCEPTED",
      `the vault's owner ${owner} has not accepted the relayer's terms version ${terms.version}${where}; ` +
        "the owner signs the text from GET /v1/tos/status?wallet=<owner> and sends it to POST /v1/tos/accept (or runs `relay terms accept`)",
    );
  }

  #verify(terms: TermsConfig, fields: AcceptFields): void {
    if (fields.version !== terms.version) {
      throw relayError("INVALID_SIGNATURE", `version ${fields.version} is not this relayer's terms version (${terms.version}); sign the current text from GET /v1/tos/status`);
    }
    const issuedAt = issuedAtOf(fields.message);
    const expected = issuedAt === undefined ? undefined : termsMessage({ wallet: fields.wallet, ...terms, issuedAt });
    if (fields.message !== expected) {
      throw relayError("INVALID_SIGNATURE", "message is not this relayer's terms text for this wallet and version; sign the text from GET /v1/tos/status");
    }
    const age = this.#now() - Date.parse(issuedAt!);
    if (age > TERMS_MESSAGE_MAX_AGE_MS || age < -TERMS_MESSAGE_MAX_SKEW_MS) {
      throw relayError("INVALID_SIGNATURE", `message was issued at ${issuedAt}; sign a fresh text from GET /v1/tos/status`);
    }
    const signer = recoverSigner(personalMessageDigest(fields.message), fields.signature);
    if (signer.toLowerCase() !== fields.wallet.toLowerCase()) throw relayError("INVALID_SIGNATURE", "signature is not the wallet's signature of message");
  }

  /** Whether the wallet accepted `version`: from memory when known, else from the ledger. */
  async #hasAccepted(wallet: Address, version: string): Promise<boolean> {
    if (this.#accepted.has(`${wallet.toLowerCase()}:${version}`)) return true;
    if (!(await this.#deps.store.findTermsAcceptance(wallet, version))) return false;
    this.#remember(wallet, version);
    return true;
  }

  #remember(wallet: Address, version: string): void {
    if (this.#accepted.size >= MAX_CACHED) this.#accepted.clear();
    this.#accepted.add(`${wallet.toLowerCase()}:${version}`);
  }

  async #ownerOf(chain: ChainRuntime, vault: Address): Promise<Address> {
    const key = `${chain.chainId}:${vault.toLowerCase()}`;
    const now = this.#now();
    const cached = this.#owners.get(key);
    if (cached && cached.until > now) return cached.owner;
    const owner = getAddress(
      (await rpcFailure(() => chain.clients.publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "owner" }))) as Address,
    );
    if (this.#owners.size >= MAX_CACHED) this.#owners.clear();
    this.#owners.set(key, { owner, until: now + OWNER_CACHE_MS });
    return owner;
  }
}

interface AcceptFields {
  wallet: Address;
  version: string;
  signature: string;
  message: string;
}

/** The accept body's fields, or a thrown 400 naming the first bad one. */
function parseAcceptBody(body: unknown): AcceptFields {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw relayError("INVALID_REQUEST", "body must be a JSON object");
  const record = body as Record<string, unknown>;
  const text = (field: string, maxLength: number): string => {
    const value = record[field];
    if (typeof value !== "string" || value === "") throw relayError("INVALID_REQUEST", `${field} is required (a string)`);
    if (value.length > maxLength) throw relayError("INVALID_REQUEST", `${field} must be at most ${maxLength} characters`);
    return value;
  };
  const wallet = addressParam("wallet", text("wallet", 42));
  const version = text("version", 64);
  const message = text("message", MAX_MESSAGE_LENGTH);
  const signature = text("signature", 132);
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw relayError("INVALID_SIGNATURE", "signature must be a 65-byte hex signature");
  return { wallet, version, signature, message };
}

function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
