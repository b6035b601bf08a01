// AI holds bind on-chain. Attack: a leaked relayer key plus a bot's key send a payment the agents
// held straight to the vault: without the owner's ReviewApproval or 2 of the 3 registered scanners'
// verdicts the vault refuses it (AiApprovalRequired), alone or in a batch, and verdicts the
// attacker signs with the keys it holds (the relayer's, the bot's) count for nothing. The chain
// shows nothing moved. The bound of the in-process arrangement is shown too: whoever holds the
// panel's keys (there, the relayer's host) can sign verdicts, and then the payment moves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { packVerdicts, verdictTypes } from "../../src/eip712/verdict.ts";
import { devScannerKeys } from "../../src/devnet/accounts.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { balanceOf, fresh, get, ownerCall, post, startEnv, type Env } from "../relayer/harness.ts";
import { asRelayer, relayerAccount } from "./support/leaked-relayer.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe("an AI-held payment, sent to the vault directly with a leaked relayer key and the bot's key", () => {
  let env: Env;
  let usdc: Address;
  let bot: PrivateKeyAccount;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    bot = privateKeyToAccount(generatePrivateKey());
    await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, aiTriggerThreshold: USDC(50) }]);
  });
  afterAll(() => env?.close());

  const domain = () => env.manifest.domain as never;
  const vaultUsdc = () => balanceOf(env, usdc, env.vault);

  /** A $60 payment the agents held (no consensus): pending_review, as the relayer answered. */
  async function heldPayment() {
    const to = fresh();
    const intent: PaymentIntent = { bot: bot.address, to, token: usdc, amount: USDC(60), deadline: defaultDeadline(), ref: randomRef() };
    const signature = await signPaymentIntent(bot, domain(), intent);
    const held = await post(`${env.url}/v1/payments`, paymentRequestBody(domain(), intent, signature, { idempotencyKey: crypto.randomUUID(), metadata: { scenario: "ai-no-consensus" } }));
    expect(held.body.status).toBe("pending_review");
    const intentHash = hashIntent("payment", env.manifest.domain as never, intent);
    return { to, intent, signature, intentHash, requestId: held.body.requestId as string };
  }

  const verdictBy = (signer: PrivateKeyAccount, intentHash: Hex, deadline: bigint) =>
    signer.signTypedData({ domain: domain(), types: verdictTypes, primaryType: "AiVerdict", message: { intentHash, deadline } });

  it("executePayment: AiApprovalRequired, nothing moved, still pending review", async () => {
    const { to, intent, signature, requestId } = await heldPayment();
    const before = await vaultUsdc();
    expect(await asRelayer(env, "executePayment", [intent, signature])).toEqual({ refusal: "AiApprovalRequired", status: "reverted" });
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await vaultUsdc()).toBe(before);
    expect((await get(`${env.url}/v1/payments/${requestId}`)).body.status).toBe("pending_review");
  });

  it("in a batch: the item fails, nothing moved", async () => {
    const { to, intent, signature } = await heldPayment();
    const before = await vaultUsdc();
    const attempt = await asRelayer(env, "executePaymentBatch", [[intent], [signature]]);
    expect(attempt.status).toBe("success"); // the batch runs; its one item fails (PaymentFailed)
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await vaultUsdc()).toBe(before);
  });

  it("with verdicts the attacker signs itself (the relayer's key, the bot's key): InvalidVerdicts, nothing moved", async () => {
    const { to, intent, signature, intentHash } = await heldPayment();
    const deadline = defaultDeadline();
    const relayer = relayerAccount(env);
    const forged = packVerdicts([
      { signer: relayer.address, signature: await verdictBy(relayer, intentHash, deadline) },
      { signer: bot.address, signature: await verdictBy(bot, intentHash, deadline) },
    ]);
    const before = await vaultUsdc();
    expect(await asRelayer(env, "executeReviewedPayment", [intent, signature, deadline, forged])).toEqual({ refusal: "InvalidVerdicts", status: "reverted" });
    // One real scanner's verdict is not enough either, alone or with a forged second.
    const [scanner] = devScannerKeys().map((k) => privateKeyToAccount(k.privateKey));
    const one = await verdictBy(scanner!, intentHash, deadline);
    expect((await asRelayer(env, "executeReviewedPayment", [intent, signature, deadline, one])).refusal).toBe("InvalidOwnerApproval");
    const mixed = packVerdicts([{ signer: scanner!.address, signature: one }, { signer: relayer.address, signature: await verdictBy(relayer, intentHash, deadline) }]);
    expect((await asRelayer(env, "executeReviewedPayment", [intent, signature, deadline, mixed])).refusal).toBe("InvalidVerdicts");
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await vaultUsdc()).toBe(before);
  });

  it("the in-process arrangement's bound: with 2 of the panel's keys (held on the relayer's host) the payment moves", async () => {
    const { to, intent, signature, intentHash } = await heldPayment();
    const deadline = defaultDeadline();
    const [a, b] = devScannerKeys().map((k) => privateKeyToAccount(k.privateKey));
    const signed = packVerdicts([
      { signer: a!.address, signature: await verdictBy(a!, intentHash, deadline) },
      { signer: b!.address, signature: await verdictBy(b!, intentHash, deadline) },
    ]);
    expect(await asRelayer(env, "executeReviewedPayment", [intent, signature, deadline, signed])).toEqual({ refusal: "", status: "success" });
    expect(await balanceOf(env, usdc, to)).toBe(USDC(60));
  });
});
