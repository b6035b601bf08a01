// Sign-In with Ethereum (EIP-4361) for the owner routes (DESIGN.md section 6): hands out nonces,
// turns a signed SIWE message into a bearer session token, and reads the token back from an
// `Authorization` header. Every failure is a 401 UNAUTHORIZED whose details say what was wrong.
//
// Nonces: a nonce is spent by the first login whose message parses and names it, whatever that
// login's outcome. It is spent before any other check runs, so a failed attempt (wrong domain,
// expired message, bad signature) needs a fresh nonce, and a replayed message never logs in twice.
// Nonces take no room until they are spent (nonces.ts): no flood of nonce requests can evict one.
import type { Address } from "viem";
import { recoverSigner } from "../../eip712/recover.ts";
import { isRelayError, relayError } from "../../errors.ts";
import { personalMessageDigest } from "../../siwe/digest.ts";
import { dateTimeMs } from "../../../packages/client/src/siwe-grammar.ts";
import { parseSiweMessage, type SiweMessage } from "../../../packages/client/src/siwe-message.ts";
import { NonceBook, type NonceIssuer } from "./nonces.ts";
import { decodeSessionToken, encodeSessionToken } from "./session-token.ts";

export { loadOrCreateAuthSecret } from "./secret.ts";

export interface OwnerAuthOptions {
  /** Signs session tokens; at least 32 bytes (see `loadOrCreateAuthSecret`). */
  secret: Uint8Array;
  /** host[:port] of the relayer: the only `domain` a SIWE message may name. */
  domain: string;
  /** The relayer's base URL: the only `uri` a SIWE message may name. */
  uri: string;
  /** Chains served: a SIWE message's Chain ID must be one of them. */
  chainIds: readonly number[];
  /** Longest session, in ms. Default 1 hour. */
  sessionTtlMs?: number;
  /** How long a nonce may wait for its login, in ms. Default 5 minutes. */
  nonceTtlMs?: number;
  /**
   * Most spent, unexpired nonces remembered (to refuse their replay). When full, a login is refused
   * with 429 RATE_LIMITED until the oldest expire; none is ever forgotten early. Default 100000.
   */
  maxSpentNonces?: number;
  /** Clock in ms since the epoch. Default Date.now. */
  now?: () => number;
  /**
   * Where nonces are issued and spent. Default: a NonceBook of this process (the nonce options
   * above apply to it); several instances share one (PostgresNonceBook) so that a nonce issued by
   * one can be spent on any, once.
   */
  nonces?: NonceIssuer;
}

export const DEFAULT_SESSION_TTL_MS = 60 * 60 * 1000;
export const DEFAULT_NONCE_TTL_MS = 5 * 60 * 1000;
export const DEFAULT_MAX_SPENT_NONCES = 100_000;
/** How far in the future a message's Issued At may be (clock skew between owner and relayer). */
export const MAX_ISSUED_AT_SKEW_MS = 60_000;

