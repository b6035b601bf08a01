// x402 `vault` mode: the vault itself is the payer. The bot signs an X402Intent for exactly the
// chosen payment (token, merchant, amount, the authorization's window and nonce); the relayer checks
// it against the vault's policy (the merchant is the destination), holds it for review where the
// policy says so, and executes it: the vault records that one EIP-3009 digest as approved, which its
// ERC-1271 `isValidSignature` then accepts. The paid retry carries the authorization from the vault;
// the merchant's facilitator settles it from the vault. No money passes through the bot's key.
import { signX402Request } from "./bodies.ts";
import { RelayApiError } from "./errors.ts";
import type { X402Intent } from "./intent-types.ts";
import type { ModeContext, ModePayment } from "./paying-fetch.ts";
import { DEFAULT_DEADLINE_WINDOW_SECONDS, randomRef } from "./sign.ts";
import type { X402Requirement } from "./types.ts";
import { authorizationFor, offChainFields, waitOptions } from "./x402-shared.ts";

/** Thrown before anything is recorded when this relayer has no x402 route: `funding` is used instead. */
export class VaultCannotPay extends Error {
  override name = "VaultCannotPay";
}

/** What the body of POST /v1/x402 may hold of the requirement, as JSON (the relayer's limit). */
const REQUIREMENT_MAX_BYTES = 4096;

export async function payFromVault(context: ModeContext): Promise<ModePayment> {
  const { options, domain, chosen } = context;
  const relay = options.relay;
  const deadline = await context.deadline(options.deadlineSeconds ?? DEFAULT_DEADLINE_WINDOW_SECONDS);
  // The authorization outlives the intent by the merchant's timeout: the intent may execute up to its
  // deadline (after a review), and the merchant then has its usual time to settle.
  const intent: X402Intent = {
    bot: options.bot.address,
    token: chosen.asset,
    payTo: chosen.payTo,
    amount: chosen.price,
    validAfter: 0n,
    validBefore: deadline + BigInt(chosen.requirement.maxTimeoutSeconds),
    nonce: randomRef(),
    deadline,
  };
  const { memo, metadata } = offChainFields(context);
  const body = await signX402Request(options.bot, domain, intent, {
    ...(memo === undefined ? {} : { memo }),
    ...(metadata === undefined ? {} : { metadata }),
    x402: requirementShown(context),
  });
  let submitted;
  try {
    submitted = await relay.submitX402(body);
  } catch (error) {
    // A relayer without the route answers 404 NOT_FOUND for it (not VAULT_NOT_FOUND): nothing was recorded.
    if (error instanceof RelayApiError && error.status === 404 && error.code === "NOT_FOUND") throw new VaultCannotPay("the relayer has no POST /v1/x402");
    throw error;
  }
  const executed = await context.executed(
    submitted,
    (id) => relay.getX402(id),
    (held) => relay.resolve("x402", held, waitOptions(options.wait)),
  );
  const { authorization } = await authorizationFor(context, domain.verifyingContract, { validBefore: intent.validBefore, nonce: intent.nonce });
  // The vault's ERC-1271 check reads only whether it recorded the digest: the signature is empty.
  return { requestId: executed.requestId, status: executed.status, txHash: executed.txHash, authorization, signature: "0x" };
}

/** The requirement as the paywall stated it, with its resource, for the owner (without `extra` when too large). */
function requirementShown({ chosen, required, url }: ModeContext): X402Requirement {
  const { scheme, network, amount, maxTimeoutSeconds, extra } = chosen.requirement;
  const shown: X402Requirement = {
    resource: required.resource?.url ?? url,
    ...(required.resource?.description ? { description: required.resource.description } : {}),
    ...(required.resource?.mimeType ? { mimeType: required.resource.mimeType } : {}),
    scheme,
    network,
    payTo: chosen.payTo,
    amount,
    asset: chosen.asset,
    maxTimeoutSeconds,
    ...(extra === undefined ? {} : { extra }),
  };
  if (new TextEncoder().encode(JSON.stringify(shown)).length <= REQUIREMENT_MAX_BYTES) return shown;
  const { extra: _extra, ...rest } = shown;
  return rest;
}
