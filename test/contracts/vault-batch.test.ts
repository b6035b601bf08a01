// executePaymentBatch against a relayer key sending crafted batches: every rule the one-payment
// path enforces still holds item by item, with the same revert, now that a batch prices its per-tx
// cap once per token and cap, pays before reading a balance, keeps an intent's used and cancelled
// flags in one slot, skips the blacklist slot while nothing is blacklisted, and passes each item its
// calldata words as they came (the intent is hashed over them, its addresses checked clean). Each refusal is
// compared with the direct `executePayment` of the same intent, and chain reads prove nothing moved.
import { decodeErrorResult, toFunctionSelector, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { abiOf, account, calldata, emptyConfig, PRICE, revertOf, setupFixture, USD, type Fixture, type Revert } from "./fixture.ts";

describe("ServiceVault batches: the rules per item", () => {
  let f: Fixture;
  const payee = account(7).address;
  const capped = account(8); // a bot with a $10 per-tx cap
  const roomy = account(9); // a bot with a $1,000 per-tx cap
  beforeAll(async () => {
    f = await setupFixture();
    await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [capped.address, emptyConfig({ maxPerTxAmount: USD(10) })]);
    await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [roomy.address, emptyConfig({ maxPerTxAmount: USD(1000) })]);
  });
  afterAll(async () => f?.chain.close());

  const vaultAbi = () => abiOf("ServiceVault");
  const hashOf = (p: PaymentIntent) => f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [p]);
  const used = async (p: PaymentIntent) => f.read<boolean>(f.vault, "ServiceVault", "usedIntents", [await hashOf(p)]);

  /** Sends the batch; per item, undefined when it executed, else its decoded revert (PaymentFailed, in order). */
  async function batch(items: { intent: PaymentIntent; signature: Hex }[]): Promise<(Revert | undefined)[]> {
    const args = [items.map((i) => i.intent), items.map((i) => i.signature)];
    const ok = await f.simulate<boolean[]>(f.relayer, f.vault, "ServiceVault", "executePaymentBatch", args);
    const receipt = await f.write(f.relayer, f.vault, "ServiceVault", "executePaymentBatch", args);
    const failed = f.events(receipt, "ServiceVault", "PaymentFailed").map((e) => {
      const decoded = decodeErrorResult({ abi: vaultAbi(), data: e.args.reason as Hex });
      return { hash: e.args.intentHash as Hex, revert: { name: decoded.errorName, args: decoded.args ?? [] } as Revert };
    });
    expect(failed).toHaveLength(ok.filter((x) => !x).length);
    const outcome: (Revert | undefined)[] = [];
    for (const [k, executed] of ok.entries()) {
      if (executed) outcome.push(undefined);
      else {
        const next = failed.shift()!;
        expect(next.hash).toBe(await hashOf(items[k]!.intent));
        outcome.push(next.revert);
      }
    }
    expect(f.events(receipt, "ServiceVault", "PaymentExecuted")).toHaveLength(ok.filter((x) => x).length);
    return outcome;
  }

  /** The revert of the same intent sent alone through executePayment (undefined when it would execute). */
  async function direct(item: { intent: PaymentIntent; signature: Hex }): Promise<Revert | undefined> {
    try {
      await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [item.intent, item.signature]);
      return undefined;
    } catch {
      return revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [item.intent, item.signature]));
    }
  }

  async function item(signer: typeof capped, over: Partial<PaymentIntent>) {
    const intent = await f.payment({ bot: signer.address, to: payee, ...over });
    return { intent, signature: await f.signPayment(signer, intent) };
  }

  it("per-tx cap: each item is priced against its own bot's cap, at the exact boundary, with the direct path's revert", async () => {
    // WETH at $3,000: the largest amount worth at most $10 is amountForUsd($10 + 1e-6) - 1 wei.
    const limit = (await f.read<bigint>(f.registry, "ServiceRegistry", "amountForUsd", [f.tokens.weth, USD(10) + 1n])) - 1n;
    const items = [
      await item(roomy, { amount: USD(500) }), // roomy's $1,000 cap: passes (and is priced first)
      await item(capped, { amount: USD(500) }), // the same token and amount under capped's $10 cap: refused
      await item(capped, { amount: USD(10) }), // exactly the cap
      await item(capped, { amount: USD(10) + 1n }), // one unit above
      await item(capped, { token: f.tokens.weth, amount: limit }),
      await item(capped, { token: f.tokens.weth, amount: limit + 1n }),
      await item(capped, { amount: USD(3) }), // below an amount already cleared
    ];
    const expected = await Promise.all(items.map(direct));
    expect(expected.map((r) => r?.name)).toEqual([undefined, "ExceedsPerTxLimit", undefined, "ExceedsPerTxLimit", undefined, "ExceedsPerTxLimit", undefined]);
    const usdcBefore = await f.balanceOf(f.tokens.usdc, payee);
    const wethBefore = await f.balanceOf(f.tokens.weth, payee);
    expect(await batch(items)).toEqual(expected);
    expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(usdcBefore + USD(500) + USD(10) + USD(3));
    expect(await f.balanceOf(f.tokens.weth, payee)).toBe(wethBefore + limit);
    expect(await Promise.all(items.map((i) => used(i.intent)))).toEqual([true, false, true, false, true, false, true]);
  });

  it("per-tx cap: a price moved between two batches applies to the second (nothing is remembered across batches)", async () => {
    const first = await item(capped, { amount: USD(8) });
    expect(await batch([first])).toEqual([undefined]);
    await f.write(f.owner, f.feeds.usdc, "mocks/MockPriceFeed", "setPrice", [PRICE(2)]);
    try {
      const second = await item(capped, { amount: USD(8) }); // now worth $16
      const before = await f.balanceOf(f.tokens.usdc, payee);
      expect(await batch([second])).toEqual([{ name: "ExceedsPerTxLimit", args: [USD(16), USD(10)] }]);
      expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before);
      expect(await used(second.intent)).toBe(false);
    } finally {
      await f.write(f.owner, f.feeds.usdc, "mocks/MockPriceFeed", "setPrice", [PRICE(1)]);
    }
  });

  it("balance: two items that together exceed the vault's balance — the second is refused with InsufficientBalance, nothing of it moves", async () => {
    const dai = f.tokens.dai; // the vault holds none yet
    await f.write(f.owner, dai, "mocks/MockERC20", "mint", [f.vault, 10n ** 18n * 5n]);
    const a = await item(f.bot, { token: dai, amount: 10n ** 18n * 3n });
    const b = await item(f.bot, { token: dai, amount: 10n ** 18n * 3n });
    const c = await item(f.bot, { token: dai, amount: 10n ** 18n * 2n });
    const before = await f.balanceOf(dai, payee);
    expect(await batch([a, b, c])).toEqual([undefined, { name: "InsufficientBalance", args: [dai, 10n ** 18n * 2n, 10n ** 18n * 3n] }, undefined]);
    expect(await f.balanceOf(dai, payee)).toBe(before + 10n ** 18n * 5n);
    expect(await f.balanceOf(dai, f.vault)).toBe(0n);
    expect(await used(b.intent)).toBe(false);
    // alone, the refused one gets the same revert from the direct path
    expect(await direct(b)).toEqual({ name: "InsufficientBalance", args: [dai, 0n, 10n ** 18n * 3n] });
  });

  it("blacklist: refused in a batch while listed, counted once however often it is added, lifted only by its own removal", async () => {
    const listed = account(10).address;
    const other = account(11).address;
    await f.write(f.owner, f.vault, "ServiceVault", "setOperator", [f.operator.address]);
    await f.write(f.operator, f.vault, "ServiceVault", "addGlobalBlacklist", [listed]); // the operator may blacklist
    await f.write(f.owner, f.vault, "ServiceVault", "addGlobalBlacklist", [listed]); // twice
    await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalBlacklist", [other]); // never listed: changes nothing
    const toListed = await item(f.bot, { to: listed, amount: USD(1) });
    const toOther = await item(f.bot, { to: other, amount: USD(1) });
    const before = await f.balanceOf(f.tokens.usdc, listed);
    expect(await batch([toListed, toOther])).toEqual([{ name: "DestinationBlacklisted", args: [listed] }, undefined]);
    expect(await f.balanceOf(f.tokens.usdc, listed)).toBe(before);
    expect(await f.read(f.vault, "ServiceVault", "isBlacklisted", [listed])).toBe(true);
    expect(await f.read(f.vault, "ServiceVault", "checkDestination", [f.bot.address, listed])).toEqual([false, "blacklisted"]);
    // one removal lifts it (a flag, not a count of additions)
    await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalBlacklist", [listed]);
    expect(await f.read(f.vault, "ServiceVault", "isBlacklisted", [listed])).toBe(false);
    const again = await item(f.bot, { to: listed, amount: USD(1) });
    expect(await batch([again])).toEqual([undefined]);
    expect(await f.balanceOf(f.tokens.usdc, listed)).toBe(before + USD(1));
    // two listed, one lifted: the other is still refused
    await f.write(f.owner, f.vault, "ServiceVault", "addGlobalBlacklist", [listed]);
    await f.write(f.owner, f.vault, "ServiceVault", "addGlobalBlacklist", [other]);
    await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalBlacklist", [listed]);
    const toOtherAgain = await item(f.bot, { to: other, amount: USD(1) });
    const otherBefore = await f.balanceOf(f.tokens.usdc, other);
    expect(await batch([toOtherAgain])).toEqual([{ name: "DestinationBlacklisted", args: [other] }]);
    expect(await f.balanceOf(f.tokens.usdc, other)).toBe(otherBefore);
    await f.write(f.owner, f.vault, "ServiceVault", "removeGlobalBlacklist", [other]);
  });

  it("used and cancelled: a cancelled intent and a duplicate are refused in a batch; cancelling an executed intent keeps it used", async () => {
    const cancelled = await item(f.bot, { amount: USD(1) });
    await f.write(f.owner, f.vault, "ServiceVault", "cancelIntent", [await hashOf(cancelled.intent)]);
    const twice = await item(f.bot, { amount: USD(1) });
    const before = await f.balanceOf(f.tokens.usdc, payee);
    const outcome = await batch([cancelled, twice, twice]);
    expect(outcome).toEqual([
      { name: "IntentCancelled", args: [await hashOf(cancelled.intent)] },
      undefined,
      { name: "IntentAlreadyUsed", args: [await hashOf(twice.intent)] },
    ]);
    expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + USD(1));
    expect(await used(cancelled.intent)).toBe(false);
    const twiceHash = await hashOf(twice.intent);
    await f.write(f.owner, f.vault, "ServiceVault", "cancelIntent", [twiceHash]);
    expect(await f.read(f.vault, "ServiceVault", "usedIntents", [twiceHash])).toBe(true);
    expect(await f.read(f.vault, "ServiceVault", "cancelledIntents", [twiceHash])).toBe(true);
    expect(await direct(twice)).toEqual({ name: "IntentAlreadyUsed", args: [twiceHash] });
  });

  it("an intent whose address words carry high bits is refused with an empty revert, alone and in a batch; nothing moves", async () => {
    // The vault hashes an intent over its calldata words: the ABI decoder's address check must hold there too.
    const good = await item(f.bot, {});
    const hash = await hashOf(good.intent);
    const before = await f.balanceOf(f.tokens.usdc, payee);
    const dirty = (data: Hex, word: number): Hex => {
      const at = 2 + 2 * (4 + 32 * word); // the intent's words follow the selector (its struct is static)
      return `${data.slice(0, at)}01${data.slice(at + 2)}` as Hex;
    };
    const revertData = async (data: Hex): Promise<unknown> => {
      try {
        await f.chain.provider.request({ method: "eth_call", params: [{ from: f.relayer.address, to: f.vault, data }, "latest"] } as never);
      } catch (err) {
        return (err as { data?: unknown }).data ?? "no data";
      }
      throw new Error("expected a revert, but the call succeeded");
    };
    for (const word of [0, 1, 2]) { // bot, to, token
      const direct = dirty(calldata("ServiceVault", "executePayment", [good.intent, good.signature]), word);
      const batched = dirty(calldata("ServiceVault", "executePaymentBatch", [[good.intent], [good.signature]]), word + 3); // after two offsets and the length
      const hashed = dirty(calldata("ServiceVault", "hashPaymentIntent", [good.intent]), word);
      for (const data of [direct, batched, hashed]) expect([undefined, "0x", "no data"]).toContain(await revertData(data));
      for (const data of [direct, batched]) {
        await f.clients.walletFor(f.relayer).sendTransaction({ to: f.vault, data, gas: 1_000_000n, chain: f.clients.chain, account: f.relayer }).catch(() => undefined);
      }
    }
    expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before);
    expect(await f.read(f.vault, "ServiceVault", "usedIntents", [hash])).toBe(false);
    // The same intent, encoded as signed, executes.
    expect(await batch([good])).toEqual([undefined]);
    expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + good.intent.amount);
  });

  it("the item entry point's selector is the vault's lowest: the dispatcher (a linear search at optimizer runs 1) tries it first", () => {
    const selectors = vaultAbi()
      .filter((x) => x.type === "function")
      .map((fn) => ({ name: (fn as { name: string }).name, selector: toFunctionSelector(fn as never) }))
      .sort((a, b) => a.selector.localeCompare(b.selector));
    expect(selectors[0]).toEqual({ name: "executePaymentItem_4z5o", selector: "0x0000d441" });
  });

  it("mixed vaults: an intent signed for another vault is refused in this vault's batch", async () => {
    const other = await f.newVault();
    const intent = await f.payment({ to: payee });
    const foreign = { intent, signature: await f.signPayment(f.bot, intent, other as Address) };
    const before = await f.balanceOf(f.tokens.usdc, payee);
    expect(await batch([foreign])).toEqual([{ name: "InvalidSignature", args: [] }]);
    expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before);
  });
});
