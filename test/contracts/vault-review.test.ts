import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calldata, executeIntent, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

describe("ServiceVault owner-approved (reviewed) execution", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
    await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.lending]);
  });
  afterAll(async () => f?.chain.close());

  /** A payment whose bot deadline has already passed, with the owner's approval for one hour. */
  const heldPayment = async () => {
    const intent = await f.payment({ deadline: (await f.now()) + 30n, amount: USD(7) });
    const botSig = await f.signPayment(f.bot, intent);
    await f.increaseTime(60);
    const intentHash = await f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [intent]);
    const approvalDeadline = (await f.now()) + 3600n;
    return { intent, botSig, intentHash, approvalDeadline };
  };

  it("a held payment the owner approved executes after the bot's deadline", async () => {
    const { intent, botSig, intentHash, approvalDeadline } = await heldPayment();
    expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, botSig]))).name).toBe("DeadlineExpired");
    const ownerSig = await f.signReview(f.owner, intentHash, approvalDeadline);
    const before = await f.balanceOf(f.tokens.usdc, intent.to);
    await f.write(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, approvalDeadline, ownerSig]);
    expect(await f.balanceOf(f.tokens.usdc, intent.to)).toBe(before + USD(7));
    expect(await f.read(f.vault, "ServiceVault", "usedIntents", [intentHash])).toBe(true);
    // replay: neither path can run it again
    const again = await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, approvalDeadline, ownerSig]));
    expect(again).toEqual({ name: "IntentAlreadyUsed", args: [intentHash] });
  });

  it("an approval signed by anyone but the owner is refused with InvalidOwnerApproval", async () => {
    const { intent, botSig, intentHash, approvalDeadline } = await heldPayment();
    for (const signer of [f.operator, f.bot, f.relayer]) {
      const sig = await f.signReview(signer, intentHash, approvalDeadline);
      const r = await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, approvalDeadline, sig]));
      expect(r.name).toBe("InvalidOwnerApproval");
    }
  });

  it("an owner approval of another intent or another deadline is refused", async () => {
    const { intent, botSig, intentHash, approvalDeadline } = await heldPayment();
    const otherHash = `0x${"ab".repeat(32)}` as Hex;
    const wrongIntent = await f.signReview(f.owner, otherHash, approvalDeadline);
    const wrongDeadline = await f.signReview(f.owner, intentHash, approvalDeadline + 1n);
    for (const sig of [wrongIntent, wrongDeadline]) {
      const r = await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, approvalDeadline, sig]));
      expect(r.name).toBe("InvalidOwnerApproval");
    }
  });

  it("an expired owner approval is refused with ApprovalExpired", async () => {
    const { intent, botSig, intentHash } = await heldPayment();
    const approvalDeadline = (await f.now()) + 10n;
    const ownerSig = await f.signReview(f.owner, intentHash, approvalDeadline);
    await f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, approvalDeadline, ownerSig]);
    await f.increaseTime(30);
    const r = await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, approvalDeadline, ownerSig]));
    expect(r.name).toBe("ApprovalExpired");
  });

  it("the bot's signature is still required", async () => {
    const { intent, intentHash, approvalDeadline } = await heldPayment();
    const ownerSig = await f.signReview(f.owner, intentHash, approvalDeadline);
    const forged = await f.signPayment(f.stranger, intent);
    const r = await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [intent, forged, approvalDeadline, ownerSig]));
    expect(r.name).toBe("InvalidSignature");
  });

  it("reviewed variants are relayer-only", async () => {
    const { intent, botSig, intentHash, approvalDeadline } = await heldPayment();
    const ownerSig = await f.signReview(f.owner, intentHash, approvalDeadline);
    const r = await revertOf(() => f.simulate(f.owner, f.vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, approvalDeadline, ownerSig]));
    expect(r.name).toBe("NotAuthorizedRelayer");
  });

  it("a held protocol call the owner approved executes after the bot's deadline", async () => {
    const data = calldata("mocks/MockLendingPool", "supply", [f.tokens.usdc, USD(20)]);
    const intent = executeIntent(f, f.lending, data, (await f.now()) + 30n, { tokens: [f.tokens.usdc], amounts: [USD(20)] });
    const botSig = await f.signExecute(f.bot, intent);
    await f.increaseTime(60);
    const intentHash = await f.read<Hex>(f.vault, "ServiceVault", "hashExecuteIntent", [intent]);
    const approvalDeadline = (await f.now()) + 600n;
    const ownerSig = await f.signReview(f.owner, intentHash, approvalDeadline);
    expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeProtocol", [intent, botSig, data]))).name).toBe("DeadlineExpired");
    await f.write(f.relayer, f.vault, "ServiceVault", "executeReviewedProtocol", [intent, botSig, data, approvalDeadline, ownerSig]);
    expect(await f.read(f.lending, "mocks/MockLendingPool", "supplied", [f.vault, f.tokens.usdc])).toBe(USD(20));
    const bad = await f.signReview(f.operator, intentHash, approvalDeadline);
    const r = await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedProtocol", [intent, botSig, data, approvalDeadline, bad]));
    expect(r.name).toBe("IntentAlreadyUsed");
  });

  it("a held swap the owner approved executes after the bot's deadline", async () => {
    const intent = {
      bot: f.bot.address, fromToken: f.tokens.usdc, toToken: f.tokens.weth, maxFromAmount: USD(30), minToAmount: 1n,
      deadline: (await f.now()) + 30n, ref: f.ref("swap"),
    };
    const data = calldata("mocks/MockSwapRouter", "swapExactIn", [intent.fromToken, intent.toToken, intent.maxFromAmount, 0n, f.vault]);
    const botSig = await f.signSwap(f.bot, intent);
    await f.increaseTime(60);
    const intentHash = await f.read<Hex>(f.vault, "ServiceVault", "hashSwapIntent", [intent]);
    const approvalDeadline = (await f.now()) + 600n;
    expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeSwap", [intent, botSig, f.router, data]))).name).toBe("DeadlineExpired");
    const stranger = await f.signReview(f.stranger, intentHash, approvalDeadline);
    const r = await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedSwap", [intent, botSig, f.router, data, approvalDeadline, stranger]));
    expect(r.name).toBe("InvalidOwnerApproval");
    const ownerSig = await f.signReview(f.owner, intentHash, approvalDeadline);
    const wethBefore = await f.balanceOf(f.tokens.weth, f.vault);
    await f.write(f.relayer, f.vault, "ServiceVault", "executeReviewedSwap", [intent, botSig, f.router, data, approvalDeadline, ownerSig]);
    expect(await f.balanceOf(f.tokens.weth, f.vault)).toBe(wethBefore + (10n ** 16n * 9970n) / 10000n);
  });
});
