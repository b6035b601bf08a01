// What an authorized relayer key alone can do against a vault: call it directly with any calldata,
// holding only signatures the bot really made. Each attack asserts the vault's refusal and reads the
// chain to prove nothing moved; the positive cases show the owner's own decisions still work.
import { encodeFunctionData, getAddress, parseAbi, zeroAddress, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentIntent, SwapIntent } from "../../packages/client/src/intent-types.ts";
import { account, calldata, emptyConfig, executeIntent, PRICE, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

describe("ServiceVault: the owner's policy binds a relayer key", () => {
  let f: Fixture;
  const reviewBot = account(7); // a bot whose config requires the owner's review
  const cappedBot = account(8); // a bot with a per-tx cap, so its payments are priced
  const payee = account(6).address;
  const refusedTo = getAddress("0x00000000000000000000000000000000000bad00");

  beforeAll(async () => {
    f = await setupFixture();
    await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [reviewBot.address, emptyConfig({ requireHumanReview: true })]);
    await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [cappedBot.address, emptyConfig({ maxPerTxAmount: USD(1_000) })]);
    await f.write(f.owner, f.vault, "ServiceVault", "setOperator", [f.operator.address]);
    await f.write(f.owner, f.tokens.usdc, "mocks/MockERC20", "mint", [f.vault, USD(20_000)]); // 30,000 USDC in all
    await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.lending]);
  });
  afterAll(async () => f?.chain.close());

  const deadline = async () => (await f.now()) + 300n;
  const usdc = (holder: Address) => f.balanceOf(f.tokens.usdc, holder);
  const weth = (holder: Address) => f.balanceOf(f.tokens.weth, holder);
  const vaultRevert = (fn: string, args: readonly unknown[]) => revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", fn, args));
  const send = (fn: string, args: readonly unknown[]) => f.write(f.relayer, f.vault, "ServiceVault", fn, args);
  const hashOf = (fn: "hashPaymentIntent" | "hashExecuteIntent" | "hashSwapIntent", intent: unknown) =>
    f.read<Hex>(f.vault, "ServiceVault", fn, [intent]);
  /** The owner's ReviewApproval of `intentHash`, valid for ten minutes. */
  const approval = async (intentHash: Hex) => {
    const approvalDeadline = (await f.now()) + 600n;
    return [approvalDeadline, await f.signReview(f.owner, intentHash, approvalDeadline)] as const;
  };

  const payment = (over: Partial<PaymentIntent> = {}) => f.payment(over);
  const supplyCall = (amount: bigint) => calldata("mocks/MockLendingPool", "supply", [f.tokens.usdc, amount]);
  const supply = async (amount: bigint, bot = f.bot.address) =>
    executeIntent(f, f.lending, supplyCall(amount), await deadline(), { bot, tokens: [f.tokens.usdc], amounts: [amount] });
  const swapIntent = async (over: Partial<SwapIntent> = {}): Promise<SwapIntent> => ({
    bot: f.bot.address,
    fromToken: f.tokens.usdc,
    toToken: f.tokens.weth,
    maxFromAmount: USD(300),
    minToAmount: 0n,
    deadline: await deadline(),
    ref: f.ref("swap"),
    ...over,
  });
  const routerCall = (i: SwapIntent, recipient: Address = f.vault): Hex =>
    calldata("mocks/MockSwapRouter", "swapExactIn", [i.fromToken, i.toToken, i.maxFromAmount, 0n, recipient]);

  describe("cancelIntent", () => {
    it("a bot or a stranger cannot cancel: NotOwnerOrOperator, and the intent stays live", async () => {
      const hash = await hashOf("hashPaymentIntent", await payment());
      for (const who of [f.bot, f.stranger]) {
        const r = await revertOf(() => f.simulate(who, f.vault, "ServiceVault", "cancelIntent", [hash]));
        expect(r.name).toBe("NotOwnerOrOperator");
      }
      expect(await f.read(f.vault, "ServiceVault", "cancelledIntents", [hash])).toBe(false);
    });

    it("an authorized relayer key can cancel (a cancel only removes capability), and the intent then runs on no path", async () => {
      const intent = await payment({ amount: USD(3) });
      const sig = await f.signPayment(f.bot, intent);
      const hash = await hashOf("hashPaymentIntent", intent);
      const receipt = await send("cancelIntent", [hash]);
      expect(f.events(receipt, "ServiceVault", "IntentCancelled")[0]!.args).toEqual({ intentHash: hash, by: f.relayer.address });
      expect(await f.read(f.vault, "ServiceVault", "cancelledIntents", [hash])).toBe(true);
      const before = await usdc(intent.to);
      expect(await vaultRevert("executePayment", [intent, sig])).toEqual({ name: "IntentCancelled", args: [hash] });
      expect(await usdc(intent.to)).toBe(before);
      // Cancelling again changes nothing and does not revert: a resent cancel is harmless.
      await send("cancelIntent", [hash]);
      expect(await f.read(f.vault, "ServiceVault", "cancelledIntents", [hash])).toBe(true);
    });

    it("a relayer key the registry no longer authorizes cannot cancel", async () => {
      const former = account(9);
      await f.write(f.owner, f.registry, "ServiceRegistry", "addRelayer", [former.address]);
      await f.write(f.owner, f.registry, "ServiceRegistry", "removeRelayer", [former.address]);
      const hash = await hashOf("hashPaymentIntent", await payment({ amount: USD(4) }));
      expect((await revertOf(() => f.simulate(former, f.vault, "ServiceVault", "cancelIntent", [hash]))).name).toBe("NotOwnerOrOperator");
      expect(await f.read(f.vault, "ServiceVault", "cancelledIntents", [hash])).toBe(false);
    });

    it("a payment the operator cancelled runs on no path, not even with the owner's approval", async () => {
      const intent = await payment({ amount: USD(9) });
      const sig = await f.signPayment(f.bot, intent);
      const hash = await hashOf("hashPaymentIntent", intent);
      const receipt = await f.write(f.operator, f.vault, "ServiceVault", "cancelIntent", [hash]);
      expect(f.events(receipt, "ServiceVault", "IntentCancelled")[0]!.args).toEqual({ intentHash: hash, by: f.operator.address });
      expect(await f.read(f.vault, "ServiceVault", "cancelledIntents", [hash])).toBe(true);
      const before = await usdc(intent.to);

      expect(await vaultRevert("executePayment", [intent, sig])).toEqual({ name: "IntentCancelled", args: [hash] });
      const [approvalDeadline, ownerSig] = await approval(hash);
      expect(await vaultRevert("executeReviewedPayment", [intent, sig, approvalDeadline, ownerSig])).toEqual({ name: "IntentCancelled", args: [hash] });
      // A batch item fails alone (PaymentFailed), the batch itself goes through.
      const batch = await send("executePaymentBatch", [[intent], [sig]]);
      expect(f.events(batch, "ServiceVault", "PaymentFailed")[0]!.args.intentHash).toBe(hash);

      expect(await usdc(intent.to)).toBe(before);
      expect(await f.read(f.vault, "ServiceVault", "usedIntents", [hash])).toBe(false);
    });

    it("a cancelled protocol call or swap runs on no path either", async () => {
      const call = await supply(USD(5));
      const callSig = await f.signExecute(f.bot, call);
      const callHash = await hashOf("hashExecuteIntent", call);
      const swap = await swapIntent();
      const swapSig = await f.signSwap(f.bot, swap);
      const swapHash = await hashOf("hashSwapIntent", swap);
      for (const h of [callHash, swapHash]) await f.write(f.owner, f.vault, "ServiceVault", "cancelIntent", [h]);
      const vaultUsdc = await usdc(f.vault);

      expect(await vaultRevert("executeProtocol", [call, callSig, supplyCall(USD(5))])).toEqual({ name: "IntentCancelled", args: [callHash] });
      const [d1, o1] = await approval(callHash);
      expect(await vaultRevert("executeReviewedProtocol", [call, callSig, supplyCall(USD(5)), d1, o1])).toEqual({ name: "IntentCancelled", args: [callHash] });
      expect(await vaultRevert("executeSwap", [swap, swapSig, f.router, routerCall(swap)])).toEqual({ name: "IntentCancelled", args: [swapHash] });
      const [d2, o2] = await approval(swapHash);
      expect(await vaultRevert("executeReviewedSwap", [swap, swapSig, f.router, routerCall(swap), d2, o2])).toEqual({ name: "IntentCancelled", args: [swapHash] });

      expect(await usdc(f.vault)).toBe(vaultUsdc);
    });
  });

  describe("review is enforced by the vault", () => {
    it("a review-required bot's payment needs the owner's approval, alone or in a batch", async () => {
      const intent = await payment({ bot: reviewBot.address, amount: USD(11) });
      const sig = await f.signPayment(reviewBot, intent);
      const before = await usdc(intent.to);
      expect(await vaultRevert("executePayment", [intent, sig])).toEqual({ name: "ReviewRequired", args: [reviewBot.address] });
      expect(await f.simulate(f.relayer, f.vault, "ServiceVault", "executePaymentBatch", [[intent], [sig]])).toEqual([false]);
      await send("executePaymentBatch", [[intent], [sig]]);
      expect(await usdc(intent.to)).toBe(before);

      // The owner's ReviewApproval is what lets it through.
      const [approvalDeadline, ownerSig] = await approval(await hashOf("hashPaymentIntent", intent));
      await send("executeReviewedPayment", [intent, sig, approvalDeadline, ownerSig]);
      expect(await usdc(intent.to)).toBe(before + USD(11));
    });

    it("a review-required bot's protocol call and swap need the owner's approval", async () => {
      const call = await supply(USD(4), reviewBot.address);
      const callSig = await f.signExecute(reviewBot, call);
      const swap = await swapIntent({ bot: reviewBot.address });
      const swapSig = await f.signSwap(reviewBot, swap);
      const vaultUsdc = await usdc(f.vault);
      const supplied = await f.read<bigint>(f.lending, "mocks/MockLendingPool", "supplied", [f.vault, f.tokens.usdc]);

      expect(await vaultRevert("executeProtocol", [call, callSig, supplyCall(USD(4))])).toEqual({ name: "ReviewRequired", args: [reviewBot.address] });
      expect(await vaultRevert("executeSwap", [swap, swapSig, f.router, routerCall(swap)])).toEqual({ name: "ReviewRequired", args: [reviewBot.address] });
      expect(await usdc(f.vault)).toBe(vaultUsdc);

      const [d, o] = await approval(await hashOf("hashExecuteIntent", call));
      await send("executeReviewedProtocol", [call, callSig, supplyCall(USD(4)), d, o]);
      expect(await f.read(f.lending, "mocks/MockLendingPool", "supplied", [f.vault, f.tokens.usdc])).toBe(supplied + USD(4));
    });

    it("an approval grant through executeProtocol needs the owner, whatever the bot's config", async () => {
      const grants: [Address, Hex][] = [
        [f.tokens.usdc, calldata("mocks/MockERC20", "approve", [refusedTo, USD(1_000)])],
        [f.nft, calldata("mocks/MockNFT", "setApprovalForAll", [refusedTo, true])],
        [f.tokens.usdc, encodeFunctionData({ abi: parseAbi(["function increaseAllowance(address,uint256)"]), functionName: "increaseAllowance", args: [refusedTo, USD(1_000)] })],
      ];
      await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.nft]);
      for (const [target, data] of grants) {
        const intent = executeIntent(f, target, data, await deadline());
        expect(await vaultRevert("executeProtocol", [intent, await f.signExecute(f.bot, intent), data])).toEqual({ name: "ReviewRequired", args: [f.bot.address] });
      }
      expect(await f.read(f.tokens.usdc, "mocks/MockERC20", "allowance", [f.vault, refusedTo])).toBe(0n);
      expect(await f.read(f.nft, "mocks/MockNFT", "isApprovedForAll", [f.vault, refusedTo])).toBe(false);
      await f.write(f.owner, f.vault, "ServiceVault", "revokeProtocol", [f.nft]);
    });
  });

  describe("executeProtocol moves no more than the bot signed", () => {
    const transfer = (to: Address, amount: bigint) => calldata("mocks/MockERC20", "transfer", [to, amount]);

    beforeAll(async () => {
      // The attack: a registry default token approved as a protocol.
      await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.tokens.usdc]);
    });
    afterAll(async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "revokeProtocol", [f.tokens.usdc]);
    });

    it("USDC.transfer(x, 20000e6) with tokens [] is refused with ExcessOutflow; nothing moves", async () => {
      const data = transfer(payee, USD(20_000));
      const intent = executeIntent(f, f.tokens.usdc, data, await deadline());
      const [vaultBefore, payeeBefore] = [await usdc(f.vault), await usdc(payee)];
      expect(await vaultRevert("executeProtocol", [intent, await f.signExecute(f.bot, intent), data])).toEqual({
        name: "ExcessOutflow",
        args: [f.tokens.usdc, USD(20_000), 0n],
      });
      expect([await usdc(f.vault), await usdc(payee)]).toEqual([vaultBefore, payeeBefore]);
    });

    it("a transfer beyond the declared amount is refused; within it (duplicates summed) it passes", async () => {
      const data = transfer(payee, USD(30));
      const under = executeIntent(f, f.tokens.usdc, data, await deadline(), { tokens: [f.tokens.usdc], amounts: [USD(29)] });
      expect(await vaultRevert("executeProtocol", [under, await f.signExecute(f.bot, under), data])).toEqual({
        name: "ExcessOutflow",
        args: [f.tokens.usdc, USD(30), USD(29)],
      });
      const before = await usdc(payee);
      const fits = executeIntent(f, f.tokens.usdc, data, await deadline(), { tokens: [f.tokens.usdc, f.tokens.usdc], amounts: [USD(20), USD(10)] });
      await send("executeProtocol", [fits, await f.signExecute(f.bot, fits), data]);
      expect(await usdc(payee)).toBe(before + USD(30));
    });

    it("a standing allowance cannot be spent by an undeclared call", async () => {
      // The owner granted the lending pool an allowance (reviewed); the bot then calls supply with tokens [].
      const grantAllowance = async (amount: bigint) => {
        const grant = calldata("mocks/MockERC20", "approve", [f.lending, amount]);
        const grantIntent = executeIntent(f, f.tokens.usdc, grant, await deadline());
        const [d, o] = await approval(await hashOf("hashExecuteIntent", grantIntent));
        await send("executeReviewedProtocol", [grantIntent, await f.signExecute(f.bot, grantIntent), grant, d, o]);
      };
      await grantAllowance(USD(500));
      const data = supplyCall(USD(500));
      const before = await usdc(f.vault);
      // The bot's signature alone: a protocol holding a standing allowance over a token the vault
      // tracks could spend or pass it on, so calling it needs the owner's review (before any call).
      const intent = executeIntent(f, f.lending, data, await deadline());
      expect(await vaultRevert("executeProtocol", [intent, await f.signExecute(f.bot, intent), data])).toEqual({
        name: "ReviewRequired",
        args: [f.bot.address],
      });
      // Even with the owner's review, the call moves no more than the bot declared.
      const reviewed = executeIntent(f, f.lending, data, await deadline());
      const [d, o] = await approval(await hashOf("hashExecuteIntent", reviewed));
      expect(await vaultRevert("executeReviewedProtocol", [reviewed, await f.signExecute(f.bot, reviewed), data, d, o])).toEqual({
        name: "ExcessOutflow",
        args: [f.tokens.usdc, USD(500), 0n],
      });
      expect(await usdc(f.vault)).toBe(before);
      await grantAllowance(0n); // taken back: the pool is an ordinary protocol again
    });

    it("a declared supply within its amount passes", async () => {
      const intent = await supply(USD(100));
      const before = await usdc(f.vault);
      await send("executeProtocol", [intent, await f.signExecute(f.bot, intent), supplyCall(USD(100))]);
      expect(await usdc(f.vault)).toBe(before - USD(100));
    });

    it("a transfer made by the call must pass the destination rule", async () => {
      const declared = { tokens: [f.tokens.usdc], amounts: [USD(5)] };
      const attempt = async (data: Hex, target: Address = f.tokens.usdc) => {
        const intent = executeIntent(f, target, data, await deadline(), declared);
        return vaultRevert("executeProtocol", [intent, await f.signExecute(f.bot, intent), data]);
      };
      const vaultBefore = await usdc(f.vault);
      await f.write(f.owner, f.vault, "ServiceVault", "addGlobalBlacklist", [refusedTo]);
      expect(await attempt(transfer(refusedTo, USD(5)))).toEqual({ name: "DestinationBlacklisted", args: [refusedTo] });
      expect(await attempt(transfer(zeroAddress, USD(5)))).toEqual({ name: "DestinationNotAllowed", args: [zeroAddress] });
      const transferFrom = calldata("mocks/MockERC20", "transferFrom", [f.vault, refusedTo, USD(5)]);
      expect(await attempt(transferFrom)).toEqual({ name: "DestinationBlacklisted", args: [refusedTo] });

      // With a whitelist, a transfer to anyone off it is refused, to someone on it goes through.
      await f.write(f.owner, f.vault, "ServiceVault", "addGlobalDestination", [payee]);
      const elsewhere = account(9).address;
      expect(await attempt(transfer(elsewhere, USD(5)))).toEqual({ name: "DestinationNotAllowed", args: [elsewhere] });
      await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.nft]);
      const nftOut = calldata("mocks/MockNFT", "safeTransferFrom", [f.vault, elsewhere, 1n]);
      expect(await attempt(nftOut, f.nft)).toEqual({ name: "DestinationNotAllowed", args: [elsewhere] });
      expect(await usdc(f.vault)).toBe(vaultBefore);

      const ok = executeIntent(f, f.tokens.usdc, transfer(payee, USD(5)), await deadline(), declared);
      const payeeBefore = await usdc(payee);
      await send("executeProtocol", [ok, await f.signExecute(f.bot, ok), transfer(payee, USD(5))]);
      expect(await usdc(payee)).toBe(payeeBefore + USD(5));

      await f.write(f.owner, f.vault, "ServiceVault", "revokeProtocol", [f.nft]);
      await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalDestination", [payee]);
      await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalBlacklist", [refusedTo]);
    });
  });

  describe("swaps are bounded by the feed-priced floor", () => {
    const setFee = (bps: bigint) => f.write(f.owner, f.router, "mocks/MockSwapRouter", "setFeeBps", [bps]);
    const floorOf = (i: SwapIntent) => f.read<bigint>(f.vault, "ServiceVault", "swapFloor", [i.fromToken, i.toToken, i.maxFromAmount]);

    it("the tolerance is 1% until the owner sets one; only the owner can, up to 100%", async () => {
      expect(await f.read(f.vault, "ServiceVault", "swapSlippageBps")).toBe(100n);
      // $300 of USDC less 1% = $297 = 0.099 WETH at $3000
      expect(await f.read(f.vault, "ServiceVault", "swapFloor", [f.tokens.usdc, f.tokens.weth, USD(300)])).toBe(99n * 10n ** 15n);
      for (const who of [f.relayer, f.operator, f.bot]) {
        expect((await revertOf(() => f.simulate(who, f.vault, "ServiceVault", "setSwapSlippageBps", [50n]))).name).toBe("NotOwner");
      }
      expect(await revertOf(() => f.simulate(f.owner, f.vault, "ServiceVault", "setSwapSlippageBps", [10_001n]))).toEqual({ name: "InvalidSlippage", args: [10_001n] });
      const receipt = await f.write(f.owner, f.vault, "ServiceVault", "setSwapSlippageBps", [0n]);
      expect(f.events(receipt, "ServiceVault", "SwapSlippageSet")[0]!.args).toEqual({ bps: 0n });
      expect(await f.read(f.vault, "ServiceVault", "swapSlippageBps")).toBe(0n);
      await f.write(f.owner, f.vault, "ServiceVault", "setSwapSlippageBps", [100n]);
    });

    it("output sent to the relayer instead of the vault is refused; nothing moves", async () => {
      const i = await swapIntent();
      const [vaultUsdc, vaultWeth, relayerWeth] = [await usdc(f.vault), await weth(f.vault), await weth(f.relayer.address)];
      expect(await vaultRevert("executeSwap", [i, await f.signSwap(f.bot, i), f.router, routerCall(i, f.relayer.address)])).toEqual({
        name: "SwapBelowFloor",
        args: [0n, await floorOf(i)],
      });
      expect([await usdc(f.vault), await weth(f.vault), await weth(f.relayer.address)]).toEqual([vaultUsdc, vaultWeth, relayerWeth]);
    });

    it("minToAmount 0 with the router's fee at 50% is refused below the floor", async () => {
      await setFee(5_000n);
      const i = await swapIntent();
      const vaultUsdc = await usdc(f.vault);
      expect(await vaultRevert("executeSwap", [i, await f.signSwap(f.bot, i), f.router, routerCall(i)])).toEqual({
        name: "SwapBelowFloor",
        args: [5n * 10n ** 16n, await floorOf(i)],
      });
      expect(await usdc(f.vault)).toBe(vaultUsdc);
      await setFee(30n);
    });

    it("a swap exactly at the floor passes, one unit below it does not; the default 0.3% fee passes", async () => {
      await setFee(100n); // output = 0.099 WETH = the floor
      const at = await swapIntent();
      const wethBefore = await weth(f.vault);
      await send("executeSwap", [at, await f.signSwap(f.bot, at), f.router, routerCall(at)]);
      expect(await weth(f.vault)).toBe(wethBefore + (await floorOf(at)));
      await setFee(101n);
      const below = await swapIntent();
      expect((await vaultRevert("executeSwap", [below, await f.signSwap(f.bot, below), f.router, routerCall(below)])).name).toBe("SwapBelowFloor");
      await setFee(30n);
      const normal = await swapIntent();
      await send("executeSwap", [normal, await f.signSwap(f.bot, normal), f.router, routerCall(normal)]);
    });

    it("the owner sets a bot's swap volume window; removeBot clears it", async () => {
      const extra = account(10).address;
      await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [extra, emptyConfig()]);
      expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "setBotSwapLimit", [extra, USD(500), 86_400n]))).name).toBe("NotOwner");
      const receipt = await f.write(f.owner, f.vault, "ServiceVault", "setBotSwapLimit", [extra, USD(500), 86_400n]);
      expect(f.events(receipt, "ServiceVault", "BotSwapLimitSet")[0]!.args).toEqual({ bot: extra, amount: USD(500), windowSeconds: 86_400n });
      expect(await f.read(f.vault, "ServiceVault", "getBotSwapLimit", [extra])).toEqual({ amount: USD(500), maxCount: 0n, windowSeconds: 86_400n });
      await f.write(f.owner, f.vault, "ServiceVault", "removeBot", [extra]);
      expect(await f.read(f.vault, "ServiceVault", "getBotSwapLimit", [extra])).toEqual({ amount: 0n, maxCount: 0n, windowSeconds: 0n });
    });
  });

  describe("payment edges", () => {
    it("amount 0, recipient 0x0 (also native ETH) and recipient = the vault are refused; nothing moves", async () => {
      const ethBefore = await f.clients.publicClient.getBalance({ address: f.vault });
      const usdcBefore = await usdc(f.vault);
      const cases: [Partial<PaymentIntent>, { name: string; args: readonly unknown[] }][] = [
        [{ amount: 0n }, { name: "ZeroAmount", args: [] }],
        [{ to: zeroAddress }, { name: "ZeroAddress", args: [] }],
        [{ to: zeroAddress, token: zeroAddress, amount: 10n ** 16n }, { name: "ZeroAddress", args: [] }],
        [{ to: f.vault }, { name: "DestinationNotAllowed", args: [f.vault] }],
      ];
      for (const [over, expected] of cases) {
        const intent = await payment(over);
        const sig = await f.signPayment(f.bot, intent);
        expect(await vaultRevert("executePayment", [intent, sig])).toEqual(expected);
        await send("executePaymentBatch", [[intent], [sig]]); // fails as an item, moves nothing
      }
      expect(await f.clients.publicClient.getBalance({ address: f.vault })).toBe(ethBefore);
      expect(await usdc(f.vault)).toBe(usdcBefore);
    });
  });

  describe("prices", () => {
    const stale = (feed: Address, t: bigint) => f.write(f.owner, feed, "mocks/MockPriceFeed", "setUpdatedAt", [t]);

    it("maxPriceAge is a day by default and only the registry owner sets it", async () => {
      expect(await f.read(f.registry, "ServiceRegistry", "maxPriceAge")).toBe(86_400n);
      expect((await revertOf(() => f.simulate(f.relayer, f.registry, "ServiceRegistry", "setMaxPriceAge", [60n]))).name).toBe("OwnableUnauthorizedAccount");
    });

    it("devnet feeds stay fresh across time travel; amountForUsd inverts usdValue, rounding up", async () => {
      await f.increaseTime(10 * 86_400);
      expect(await f.read(f.registry, "ServiceRegistry", "usdValue", [f.tokens.weth, 10n ** 18n])).toBe(USD(3000));
      expect(await f.read(f.registry, "ServiceRegistry", "amountForUsd", [f.tokens.weth, USD(3000)])).toBe(10n ** 18n);
      expect(await f.read(f.registry, "ServiceRegistry", "amountForUsd", [f.tokens.weth, 1n])).toBe(333_333_334n);
      expect(await f.read(f.registry, "ServiceRegistry", "amountForUsd", [f.tokens.wbtc, USD(1)])).toBe(1667n); // 1/60000 BTC, 8 decimals, up
    });

    it("a stale feed refuses valuation, a priced payment and a swap; nothing moves", async () => {
      const old = (await f.now()) - 86_401n;
      await stale(f.feeds.usdc, old);
      const staleError = { name: "StalePrice", args: [f.tokens.usdc, old] };
      expect(await revertOf(() => f.read(f.registry, "ServiceRegistry", "usdValue", [f.tokens.usdc, USD(1)]))).toEqual(staleError);
      expect(await revertOf(() => f.read(f.registry, "ServiceRegistry", "amountForUsd", [f.tokens.usdc, USD(1)]))).toEqual(staleError);

      const intent = await payment({ bot: cappedBot.address });
      const before = await usdc(intent.to);
      const r = await vaultRevert("executePayment", [intent, await f.signPayment(cappedBot, intent)]);
      expect(r.name).toBe("StalePrice");
      const swap = await swapIntent();
      expect((await vaultRevert("executeSwap", [swap, await f.signSwap(f.bot, swap), f.router, routerCall(swap)])).name).toBe("StalePrice");
      expect(await usdc(intent.to)).toBe(before);

      // A timestamp in the future counts as fresh; a longer maxPriceAge accepts the old answer.
      await stale(f.feeds.usdc, (await f.now()) + 3600n);
      expect(await f.read(f.registry, "ServiceRegistry", "usdValue", [f.tokens.usdc, USD(1)])).toBe(USD(1));
      await stale(f.feeds.usdc, old);
      await f.write(f.owner, f.registry, "ServiceRegistry", "setMaxPriceAge", [7n * 86_400n]);
      expect(await f.read(f.registry, "ServiceRegistry", "usdValue", [f.tokens.usdc, USD(1)])).toBe(USD(1));
      await f.write(f.owner, f.registry, "ServiceRegistry", "setMaxPriceAge", [86_400n]);
      await stale(f.feeds.usdc, 0n);
    });

    it("a non-positive answer refuses a priced payment with InvalidPrice; nothing moves", async () => {
      for (const answer of [0n, -1n]) {
        await f.write(f.owner, f.feeds.usdc, "mocks/MockPriceFeed", "setPrice", [answer]);
        const intent = await payment({ bot: cappedBot.address });
        const before = await usdc(intent.to);
        expect(await vaultRevert("executePayment", [intent, await f.signPayment(cappedBot, intent)])).toEqual({ name: "InvalidPrice", args: [f.tokens.usdc] });
        expect(await usdc(intent.to)).toBe(before);
      }
      await f.write(f.owner, f.feeds.usdc, "mocks/MockPriceFeed", "setPrice", [PRICE(1)]);
    });
  });
});
