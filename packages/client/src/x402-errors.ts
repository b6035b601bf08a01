// The errors of paying an x402 paywall (`payingFetch`). Each says whether anything was signed or
// moved: a price above the maximum and an unpayable requirement are refused before anything is
// signed; a held or rejected payment moved nothing from the vault; a failed settlement comes after
// the vault's payment executed (its `payment` names the request and the transaction).
import type { X402Payment } from "./paying-fetch.ts";
import type { X402PaymentRequirements } from "./x402-wire.ts";

/** How the vault pays: `vault` (the vault is the payer) or `funding` (the vault funds the bot, which pays). */
export type X402Mode = "vault" | "funding";

/** Any failure of an x402 purchase. `code` is stable; branch on it or on the class. */
export class X402Error extends Error {
  override name = "X402Error";
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** The paywall's 402 is not x402 v2 as this client reads it. Nothing was signed. */
export class X402ProtocolError extends X402Error {
  override name = "X402ProtocolError";
  constructor(message: string) {
    super("X402_PROTOCOL", message);
  }
}

/** No requirement of the 402 can be paid from this vault (chain, scheme, token, balance). Nothing was signed. */
export class X402NoPayableRequirementError extends X402Error {
  override name = "X402NoPayableRequirementError";
  /** Why each offered requirement was passed over, in the order offered. */
  readonly reasons: readonly string[];
  constructor(reasons: readonly string[]) {
    super("X402_NOT_PAYABLE", `no payment the paywall accepts can be made from this vault: ${reasons.length === 0 ? "it offers none" : reasons.join("; ")}`);
    this.reasons = reasons;
  }
}

/** The price is above the caller's maximum (inclusive). Nothing was signed and nothing moved. */
export class X402PriceAboveMaxError extends X402Error {
  override name = "X402PriceAboveMaxError";
  readonly requirement: X402PaymentRequirements;
  /** Base units of the requirement's asset. */
  readonly price: bigint;
  readonly max: bigint;
  constructor(requirement: X402PaymentRequirements, max: bigint) {
    super("X402_PRICE_ABOVE_MAX", `the price ${requirement.amount} (base units of ${requirement.asset}) is above the maximum ${max}`);
    this.requirement = requirement;
    this.price = BigInt(requirement.amount);
    this.max = max;
  }
}

/** A failure about one payment request the relayer knows (`requestId`), in `mode`. */
export class X402RequestError extends X402Error {
  override name = "X402RequestError";
  readonly requestId: string;
  readonly mode: X402Mode;
  constructor(code: string, message: string, requestId: string, mode: X402Mode) {
    super(code, message);
    this.requestId = requestId;
    this.mode = mode;
  }
}

/**
 * The vault's payment is held for the owner's review and the caller did not ask to wait. Nothing
 * moved and no payment authorization was made; follow `requestId` with the relayer.
 */
export class X402PaymentHeldError extends X402RequestError {
  override name = "X402PaymentHeldError";
  constructor(requestId: string, mode: X402Mode) {
    super("X402_PAYMENT_HELD", `the payment ${requestId} is held for the owner's review`, requestId, mode);
  }
}

/** The relayer rejected the vault's payment (a policy, the AI scan or the owner). Nothing moved. */
export class X402PaymentRejectedError extends X402RequestError {
  override name = "X402PaymentRejectedError";
  readonly reason: string | undefined;
  readonly errorCode: string | undefined;
  constructor(requestId: string, mode: X402Mode, reason: string | undefined, errorCode: string | undefined) {
    super("X402_PAYMENT_REJECTED", `the payment ${requestId} was rejected${reason ? `: ${reason}` : ""}`, requestId, mode);
    this.reason = reason;
    this.errorCode = errorCode;
  }
}

/**
 * The vault's payment executed but the paywall did not accept the paid retry (it answered `status`).
 * In `vault` mode the merchant was not paid (the authorization lapses at its validBefore); in
 * `funding` mode the funds are on the bot's key.
 */
export class X402SettlementError extends X402Error {
  override name = "X402SettlementError";
  readonly payment: X402Payment;
  readonly status: number;
  constructor(payment: X402Payment, status: number, reason: string | undefined) {
    super("X402_SETTLEMENT_FAILED", `the paywall answered ${status} to the paid request${reason ? ` (${reason})` : ""}; payment ${payment.requestId}, transaction ${payment.txHash}`);
    this.payment = payment;
    this.status = status;
  }
}
