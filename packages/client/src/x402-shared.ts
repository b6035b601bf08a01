// What both x402 modes build alike: the EIP-3009 authorization of the chosen requirement (from the
// bot in `funding` mode, from the vault in `vault` mode), the off-chain fields shown to the owner, and
// the polling options of a held payment.
import type { Address, Hex, TypedDataDefinition } from "viem";
import type { WaitOptions } from "./relay-client.ts";
import type { ModeContext } from "./paying-fetch.ts";
import { randomRef } from "./sign.ts";
import type { Metadata, PaymentResponse } from "./types.ts";
import { transferWithAuthorizationTypes, type X402Authorization } from "./x402-wire.ts";

/**
 * The authorization of exactly the chosen price to the merchant, valid from 0 until `validBefore`
 * (default: the requirement's maxTimeoutSeconds from now), with `nonce` (default: a fresh random one),
 * and the EIP-712 typed data to sign on the token's own domain.
 */
export async function authorizationFor(
  context: ModeContext,
  from: Address,
  fixed: { validBefore?: bigint; nonce?: Hex } = {},
): Promise<{ authorization: X402Authorization; typedData: TypedDataDefinition }> {
  const { chosen, domain } = context;
  const validBefore = fixed.validBefore ?? (await context.deadline(chosen.requirement.maxTimeoutSeconds));
  const nonce = fixed.nonce ?? randomRef();
  const authorization: X402Authorization = { from, to: chosen.payTo, value: chosen.price.toString(), validAfter: "0", validBefore: validBefore.toString(), nonce };
  const typedData = {
    domain: { name: chosen.name, version: chosen.version, chainId: domain.chainId, verifyingContract: chosen.asset },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: { from, to: chosen.payTo, value: chosen.price, validAfter: 0n, validBefore, nonce },
  } as const satisfies TypedDataDefinition;
  return { authorization, typedData };
}

/** memo (default: what the paywall says it sells), metadata and the resource's URL, for the owner. */
export function offChainFields({ options, url, required }: ModeContext): { memo?: string; metadata?: Metadata; resourceUrl?: string } {
  const description = required.resource?.description;
  const memo = options.memo ?? (description ? `x402: ${description}`.slice(0, 1000) : undefined);
  const resourceUrl = shownUrl(url);
  return {
    ...(memo === undefined ? {} : { memo }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    ...(resourceUrl === undefined ? {} : { resourceUrl }),
  };
}

/** How long and how often a held payment is polled, when waiting was asked for. */
export function waitOptions<R>(wait: boolean | WaitOptions<PaymentResponse> | undefined): WaitOptions<R> {
  return (typeof wait === "object" ? wait : {}) as WaitOptions<R>;
}

// The relayer takes an http(s) URL without credentials of at most 2048 characters; any other is not sent.
function shownUrl(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.username !== "" || parsed.password !== "") return undefined;
  return url.length <= 2048 ? url : undefined;
}
