// x402 `funding` mode: the vault pays exactly the price to the bot's own address, the payment
// carrying `x402Funding` (the requirement: the vault's destination rules and the owner see the
// merchant); once that payment executed, the bot signs the EIP-3009 authorization from its own key.
import type { Hex } from "viem";
import { signPaymentRequest } from "./bodies.ts";
import { DEFAULT_DEADLINE_WINDOW_SECONDS, randomRef } from "./sign.ts";
import type { ModeContext, ModePayment } from "./paying-fetch.ts";
import { authorizationFor, offChainFields, waitOptions } from "./x402-shared.ts";

export async function payByFunding(context: ModeContext): Promise<ModePayment> {
  const { options, domain, chosen } = context;
  const bot = options.bot.address;
  const intent = {
    bot,
    to: bot,
    token: chosen.asset,
    amount: chosen.price,
    deadline: await context.deadline(options.deadlineSeconds ?? DEFAULT_DEADLINE_WINDOW_SECONDS),
    ref: randomRef(),
  };
  const body = await signPaymentRequest(options.bot, domain, intent, { ...offChainFields(context), x402Funding: fundingRequirement(context) });
  const submitted = await options.relay.submitPayment(body);
  const executed = await context.executed(
    submitted,
    (id) => options.relay.getPayment(id),
    (held) => options.relay.resolve("payment", held, waitOptions(options.wait)),
  );
  // Only now, with the funds on the bot's key, is the authorization made: for exactly the price.
  const { authorization, typedData } = await authorizationFor(context, bot);
  const signature: Hex = await options.bot.signTypedData(typedData);
  return { requestId: executed.requestId, status: executed.status, txHash: executed.txHash, authorization, signature };
}

/** The requirement as `x402Funding` (at most 2048 bytes of JSON: without `extra` when it does not fit). */
function fundingRequirement({ chosen }: ModeContext): Record<string, unknown> {
  const full = { ...chosen.requirement };
  if (JSON.stringify(full).length <= 2048) return full;
  const { extra: _extra, ...rest } = full;
  return rest;
}
