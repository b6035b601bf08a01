import { hexToSignature, keccak256, serializeSignature, sliceHex, toFunctionSelector, zeroAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { intentTypes, type PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { account, calldata, emptyConfig, PRICE, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe("ServiceVault payments", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
  });
  afterAll(async () => f?.chain.close());

  const pay = (intent: PaymentIntent, signature: Hex, from = f.relayer) =>
    f.write(from, f.vault, "ServiceVault", "executePayment", [intent, signature]);
  const payRevert = (intent: PaymentIntent, signature: Hex, from = f.relayer) =>
    revertOf(() => f.simulate(from, f.vault, "ServiceVault", "executePayment", [intent, signature]));

  it("executes a signed payment: tokens move, the intent is marked used, PaymentExecuted is emitted", async () => {
    const intent = await f.payment({ amount: USD(25) });
    const sig = await f.signPayment(f.bot, intent);
    const before = await f.balanceOf(f.tokens.usdc, intent.to);
    const hash = await f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [intent]);
    const returned = await f.simulate<Hex>(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, sig]);
    expect(returned).toBe(hash);
    const receipt = await pay(intent, sig);
    expect(await f.balanceOf(f.tokens.usdc, intent.to)).toBe(before + USD(25));
    expect(await f.read(f.vault, "ServiceVault", "usedIntents", [hash])).toBe(true);
    const [ev] = f.events(receipt, "ServiceVault", "PaymentExecuted");
    expect(ev!.args).toMatchObject({ intentHash: hash, bot: f.bot.address, to: intent.to, token: f.tokens.usdc, amount: USD(25), ref: intent.ref });
  });

  it("pays native ETH when token is address(0)", async () => {
    const intent = await f.payment({ token: zeroAddress, amount: 10n ** 17n });
    const before = await f.clients.publicClient.getBalance({ address: intent.to });
    await pay(intent, await f.signPayment(f.bot, intent));
    expect(await f.clients.publicClient.getBalance({ address: intent.to })).toBe(before + 10n ** 17n);
  });

  it("relayer-only: an unauthorized sender is refused with NotAuthorizedRelayer", async () => {
    const intent = await f.payment();
    const sig = await f.signPayment(f.bot, intent);
    expect((await payRevert(intent, sig, f.stranger)).name).toBe("NotAuthorizedRelayer");
    expect((await payRevert(intent, sig, f.bot)).name).toBe("NotAuthorizedRelayer");
  });

  it("bot active: an unknown bot and a removed bot are refused with BotNotActive", async () => {
    const unknown = await f.payment({ bot: f.bot2.address });
    expect(await payRevert(unknown, await f.signPayment(f.bot2, unknown))).toEqual({ name: "BotNotActive", args: [f.bot2.address] });
    await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [f.bot2.address, emptyConfig()]);
    const intent = await f.payment({ bot: f.bot2.address });
    const sig = await f.signPayment(f.bot2, intent);
    await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, sig]);
    await f.write(f.owner, f.vault, "ServiceVault", "removeBot", [f.bot2.address]);
    expect((await payRevert(intent, sig)).name).toBe("BotNotActive");
  });

  describe("signature", () => {
    it("a signature by another key is refused with InvalidSignature", async () => {
      const intent = await f.payment();
      expect((await payRevert(intent, await f.signPayment(f.stranger, intent))).name).toBe("InvalidSignature");
    });

    it("a signature for another chain id is refused", async () => {
      const intent = await f.payment();
      const domain = { ...(await f.domainOf(f.vault)), chainId: 8453 };
      const sig = await f.bot.signTypedData({
        domain,
        types: { PaymentIntent: intentTypes.PaymentIntent },
        primaryType: "PaymentIntent",
        message: intent,
      });
      expect((await payRevert(intent, sig)).name).toBe("InvalidSignature");
    });

    it("a signature for another vault is refused", async () => {
      const other = await f.newVault();
      const intent = await f.payment();
      expect((await payRevert(intent, await f.signPayment(f.bot, intent, other))).name).toBe("InvalidSignature");
    });

    it("a high-s signature is refused even though it recovers to the bot", async () => {
      const intent = await f.payment();
      const sig = hexToSignature(await f.signPayment(f.bot, intent));
      const s = BigInt(sig.s);
      const flipped = serializeSignature({
        r: sig.r,
        s: `0x${(SECP256K1_N - s).toString(16).padStart(64, "0")}`,
        yParity: sig.yParity === 0 ? 1 : 0,
      });
      expect((await payRevert(intent, flipped)).name).toBe("InvalidSignature");
    });

    it("a 64-byte (EIP-2098 compact) signature is refused", async () => {
      const intent = await f.payment();
      const sig = hexToSignature(await f.signPayment(f.bot, intent));
      const compactS = BigInt(sig.s) | (BigInt(sig.yParity ?? 0) << 255n);
      const compact = `${sig.r}${compactS.toString(16).padStart(64, "0")}` as Hex;
      expect((await payRevert(intent, compact)).name).toBe("InvalidSignature");
      expect((await payRevert(intent, sliceHex(await f.signPayment(f.bot, intent), 0, 64))).name).toBe("InvalidSignature");
    });

    it("v other than 27/28 is refused", async () => {
      const intent = await f.payment();
      const sig = await f.signPayment(f.bot, intent);
      const v = Number.parseInt(sig.slice(-2), 16);
      expect((await payRevert(intent, `${sig.slice(0, -2)}${(v - 27).toString(16).padStart(2, "0")}` as Hex)).name).toBe("InvalidSignature");
    });
  });

  it("deadline: an intent past its deadline is refused with DeadlineExpired", async () => {
    const intent = await f.payment({ deadline: (await f.now()) + 60n });
    const sig = await f.signPayment(f.bot, intent);
    await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, sig]);
    await f.increaseTime(120);
    expect(await payRevert(intent, sig)).toEqual({ name: "DeadlineExpired", args: [intent.deadline] });
  });

  it("replay: an executed payment cannot run again (IntentAlreadyUsed)", async () => {
    const intent = await f.payment();
    const sig = await f.signPayment(f.bot, intent);
    await pay(intent, sig);
    const hash = await f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [intent]);
    expect(await payRevert(intent, sig)).toEqual({ name: "IntentAlreadyUsed", args: [hash] });
  });

  it("per-tx cap: USD value through the feeds; moving the price moves the cap", async () => {
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ maxPerTxAmount: USD(3500) })]);
    const intent = await f.payment({ token: f.tokens.weth, amount: 10n ** 18n }); // 1 WETH at $3000
    const sig = await f.signPayment(f.bot, intent);
    await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, sig]);
    await f.write(f.owner, f.feeds.weth, "mocks/MockPriceFeed", "setPrice", [PRICE(4000)]);
    expect(await payRevert(intent, sig)).toEqual({ name: "ExceedsPerTxLimit", args: [USD(4000), USD(3500)] });
    await f.write(f.owner, f.feeds.weth, "mocks/MockPriceFeed", "setPrice", [PRICE(3000)]);
    await pay(intent, sig);
    // a 6-decimal token: $3500.000001 is over, $3500 is not
    const over = await f.payment({ amount: USD(3500) + 1n });
    expect((await payRevert(over, await f.signPayment(f.bot, over))).name).toBe("ExceedsPerTxLimit");
    const exact = await f.payment({ amount: USD(3500) });
    await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [exact, await f.signPayment(f.bot, exact)]);
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]);
  });

  it("balance: paying more than the vault holds is refused with InsufficientBalance", async () => {
    const held = await f.balanceOf(f.tokens.usdc, f.vault);
    const intent = await f.payment({ amount: held + 1n });
    expect(await payRevert(intent, await f.signPayment(f.bot, intent))).toEqual({
      name: "InsufficientBalance",
      args: [f.tokens.usdc, held, held + 1n],
    });
  });

  describe("destination rule", () => {
    const target = account(7).address;
    const other = account(8).address;
    const check = (to: string) => f.read<[boolean, string]>(f.vault, "ServiceVault", "checkDestination", [f.bot.address, to]);
    const attempt = async (to: `0x${string}`) => {
      const intent = await f.payment({ to });
      return payRevert(intent, await f.signPayment(f.bot, intent));
    };

    it("empty lists allow every destination", async () => {
      expect(await check(other)).toEqual([true, ""]);
      const intent = await f.payment({ to: other });
      await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, await f.signPayment(f.bot, intent)]);
    });

    it("a non-empty bot list restricts to the bot list or the vault list", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "addBotDestination", [f.bot.address, target]);
      expect(await check(target)).toEqual([true, ""]);
      expect(await check(other)).toEqual([false, "not_whitelisted"]);
      expect(await attempt(other)).toEqual({ name: "DestinationNotAllowed", args: [other] });
      // another bot, whose own list is empty, is unrestricted while the vault list is empty
      expect(await f.read(f.vault, "ServiceVault", "checkDestination", [f.bot2.address, other])).toEqual([true, ""]);
    });

    it("the vault list is an alternative to the bot list", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "addGlobalDestination", [other]);
      expect(await check(other)).toEqual([true, ""]);
      expect(await check(target)).toEqual([true, ""]);
      expect(await f.read(f.vault, "ServiceVault", "checkDestination", [f.bot2.address, target])).toEqual([false, "not_whitelisted"]);
    });

    it("the blacklist wins over both whitelists", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "addGlobalBlacklist", [target]);
      expect(await check(target)).toEqual([false, "blacklisted"]);
      expect(await attempt(target)).toEqual({ name: "DestinationBlacklisted", args: [target] });
      await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalBlacklist", [target]);
      await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalDestination", [other]);
      await f.write(f.owner, f.vault, "ServiceVault", "removeBotDestination", [f.bot.address, target]);
      expect(await check(other)).toEqual([true, ""]);
    });
  });

  describe("batch", () => {
    it("one bad item does not stop the others; it emits PaymentFailed and changes nothing", async () => {
      const good1 = await f.payment({ amount: USD(1) });
      const bad = await f.payment({ amount: USD(2) });
      const good2 = await f.payment({ amount: USD(3) });
      const sigs = [await f.signPayment(f.bot, good1), await f.signPayment(f.stranger, bad), await f.signPayment(f.bot, good2)];
      const before = await f.balanceOf(f.tokens.usdc, good1.to);
      const ok = await f.simulate<boolean[]>(f.relayer, f.vault, "ServiceVault", "executePaymentBatch", [[good1, bad, good2], sigs]);
      expect(ok).toEqual([true, false, true]);
      const receipt = await f.write(f.relayer, f.vault, "ServiceVault", "executePaymentBatch", [[good1, bad, good2], sigs]);
      expect(await f.balanceOf(f.tokens.usdc, good1.to)).toBe(before + USD(4));
      const badHash = await f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [bad]);
      const failed = f.events(receipt, "ServiceVault", "PaymentFailed");
      expect(failed.map((e) => e.args.intentHash)).toEqual([badHash]);
      expect(sliceHex(failed[0]!.args.reason as Hex, 0, 4)).toBe(sliceHex(keccak256(new TextEncoder().encode("InvalidSignature()")), 0, 4));
      expect(await f.read(f.vault, "ServiceVault", "usedIntents", [badHash])).toBe(false);
      expect(f.events(receipt, "ServiceVault", "PaymentExecuted")).toHaveLength(2);
    });

    it("replay in a batch: an already executed item fails, a duplicate within the batch fails", async () => {
      const p = await f.payment();
      const sig = await f.signPayment(f.bot, p);
      const ok = await f.simulate<boolean[]>(f.relayer, f.vault, "ServiceVault", "executePaymentBatch", [[p, p], [sig, sig]]);
      expect(ok).toEqual([true, false]);
      await f.write(f.relayer, f.vault, "ServiceVault", "executePayment", [p, sig]);
      expect(await f.simulate(f.relayer, f.vault, "ServiceVault", "executePaymentBatch", [[p], [sig]])).toEqual([false]);
    });

    it("nobody gets around the item entry point or the signature rules: the bot, a stranger and the relayer send them as transactions, and nothing moves on the chain", async () => {
      // The vault's own checks stand whatever a key sends (a leaked relayer key included): the item
      // entry point answers only the vault itself, and a payment needs the bot's one canonical signature.
      const intent = await f.payment({ amount: USD(3) });
      const sig = await f.signPayment(f.bot, intent);
      const hash = await f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [intent]);
      const before = await f.balanceOf(f.tokens.usdc, intent.to);
      const split = hexToSignature(sig);
      const highS = serializeSignature({ r: split.r, s: `0x${(SECP256K1_N - BigInt(split.s)).toString(16).padStart(64, "0")}`, yParity: split.yParity === 0 ? 1 : 0 });
      const v = Number.parseInt(sig.slice(-2), 16);
      const badV = `${sig.slice(0, -2)}${(v - 27).toString(16).padStart(2, "0")}` as Hex;
      const attempts: [typeof f.bot, Hex, string][] = [
        ...[f.bot, f.stranger, f.relayer].map((from) => [from, calldata("ServiceVault", "executePaymentItem_4z5o", [intent, sig]), "OnlySelf"] as [typeof f.bot, Hex, string]),
        ...[highS, sliceHex(sig, 0, 64), badV].map((bad) => [f.relayer, calldata("ServiceVault", "executePayment", [intent, bad]), "InvalidSignature"] as [typeof f.bot, Hex, string]),
      ];
      for (const [from, data, refusal] of attempts) {
        // Sent with its gas given, so the chain runs it (the devnet reports the mined revert as an error).
        const sent = f.clients.walletFor(from).sendTransaction({ to: f.vault, data, gas: 1_000_000n, chain: f.clients.chain, account: from });
        // The node names the error when it has the contracts' build info, else gives its selector.
        await expect(sent).rejects.toThrow(new RegExp(`${refusal}\\(\\)|custom error \\(return data: ${toFunctionSelector(`${refusal}()`)}\\)`));
      }
      expect(await f.balanceOf(f.tokens.usdc, intent.to)).toBe(before);
      expect(await f.read(f.vault, "ServiceVault", "usedIntents", [hash])).toBe(false);
      // The same intent with its own signature, by the relayer, pays once.
      await pay(intent, sig);
      expect(await f.balanceOf(f.tokens.usdc, intent.to)).toBe(before + USD(3));
    });

    it("the batch is relayer-only and its item entry point is vault-only", async () => {
      const p = await f.payment();
      const sig = await f.signPayment(f.bot, p);
      expect((await revertOf(() => f.simulate(f.stranger, f.vault, "ServiceVault", "executePaymentBatch", [[p], [sig]]))).name).toBe("NotAuthorizedRelayer");
      expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executePaymentItem_4z5o", [p, sig]))).name).toBe("OnlySelf");
    });
  });
});
