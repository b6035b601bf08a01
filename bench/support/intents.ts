// The benchmarks' fast-path payments: the devnet's default bot paying 1,000 units (0.001 USDC) of
// USDC to one of 5,000 payees in turn, each intent with its own ref, signed on the vault's domain.
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { signPaymentIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";

/** A function giving the next signed payment intent of `manifest`'s default bot. */
export function paymentIntents(manifest: Manifest): () => Promise<{ intent: PaymentIntent; signature: Hex }> {
  const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex);
  const usdc = manifest.tokens.USDC!.address as Address;
  const domain = manifest.domain as never;
  let counter = 0;
  return async () => {
    counter++;
    const intent: PaymentIntent = {
      bot: bot.address,
      to: `0x${(0x10000 + (counter % 5000)).toString(16).padStart(40, "0")}` as Address,
      token: usdc,
      amount: 1000n,
      deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
      ref: `0x${counter.toString(16).padStart(64, "0")}`,
    };
    return { intent, signature: await signPaymentIntent(bot, domain, intent) };
  };
}
