// The common payment body read without zod: the nine intent and routing fields, an optional
// idempotencyKey and memo, nothing else. Each field goes through the same format rule the schema
// applies (field-checks.ts), and the result is what paymentBodySchema's parse gives for that body.
// Anything else (another field, a wrong type, an invalid value) is left to the schema, which gives
// the answer and the error message; test/api/plain-payment.test.ts proves both ways equal on
// generated valid and invalid bodies.
import {
  checkAddress,
  checkAmount,
  checkChainId,
  checkDeadline,
  checkIdempotencyKey,
  checkMemo,
  checkRef,
  checkSignature,
  isInvalid,
  type Invalid,
} from "./field-checks.ts";
import type { PaymentBody } from "./schemas.ts";

/** The only fields a plain payment body carries. */
const PLAIN_FIELDS: ReadonlySet<string> = new Set([
  "bot", "to", "token", "amount", "deadline", "ref", "signature", "chainId", "vaultAddress", "idempotencyKey", "memo",
]);

/** The normalized value of a string field that passes `check`, else undefined. */
function passed<T>(check: (value: string) => T | Invalid, value: unknown): T | undefined {
  if (typeof value !== "string") return undefined;
  const out = check(value);
  return isInvalid(out) ? undefined : out;
}

/** An optional string field (absent, undefined or null pass as they are): false when it does not pass. */
function passedNullish<T>(check: (value: string) => T | Invalid, value: unknown): T | null | undefined | false {
  if (value === undefined || value === null) return value;
  return passed(check, value) ?? false;
}

/**
 * paymentBodySchema's output for a plain payment body, or undefined when the body is not one or
 * does not pass (the schema then reads it).
 */
export function plainPaymentBody(body: Record<string, unknown>): PaymentBody | undefined {
  for (const key in body) if (!PLAIN_FIELDS.has(key)) return undefined;
  const bot = passed(checkAddress, body.bot);
  const to = passed(checkAddress, body.to);
  const token = passed(checkAddress, body.token);
  const amount = passed(checkAmount, body.amount);
  const deadline = passed(checkDeadline, body.deadline);
  const ref = passed(checkRef, body.ref);
  const signature = passed(checkSignature, body.signature);
  const chainId = typeof body.chainId === "number" ? checkChainId(body.chainId) : undefined;
  const vaultAddress = passed(checkAddress, body.vaultAddress);
  if (
    bot === undefined || to === undefined || token === undefined || amount === undefined || deadline === undefined ||
    ref === undefined || signature === undefined || chainId === undefined || isInvalid(chainId) || vaultAddress === undefined
  ) {
    return undefined;
  }
  const out: PaymentBody = { bot, to, token, amount, deadline, ref, signature, chainId, vaultAddress };
  if ("idempotencyKey" in body) {
    const key = passedNullish(checkIdempotencyKey, body.idempotencyKey);
    if (key === false) return undefined;
    out.idempotencyKey = key;
  }
  if ("memo" in body) {
    const memo = passedNullish(checkMemo, body.memo);
    if (memo === false) return undefined;
    out.memo = memo;
  }
  return out;
}