function unauthorized(reason: string): never {
  throw relayError("UNAUTHORIZED", reason);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export class OwnerAuth {
  readonly #secret: Uint8Array;
  readonly #domain: string;
  readonly #uri: string;
  readonly #chainIds: ReadonlySet<number>;
  readonly #sessionTtlMs: number;
  readonly #now: () => number;
  readonly #nonces: NonceIssuer;

  constructor(options: OwnerAuthOptions) {
    if (options.secret.length < 32) throw new TypeError("the auth secret must be at least 32 bytes");
    if (options.chainIds.length === 0) throw new TypeError("at least one chain id must be served");
    this.#secret = Uint8Array.from(options.secret);
    this.#domain = options.domain;
    this.#uri = options.uri;
    this.#chainIds = new Set(options.chainIds);
    this.#sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#nonces = options.nonces ?? new NonceBook({
      ttlMs: options.nonceTtlMs ?? DEFAULT_NONCE_TTL_MS,
      maxSpent: options.maxSpentNonces ?? DEFAULT_MAX_SPENT_NONCES,
      now: this.#now,
    });
  }

  /** A fresh single-use nonce for a SIWE message, and when it stops being accepted. */
  issueNonce(): { nonce: string; expiresAt: string } {
    const { nonce, expiresAtMs } = this.#nonces.issue();
    return { nonce, expiresAt: iso(expiresAtMs) };
  }

  /**
   * Verifies a signed SIWE message; returns a bearer session that lasts the session TTL, or until
   * the message's Expiration Time if that is sooner. Throws relayError("UNAUTHORIZED", reason) on
   * any failure.
   */
  async login(message: string, signature: string): Promise<{ token: string; address: `0x${string}`; expiresAt: string }> {
    let siwe: SiweMessage;
    try {
      siwe = parseSiweMessage(message);
    } catch (error) {
      unauthorized((error as Error).message);
    }
    const now = this.#now();
    await this.#spendNonce(siwe.nonce);
    this.#checkBinding(siwe);
    const expirationMs = this.#checkTimes(siwe, now);
    this.#checkSignature(message, signature, siwe.address);
    const expiresAtMs = Math.min(now + this.#sessionTtlMs, expirationMs ?? Number.POSITIVE_INFINITY);
    const token = encodeSessionToken(this.#secret, { address: siwe.address, expiresAtMs });
    return { token, address: siwe.address, expiresAt: iso(expiresAtMs) };
  }

  /** From an `Authorization` header value: the signed-in address, or throws relayError("UNAUTHORIZED", reason). */
  authenticate(authorization: string | undefined): `0x${string}` {
    if (authorization === undefined || authorization.trim() === "") {
      unauthorized("missing Authorization header; sign in with POST /v1/auth/login");
    }
    const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match === null) unauthorized('the Authorization header must be "Bearer <token>"');
    const check = decodeSessionToken(this.#secret, match[1]!);
    if (!check.ok) {
      unauthorized(check.reason === "malformed" ? "the session token is malformed" : "the session token is not valid for this relayer");
    }
    if (this.#now() >= check.session.expiresAtMs) unauthorized("the session has expired; sign in again");
    return check.session.address;
  }

  async #spendNonce(nonce: string): Promise<void> {
    const check = await this.#nonces.spend(nonce);
    if (check.ok) return;
    switch (check.reason) {
      case "unknown":
        unauthorized("the nonce was not issued by this relayer (or was issued before it restarted); request a new one");
      case "expired":
        unauthorized("the nonce has expired; request a new one");
      case "used":
        unauthorized("the nonce was already used; request a new one");
      case "full":
        throw relayError("RATE_LIMITED", "too many sign-ins within one nonce lifetime; try again later", { retryAfterSeconds: check.retryAfterSeconds });
    }
  }

  #checkBinding(siwe: SiweMessage): void {
    if (siwe.domain !== this.#domain) unauthorized(`the message's domain "${siwe.domain}" is not this relayer's ("${this.#domain}")`);
    if (siwe.uri !== this.#uri) unauthorized("the message's URI is not this relayer's base URL");
    if (!this.#chainIds.has(siwe.chainId)) {
      unauthorized(`chain ID ${siwe.chainId} is not served (served: ${[...this.#chainIds].join(", ")})`);
    }
  }

  /** Checks Issued At, Expiration Time and Not Before; returns the expiration in ms, if any. */
  #checkTimes(siwe: SiweMessage, now: number): number | undefined {
    // The parser has checked every time is valid RFC 3339, so dateTimeMs returns a number.
    if (dateTimeMs(siwe.issuedAt)! > now + MAX_ISSUED_AT_SKEW_MS) {
      unauthorized(`Issued At ${siwe.issuedAt} is more than ${MAX_ISSUED_AT_SKEW_MS / 1000} s in the future`);
    }
    const expirationMs = siwe.expirationTime === undefined ? undefined : dateTimeMs(siwe.expirationTime)!;
    if (expirationMs !== undefined && expirationMs <= now) unauthorized(`the message expired at ${siwe.expirationTime}`);
    if (siwe.notBefore !== undefined && dateTimeMs(siwe.notBefore)! > now) {
      unauthorized(`the message is not valid before ${siwe.notBefore}`);
    }
    return expirationMs;
  }

  #checkSignature(message: string, signature: string, address: Address): void {
    let signer: Address;
    try {
      signer = recoverSigner(personalMessageDigest(message), signature);
    } catch (error) {
      if (isRelayError(error)) unauthorized(`bad signature: ${error.details ?? error.message}`);
      throw error;
    }
    if (signer !== address) unauthorized("the signature was not made by the message's address");
  }
}
