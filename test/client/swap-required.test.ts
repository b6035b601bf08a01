// The production SDK's auto-swap, played on the wire with the typed client against a real relayer
// on a devnet: a USDC payment from a vault whose USDC the owner withdrew (its WETH kept) is answered
// 200 rejected SWAP_REQUIRED with swap options; the SDK then re-sends the same signed payment with a
// signed swap built from an option (swapSignature, swapFromToken, swapMaxFromAmount, swapToToken,
// swapMinToAmount, swapDeadline, swapRef), under a new idempotency key (the body differs, so the
// first key would be IDEMPOTENCY_CONFLICT).
// The second answer is approved: paid from the swap, in one transaction.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { RelayClient, type PaymentRequestBody, type PaymentResponse } from "../../packages/client/src/index.ts";
import { swapFields } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signSwapIntent } from "../../packages/client/src/sign.ts";
import type { SwapIntent } from "../../packages/client/src/intent-types.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { balanceOf, ownerCall, paymentBody, startEnv, type Env } from "../relayer/harness.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe("the SDK's auto-swap wire sequence: SWAP_REQUIRED, then the payment re-sent with a signed swap", () => {
  let env: Env;
  let relay: RelayClient;
  let usdc: Address;
  let weth: Address;

  beforeAll(async () => {
    env = await startEnv();
    relay = new RelayClient({ baseUrl: env.url, retry: { maxAttempts: 1 } });
    usdc = env.token("USDC");
    weth = env.token("WETH");
    const held = await balanceOf(env, usdc, env.vault);
    await ownerCall(env, "withdraw", [usdc, held - USDC(10), env.ownerAccount.address]);
  });
  afterAll(() => env?.close());

  it("answers each step as the SDK expects", async () => {
    const to = "0x00000000000000000000000000000000000c0ffe" as Address;
    const amount = USDC(250);
    const payment = (await paymentBody(env, { to, amount })) as PaymentRequestBody;
    const wethBefore = await balanceOf(env, weth, env.vault);

    // Step 1: the plain payment.
    const first: PaymentResponse = await relay.submitPayment(payment);
    expect(first).toMatchObject({ requestId: expect.stringMatching(/^req_/), status: "rejected", errorCode: "SWAP_REQUIRED", reason: expect.any(String) });
    const option = first.swapOptions?.find((o) => o.symbol === "WETH");
    expect(option).toMatchObject({ fromToken: weth, toToken: usdc, minToAmount: amount.toString() });
    expect(BigInt(option!.quotedOut)).toBeGreaterThanOrEqual(amount);
    expect(BigInt(option!.maxFromAmount)).toBeLessThanOrEqual(wethBefore);
    expect(await balanceOf(env, usdc, to)).toBe(0n);

    // Step 2: the same signed payment plus the bot's signed swap, built from the option.
    const swap: SwapIntent = {
      bot: env.bot.address,
      toToken: option!.toToken,
      minToAmount: BigInt(option!.minToAmount),
      fromToken: option!.fromToken,
      maxFromAmount: BigInt(option!.maxFromAmount),
      deadline: defaultDeadline(),
      ref: randomRef(),
    };
    const swapSignature = await signSwapIntent(env.bot, env.manifest.domain as never, swap);
    const resent = { ...payment, idempotencyKey: crypto.randomUUID(), ...swapFields(swap, swapSignature) } as PaymentRequestBody;
    const second = await relay.submitPayment(resent);

    // Paid from the swap, the vault's WETH down by at most swapMaxFromAmount, both signed intents
    // used on-chain.
    expect(second).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(second.errorCode).toBeUndefined();
    expect(await balanceOf(env, usdc, to)).toBe(amount);
    const wethAfter = await balanceOf(env, weth, env.vault);
    expect(wethBefore - wethAfter).toBeGreaterThan(0n);
    expect(wethBefore - wethAfter).toBeLessThanOrEqual(swap.maxFromAmount);
    const domain = env.manifest.domain as never;
    const paymentHash = hashIntent("payment", domain, { bot: payment.bot, to, token: usdc, amount, deadline: BigInt(payment.deadline), ref: payment.ref });
    for (const hash of [paymentHash, hashIntent("swap", domain, swap)]) {
      const used = await env.clients.publicClient.readContract({ address: env.vault, abi: readArtifact("ServiceVault").abi, functionName: "usedIntents", args: [hash] });
      expect(used, `intent ${hash} used on-chain`).toBe(true);
    }
  });
});
