// A stranger's key: neither a bot of the vault, nor its owner, nor an authorized relayer. Signing
// intents in its own name or in a bot's gets it nothing at the relayer, and the owner's on-chain
// decisions (cancelling an intent, the swap tolerance, a bot's swap volume window) are not its to
// make: each attempt is forced on-chain, and the chain is read to show nothing changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { balanceOf, fresh, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";
import { readOf, swapBodyAs } from "../relayer/harness-extra.ts";
import { asAccount } from "./support/leaked-relayer.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe("a stranger's key", () => {
  let env: Env;
  let stranger: PrivateKeyAccount;
  let usdc: Address;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    stranger = privateKeyToAccount(generatePrivateKey());
    await env.owner.sendValue(stranger.address, parseEther("1"));
  });
  afterAll(() => env?.close());

  const vaultUsdc = () => balanceOf(env, usdc, env.vault);

  it("intents signed in its own name: 403 BOT_NOT_ACTIVE for a payment and a swap, nothing moved", async () => {
    const to = fresh();
    const before = await vaultUsdc();
    const payment = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(10) }, { signer: stranger }));
    expect(payment.status).toBe(403);
    expect(payment.body.code).toBe("BOT_NOT_ACTIVE");
    const swap = await post(`${env.url}/v1/swap`, await swapBodyAs(env, stranger, { fromToken: usdc, toToken: env.token("WETH"), maxFromAmount: USDC(100), minToAmount: 0n }));
    expect(swap.status).toBe(403);
    expect(swap.body.code).toBe("BOT_NOT_ACTIVE");
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await vaultUsdc()).toBe(before);
  });

  it("an intent in the default bot's name signed by the stranger: 400 INVALID_SIGNATURE, nothing moved", async () => {
    const to = fresh();
    const before = await vaultUsdc();
    const intent: PaymentIntent = { bot: env.bot.address, to, token: usdc, amount: USDC(10), deadline: defaultDeadline(), ref: randomRef() };
    const signature = await signPaymentIntent(stranger, env.manifest.domain as never, intent);
    const res = await post(`${env.url}/v1/payments`, paymentRequestBody(env.manifest.domain as never, intent, signature, { idempotencyKey: crypto.randomUUID() }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("INVALID_SIGNATURE");
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await vaultUsdc()).toBe(before);
  });

  describe("the owner's on-chain decisions", () => {
    it("cancelIntent on a bot's signed intent: NotOwnerOrOperator, the intent is not cancelled and still pays", async () => {
      const to = fresh();
      const intent: PaymentIntent = { bot: env.bot.address, to, token: usdc, amount: USDC(3), deadline: defaultDeadline(), ref: randomRef() };
      const signature = await signPaymentIntent(env.bot, env.manifest.domain as never, intent);
      const intentHash = hashIntent("payment", env.manifest.domain as never, intent);

      expect(await asAccount(env, stranger, "cancelIntent", [intentHash])).toEqual({ refusal: "NotOwnerOrOperator", status: "reverted" });
      expect(await readOf<boolean>(env, env.vault, "ServiceVault", "cancelledIntents", [intentHash])).toBe(false);
      const res = await post(`${env.url}/v1/payments`, paymentRequestBody(env.manifest.domain as never, intent, signature, { idempotencyKey: crypto.randomUUID() }));
      expect(res.body.status).toBe("approved");
      expect(await balanceOf(env, usdc, to)).toBe(USDC(3));
    });

    it("setSwapSlippageBps(10000): NotOwner, the tolerance stays 1%", async () => {
      expect(await asAccount(env, stranger, "setSwapSlippageBps", [10_000n])).toEqual({ refusal: "NotOwner", status: "reverted" });
      expect(await readOf<bigint>(env, env.vault, "ServiceVault", "swapSlippageBps")).toBe(100n);
    });

    it("setBotSwapLimit on the default bot: NotOwner, no window is set", async () => {
      expect(await asAccount(env, stranger, "setBotSwapLimit", [env.bot.address, 1n, 1n])).toEqual({ refusal: "NotOwner", status: "reverted" });
      expect(await readOf(env, env.vault, "ServiceVault", "getBotSwapLimit", [env.bot.address])).toEqual({ amount: 0n, maxCount: 0n, windowSeconds: 0n });
    });

    it("executePayment with a bot's real signature: NotAuthorizedRelayer, nothing moved", async () => {
      const to = fresh();
      const intent: PaymentIntent = { bot: env.bot.address, to, token: usdc, amount: USDC(3), deadline: defaultDeadline(), ref: randomRef() };
      const signature = await signPaymentIntent(env.bot, env.manifest.domain as never, intent);
      expect(await asAccount(env, stranger, "executePayment", [intent, signature])).toEqual({ refusal: "NotAuthorizedRelayer", status: "reverted" });
      expect(await balanceOf(env, usdc, to)).toBe(0n);
    });
  });
});
