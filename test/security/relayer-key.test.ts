// What a leaked relayer key can do on its own. Attack: holding only the relayer's key and signatures
// bots really made, call the vault directly: execute a review-required bot's held intent, take a
// swap's output or accept one below the floor, move tokens beyond what the bot declared, grant an
// approval, execute an intent the owner cancelled. Before, the first two went through. Now the vault
// refuses each on-chain (the transaction is forced and lands reverted), the chain shows nothing moved,
// and the real relayer, whose nonce the forced transactions used, still serves a normal payment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, keccak256, maxUint256, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { executeRequestBody, paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signExecuteIntent, signPaymentIntent, signReviewApproval, signSwapIntent } from "../../packages/client/src/sign.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import type { ExecuteIntent, PaymentIntent, SwapIntent } from "../../packages/client/src/intent-types.ts";
import { balanceOf, calldata, fresh, get, ownerCall, post, startEnv, type Env } from "../relayer/harness.ts";
import { readOf } from "../relayer/harness-extra.ts";
import { allowanceOf } from "./support/devnet-admin.ts";
import { asRelayer, relayerAccount } from "./support/leaked-relayer.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe("a leaked relayer key alone", () => {
  let env: Env;
  let usdc: Address;
  let weth: Address;
  let lending: Address;
  let router: Address;
  let relayer: Address;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    weth = env.token("WETH");
    lending = env.manifest.contracts.lending as Address;
    router = env.manifest.contracts.router as Address;
    relayer = relayerAccount(env).address;
    await ownerCall(env, "approveProtocol", [lending]);
    await ownerCall(env, "approveProtocol", [usdc]);
    // The relayer sends one transaction first, so that it has a nonce of its own to lose.
    const first = await signedPayment(env.bot, fresh(), USDC(1));
    const paid = await post(`${env.url}/v1/payments`, paymentRequestBody(domain(), first.intent, first.signature, { idempotencyKey: crypto.randomUUID() }));
    expect(paid.body.status).toBe("approved");
  });
  afterAll(() => env?.close());

  const domain = () => env.manifest.domain as never;
  const vaultHoldings = () => Promise.all([balanceOf(env, usdc, env.vault), balanceOf(env, weth, env.vault), env.clients.publicClient.getBalance({ address: env.vault })]);

  async function signedPayment(signer: PrivateKeyAccount, to: Address, amount: bigint) {
    const intent: PaymentIntent = { bot: signer.address, to, token: usdc, amount, deadline: defaultDeadline(), ref: randomRef() };
    return { intent, signature: await signPaymentIntent(signer, domain(), intent) };
  }

  async function signedExecute(signer: PrivateKeyAccount, protocol: Address, callData: Hex, tokens: Address[] = [], amounts: bigint[] = []) {
    const intent: ExecuteIntent = { bot: signer.address, protocol, calldataHash: keccak256(callData), tokens, amounts, value: 0n, deadline: defaultDeadline(), ref: randomRef() };
    return { intent, signature: await signExecuteIntent(signer, domain(), intent), callData };
  }

  describe("a review-required bot's held intents", () => {
    it("its held payment, executed directly: ReviewRequired, nothing moved", async () => {
      const to = fresh();
      const { intent, signature } = await signedPayment(env.reviewedBot, to, USDC(2_000));
      const held = await post(`${env.url}/v1/payments`, paymentRequestBody(domain(), intent, signature, { idempotencyKey: crypto.randomUUID() }));
      expect(held.body.status).toBe("pending_review");
      const before = await vaultHoldings();

      const attempt = await asRelayer(env, "executePayment", [intent, signature]);
      expect(attempt).toEqual({ refusal: "ReviewRequired", status: "reverted" });
      expect(await balanceOf(env, usdc, to)).toBe(0n);
      expect(await vaultHoldings()).toEqual(before);
      expect((await get(`${env.url}/v1/payments/${held.body.requestId}`)).body.status).toBe("pending_review");
    });

    it("its held protocol call, executed directly: ReviewRequired, nothing supplied", async () => {
      const supply = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(500)]);
      const { intent, signature, callData } = await signedExecute(env.reviewedBot, lending, supply, [usdc], [USDC(500)]);
      const held = await post(`${env.url}/v1/execute`, executeRequestBody(domain(), intent, callData, signature, { idempotencyKey: crypto.randomUUID() }));
      expect(held.body.status).toBe("pending_review");
      const poolBefore = await balanceOf(env, usdc, lending);
      const before = await vaultHoldings();

      const attempt = await asRelayer(env, "executeProtocol", [intent, signature, callData]);
      expect(attempt).toEqual({ refusal: "ReviewRequired", status: "reverted" });
      expect(await balanceOf(env, usdc, lending)).toBe(poolBefore);
      expect(await vaultHoldings()).toEqual(before);
    });

    it("the held payment with the relayer's own signature as the owner's approval: InvalidOwnerApproval, nothing moved", async () => {
      const to = fresh();
      const { intent, signature } = await signedPayment(env.reviewedBot, to, USDC(2_000));
      const deadline = defaultDeadline();
      const forged = await signReviewApproval(relayerAccount(env), domain(), { intentHash: hashIntent("payment", domain(), intent), deadline });
      const attempt = await asRelayer(env, "executeReviewedPayment", [intent, signature, deadline, forged]);
      expect(attempt).toEqual({ refusal: "InvalidOwnerApproval", status: "reverted" });
      expect(await balanceOf(env, usdc, to)).toBe(0n);
    });
  });

  it("a bot's swap with minToAmount 0 and the router paying the relayer: SwapBelowFloor, the relayer got nothing, the vault unchanged", async () => {
    const intent: SwapIntent = { bot: env.bot.address, fromToken: usdc, toToken: weth, maxFromAmount: USDC(3_000), minToAmount: 0n, deadline: defaultDeadline(), ref: randomRef() };
    const signature = await signSwapIntent(env.bot, domain(), intent);
    const toRelayer = encodeFunctionData({ abi: readArtifact("mocks/MockSwapRouter").abi, functionName: "swapExactIn", args: [usdc, weth, USDC(3_000), 0n, relayer] });
    const before = await vaultHoldings();

    const attempt = await asRelayer(env, "executeSwap", [intent, signature, router, toRelayer]);
    expect(attempt).toEqual({ refusal: "SwapBelowFloor", status: "reverted" });
    expect(await balanceOf(env, weth, relayer)).toBe(0n);
    expect(await vaultHoldings()).toEqual(before);
  });

  it("USDC.transfer(Y, 20000e6) through executeProtocol with tokens []: ExcessOutflow, Y got nothing", async () => {
    const Y = fresh();
    const { intent, signature, callData } = await signedExecute(env.bot, usdc, calldata("mocks/MockERC20", "transfer", [Y, USDC(20_000)]));
    const before = await vaultHoldings();
    const attempt = await asRelayer(env, "executeProtocol", [intent, signature, callData]);
    expect(attempt).toEqual({ refusal: "ExcessOutflow", status: "reverted" });
    expect(await balanceOf(env, usdc, Y)).toBe(0n);
    expect(await vaultHoldings()).toEqual(before);
  });

  it("USDC.approve(attacker, max) through executeProtocol: ReviewRequired, the allowance stays 0", async () => {
    const attacker = fresh();
    const { intent, signature, callData } = await signedExecute(env.bot, usdc, calldata("mocks/MockERC20", "approve", [attacker, maxUint256]));
    const attempt = await asRelayer(env, "executeProtocol", [intent, signature, callData]);
    expect(attempt).toEqual({ refusal: "ReviewRequired", status: "reverted" });
    expect(await allowanceOf(env, usdc, attacker)).toBe(0n);
  });

  describe("an intent the owner cancelled on-chain", () => {
    let to: Address;
    let signed: Awaited<ReturnType<typeof signedPayment>>;

    beforeAll(async () => {
      to = fresh();
      signed = await signedPayment(env.bot, to, USDC(25));
      const intentHash = hashIntent("payment", domain(), signed.intent);
      await ownerCall(env, "cancelIntent", [intentHash]);
      expect(await readOf<boolean>(env, env.vault, "ServiceVault", "cancelledIntents", [intentHash])).toBe(true);
    });

    it("executed directly: IntentCancelled, nothing moved", async () => {
      const attempt = await asRelayer(env, "executePayment", [signed.intent, signed.signature]);
      expect(attempt).toEqual({ refusal: "IntentCancelled", status: "reverted" });
      expect(await balanceOf(env, usdc, to)).toBe(0n);
    });

    it("through the relayer's API: 409 INTENT_REJECTED, nothing moved", async () => {
      const res = await post(`${env.url}/v1/payments`, paymentRequestBody(domain(), signed.intent, signed.signature, { idempotencyKey: crypto.randomUUID() }));
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("INTENT_REJECTED");
      expect(await balanceOf(env, usdc, to)).toBe(0n);
    });
  });

  it("after the forced transactions, the real relayer still serves a normal payment (its nonce recovers)", async () => {
    const forced = await env.clients.publicClient.getTransactionCount({ address: relayer });
    expect(forced).toBeGreaterThanOrEqual(8); // its own payment and the forced transactions
    const to = fresh();
    const { intent, signature } = await signedPayment(env.bot, to, USDC(5));
    const res = await post(`${env.url}/v1/payments`, paymentRequestBody(domain(), intent, signature, { idempotencyKey: crypto.randomUUID() }));
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await balanceOf(env, usdc, to)).toBe(USDC(5));
  });
});
