// Validation of a swap-and-pay body: POST /v1/payments with the seven swap fields (all or none),
// each field's own code, the pair rules (swapToToken = token, swapMinToAmount ≥ amount), and the
// normalized request's `swap` (its bot is the payment's).
import { describe, expect, it } from "vitest";
import { validateBody } from "../../src/api/validate.ts";
import { requestFingerprint } from "../../src/api/fingerprint.ts";
import { RelayError } from "../../src/errors.ts";
import { paymentBody } from "./bodies.ts";

const SIG = `0x${"ab".repeat(64)}1b`;
const REF = `0x${"cd".repeat(32)}`;
const WETH = "0x4200000000000000000000000000000000000006";

function swapAndPayBody(): Record<string, unknown> {
  const body = paymentBody();
  return {
    ...body,
    swapSignature: SIG,
    swapFromToken: WETH,
    swapMaxFromAmount: "10000000000000000",
    swapToToken: body.token,
    swapMinToAmount: body.amount,
    swapDeadline: body.deadline,
    swapRef: REF,
  };
}

function refusal(body: unknown): { code: string; details?: string; status: number } {
  try {
    validateBody("payment", body);
  } catch (error) {
    expect(error).toBeInstanceOf(RelayError);
    const e = error as RelayError;
    return { code: e.code, details: e.details, status: e.status };
  }
  throw new Error("expected a refusal");
}

describe("swap-and-pay body", () => {
  it("normalizes into the payment plus its swap, signed by the same bot", () => {
    const body = swapAndPayBody();
    const request = validateBody("payment", body);
    expect(request.swap).toEqual({
      intent: {
        bot: request.intent.bot,
        toToken: request.intent.token,
        minToAmount: request.intent.amount,
        fromToken: WETH,
        maxFromAmount: 10n ** 16n,
        deadline: request.intent.deadline,
        ref: REF,
      },
      signature: SIG,
    });
    // a plain payment has none, and the swap is part of the idempotency fingerprint
    const plain = validateBody("payment", paymentBody());
    expect(plain.swap).toBeUndefined();
    expect(requestFingerprint(request)).not.toBe(requestFingerprint(plain));
  });

  it("all or none: a missing swap field is 400 INVALID_REQUEST naming it", () => {
    for (const field of ["swapSignature", "swapFromToken", "swapMaxFromAmount", "swapToToken", "swapMinToAmount", "swapDeadline", "swapRef"]) {
      const { [field]: _dropped, ...body } = swapAndPayBody();
      const r = refusal(body);
      expect(r).toMatchObject({ code: "INVALID_REQUEST", status: 400 });
      expect(r.details).toContain(field);
    }
  });

  it("the pair rules: swapToToken must be the payment's token, swapMinToAmount at least its amount", () => {
    const body = swapAndPayBody();
    expect(refusal({ ...body, swapToToken: WETH })).toMatchObject({ code: "INVALID_REQUEST", details: expect.stringContaining("swapToToken") });
    const below = (BigInt(body.amount as string) - 1n).toString();
    expect(refusal({ ...body, swapMinToAmount: below })).toMatchObject({ code: "INVALID_REQUEST", details: expect.stringContaining("swapMinToAmount") });
    expect(refusal({ ...body, swapMaxFromAmount: "0" })).toMatchObject({ code: "INVALID_AMOUNT" });
  });

  it("each swap field answers its own code", () => {
    const body = swapAndPayBody();
    expect(refusal({ ...body, swapSignature: "0x12" }).code).toBe("INVALID_SIGNATURE");
    expect(refusal({ ...body, swapFromToken: "0x12" }).code).toBe("INVALID_ADDRESS");
    expect(refusal({ ...body, swapToToken: "nope" }).code).toBe("INVALID_ADDRESS");
    expect(refusal({ ...body, swapMaxFromAmount: 5 }).code).toBe("INVALID_AMOUNT");
    expect(refusal({ ...body, swapMinToAmount: "-1" }).code).toBe("INVALID_AMOUNT");
    expect(refusal({ ...body, swapDeadline: 1900000000 }).code).toBe("INVALID_DEADLINE");
    expect(refusal({ ...body, swapRef: "0x1234" }).code).toBe("INVALID_REF");
  });
});
