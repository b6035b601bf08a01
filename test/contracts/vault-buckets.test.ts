// The spend windows as token buckets in the vault (VaultBuckets): every payment, execute and swap is
// debited at its feed-priced USD value, at the block's own timestamp. Transactions here are sent at
// chosen timestamps (evm_setNextBlockTimestamp) so that the edges are exact: a bucket of X per W
// refills X·t/W with no rounding, never refuses what a rolling window of X per W allows, an owner's
// change never refills it, removing a bot clears its buckets, a batch item that fails gives back what
// it took. Balances are read from the chain to prove what moved and what did not.
import { decodeErrorResult, encodeFunctionData, type Address, type Hex, type LocalAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentIntent, SwapIntent } from "../../packages/client/src/intent-types.ts";
import type { SpendingLimit } from "../../src/chain/vault-config.ts";
import { abiOf, account, calldata, emptyConfig, executeIntent, revertOf, setupFixture, USD, type Fixture, type Revert } from "./fixture.ts";

const DAY = 86_400n;
const limit = (amount: bigint, windowSeconds: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds });
type Bucket = readonly [bigint, bigint, bigint, bigint]; // [windowSeconds, cap, available, level]

describe("ServiceVault spend buckets", () => {
  let f: Fixture;
  let vault: Address;
  const payee = account(7).address;
  const [botA, botB, botC] = [account(8), account(9), account(10)];
  let clock = 0n; // the timestamp of the next block this file mines

  beforeAll(async () => {
    f = await setupFixture();
    clock = (await f.now()) + 10n;
  });
  afterAll(async () => f?.chain.close());

  const owner = (fn: string, args: readonly unknown[], v = vault) => f.write(f.owner, v, "ServiceVault", fn, args);
  /** Sets the timestamp of the next block (and the file's clock) to `ts`. */
  async function at(ts: bigint): Promise<void> {
    if (ts < clock) throw new Error(`time runs forward: ${ts} < ${clock}`);
    clock = ts + 1n;
    await f.chain.provider.request({ method: "evm_setNextBlockTimestamp", params: [Number(ts)] } as never);
  }
  const buckets = (bot: Address) =>
    f.read<readonly [readonly Bucket[], readonly Bucket[], Bucket]>(vault, "ServiceVault", "spendBuckets", [bot]);
  async function fresh(): Promise<void> {
    vault = await f.newVault(f.owner);
    await f.write(f.owner, f.tokens.usdc, "mocks/MockERC20", "mint", [vault, USD(100_000)]);
  }
  async function item(bot: LocalAccount, amount: bigint, over: Partial<PaymentIntent> = {}) {
    const intent: PaymentIntent = { ...(await f.payment({ bot: bot.address, to: payee, amount, deadline: clock + 100_000n })), ...over };
    return { intent, signature: await f.signPayment(bot, intent, vault) };
  }
  /** One executePaymentBatch mined at `ts`; per item, undefined when it executed, else its revert. */
  async function batchAt(ts: bigint, items: { intent: PaymentIntent; signature: Hex }[]): Promise<(Revert | undefined)[]> {
    await at(ts);
    const data = encodeFunctionData({ abi: abiOf("ServiceVault"), functionName: "executePaymentBatch", args: [items.map((i) => i.intent), items.map((i) => i.signature)] });
    const hash = await f.clients.walletFor(f.relayer).sendTransaction({ to: vault, data, gas: 10_000_000n, chain: f.clients.chain, account: f.relayer });
    const receipt = await f.clients.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const block = await f.clients.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(block.timestamp).toBe(ts);
    const failed = new Map(
      f.events(receipt, "ServiceVault", "PaymentFailed").map((e) => {
        const d = decodeErrorResult({ abi: abiOf("ServiceVault"), data: e.args.reason as Hex });
        return [e.args.intentHash as Hex, { name: d.errorName, args: d.args ?? [] } as Revert];
      }),
    );
    const out: (Revert | undefined)[] = [];
    for (const i of items) out.push(failed.get(await f.read<Hex>(vault, "ServiceVault", "hashPaymentIntent", [i.intent])));
    return out;
  }
  const payAt = async (ts: bigint, bot: LocalAccount, amount: bigint) => (await batchAt(ts, [await item(bot, amount)]))[0];

  describe("refill at the edges", () => {
    const W = 3_600n;
    const X = USD(100);
    let t0: bigint;
    beforeAll(async () => {
      await fresh();
      t0 = clock + 10n;
      await at(t0);
      await owner("addBotWithPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(X, W)] })]);
    });

    it("starts full: exactly the cap passes, one unit more in the same second does not", async () => {
      expect((await buckets(botA.address))[0]).toEqual([[W, X, X, X * W]]);
      const before = await f.balanceOf(f.tokens.usdc, payee);
      expect(await payAt(t0 + 1n, botA, X)).toBeUndefined();
      // One second later the bucket holds exactly X/W = 27,777.7… units: 27,777 pass, 27,778 do not.
      const oneSecond = X / W;
      const [over, exact] = await batchAt(t0 + 2n, [await item(botA, oneSecond + 1n), await item(botA, oneSecond)]);
      expect(over).toEqual({ name: "ExceedsSpendWindow", args: [botA.address, W, oneSecond + 1n, oneSecond] });
      expect(exact).toBeUndefined();
      expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + X + oneSecond);
    });

    it("refills exactly: the fractions of a unit are kept, never rounded away or given", async () => {
      // After t0+2 the level is X/W·1 - floor(X/W) = 0.7… units (in units of 1/W). Over the next
      // 3 seconds it gains 3·X/W = 83,333.3…: 83,334 available in all (0.7… + 83,333.3… = 83,334.0…).
      const [over, exact] = await batchAt(t0 + 5n, [await item(botA, 83_335n), await item(botA, 83_334n)]);
      expect(over?.name).toBe("ExceedsSpendWindow");
      expect(over?.args[3]).toBe(83_334n);
      expect(exact).toBeUndefined();
    });

    it("a rolling window's boundary: X again exactly W after X (the window then no longer counts it), not a second sooner", async () => {
      // X at a time the bucket is full again (W since the last spend), then X again W - 1 and W later.
      const t = clock + 10n;
      expect(await payAt(t + W + 1n, botA, X)).toBeUndefined(); // full: W since the last spend
      expect((await payAt(t + 2n * W, botA, X))?.name).toBe("ExceedsSpendWindow"); // W - 1 seconds later
      expect(await payAt(t + 2n * W + 1n, botA, X)).toBeUndefined(); // exactly W later
    });

    it("honest traffic: any sequence a rolling window of X per W allows passes the bucket", async () => {
      // A deterministic pseudo-random walk: 60 spends at gaps of 0..W/3 seconds, each sent only when
      // the rolling window (ts - W, ts] of what executed has room, as the relayer's ledger decides.
      let seed = 7;
      const rand = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
      const spent: { ts: bigint; usd: bigint }[] = [];
      let t = clock + W + 5n; // the bucket is full again
      let sent = 0;
      for (let k = 0; k < 60; k++) {
        t += BigInt(rand(Number(W / 3n)));
        const inWindow = spent.filter((s) => s.ts > t - W).reduce((a, s) => a + s.usd, 0n);
        const room = X - inWindow;
        if (room <= 0n) continue;
        // Often exactly the room left (bursts at the limit), else a part of it.
        const usd = rand(3) === 0 ? room : BigInt(1 + rand(Number(room)));
        const outcome = await payAt(t, botA, usd);
        expect(outcome, `spend ${k} of ${usd} at +${t} with ${room} of window room`).toBeUndefined();
        spent.push({ ts: t, usd });
        t += 1n;
        sent++;
      }
      expect(sent).toBeGreaterThan(20);
    });
  });

  describe("the owner's changes", () => {
    beforeAll(fresh);

    it("a cap change never refills: level = min(refilled, new cap)", async () => {
      const t = clock + 10n;
      await at(t);
      await owner("addBotWithPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(100), DAY)] })]);
      expect(await payAt(t + 1n, botA, USD(80))).toBeUndefined();
      // Raised to $1,000 a day: the level carries (≈ $20 and a second's refill), it is not refilled to the cap.
      await at(t + 2n);
      await owner("updateBotPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(1_000), DAY)] })]);
      const [[raised]] = await buckets(botA.address);
      expect(raised![1]).toBe(USD(1_000));
      expect(raised![2]).toBeGreaterThanOrEqual(USD(20));
      expect(raised![2]).toBeLessThan(USD(21));
      expect((await payAt(t + 3n, botA, USD(25)))?.name).toBe("ExceedsSpendWindow");
      // Lowered to $10: the level is the new cap.
      await at(t + 4n);
      await owner("updateBotPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(10), DAY)] })]);
      expect((await buckets(botA.address))[0]).toEqual([[DAY, USD(10), USD(10), USD(10) * DAY]]);
      expect(await payAt(t + 5n, botA, USD(10))).toBeUndefined();
      // Raised again: still empty but for what refilled since.
      await at(t + 6n);
      await owner("updateBotPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(100), DAY), limit(USD(3), 0n), limit(0n, 60n, 3n)] })]);
      const [[again]] = await buckets(botA.address);
      expect(again![2]).toBeLessThan(USD(1) / 100n);
      expect((await buckets(botA.address))[0]).toHaveLength(1); // no window, or a count-only limit: no bucket
    });

    it("a limit with a window of its own starts full; the same window keeps its level whatever its place in the list", async () => {
      const t = clock + 10n;
      await at(t);
      await owner("updateBotPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(50), 3_600n), limit(USD(100), DAY)] })]);
      const [list] = await buckets(botA.address);
      expect(list[0]).toEqual([3_600n, USD(50), USD(50), USD(50) * 3_600n]);
      expect(list[1]![2]).toBeLessThan(USD(1)); // the daily bucket: still nearly empty
    });

    it("removing a bot clears its buckets; adding it again starts full (the owner's choice)", async () => {
      await owner("setBotSwapLimit", [botA.address, USD(500), DAY]);
      await owner("removeBot", [botA.address]);
      expect(await buckets(botA.address)).toEqual([[], [], [0n, 0n, 0n, 0n]]);
      await owner("addBotWithPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(100), DAY)] })]);
      expect((await buckets(botA.address))[0]).toEqual([[DAY, USD(100), USD(100), USD(100) * DAY]]);
    });

    it("limits out of the packed word's range are refused with a clear error; count-only and window-less ones are no bucket", async () => {
      const refuse = (fn: string, args: readonly unknown[]) => revertOf(() => f.simulate(f.owner, vault, "ServiceVault", fn, args));
      expect(await refuse("setVaultSpendingLimits", [[limit(1n << 64n, DAY)]])).toEqual({ name: "InvalidSpendingLimit", args: [1n << 64n, DAY] });
      expect(await refuse("addBotWithPolicy", [botB.address, emptyConfig({ spendingLimits: [limit(USD(1), 1n << 32n)] })])).toEqual({ name: "InvalidSpendingLimit", args: [USD(1), 1n << 32n] });
      expect(await refuse("setBotSwapLimit", [botB.address, 1n << 64n, DAY])).toEqual({ name: "InvalidSpendingLimit", args: [1n << 64n, DAY] });
      await owner("setVaultSpendingLimits", [[limit((1n << 64n) - 1n, (1n << 32n) - 1n), limit(0n, DAY, 5n)]]);
      expect((await buckets(botB.address))[1]).toEqual([[(1n << 32n) - 1n, (1n << 64n) - 1n, (1n << 64n) - 1n, ((1n << 64n) - 1n) * ((1n << 32n) - 1n)]]);
      await owner("setVaultSpendingLimits", [[]]);
      expect((await buckets(botB.address))[1]).toEqual([]);
    });

    it("only the owner sets them: a relayer key or a bot key cannot reset a bucket", async () => {
      for (const who of [f.relayer, botA]) {
        for (const [fn, args] of [
          ["setVaultSpendingLimits", [[]]],
          ["updateBotPolicy", [botA.address, emptyConfig()]],
          ["setBotSwapLimit", [botA.address, 0n, 0n]],
        ] as const) {
          expect((await revertOf(() => f.simulate(who, vault, "ServiceVault", fn, args))).name).toBe("NotOwner");
        }
        // Adding is the owner's or the operator's (within its ceilings): neither key is either.
        expect((await revertOf(() => f.simulate(who, vault, "ServiceVault", "addBotWithPolicy", [botC.address, emptyConfig()]))).name).toBe("NotOwnerOrOperator");
        expect((await revertOf(() => f.simulate(who, vault, "ServiceVault", "removeBot", [botA.address]))).name).toBe("NotOwnerOrOperator");
      }
    });
  });

  describe("batches", () => {
    beforeAll(async () => {
      await fresh();
      await owner("addBotWithPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(100), DAY)] })]);
      await owner("addBotWithPolicy", [botB.address, emptyConfig({ spendingLimits: [limit(USD(50), 3_600n)] })]);
      await owner("setVaultSpendingLimits", [[limit(USD(120), DAY)]]);
      await owner("addGlobalBlacklist", [account(11).address]);
    });

    it("mixed bots, per-bot and vault-wide buckets together; a failed item gives back what it took", async () => {
      const t = clock + 10n;
      const before = await f.balanceOf(f.tokens.usdc, payee);
      const outcome = await batchAt(t, [
        await item(botA, USD(60)),
        // Debited, then refused by the blacklist after its buckets: its call frame reverts, taking nothing.
        await item(botB, USD(40), { to: account(11).address }),
        await item(botB, USD(50)), // botB's own $50: exactly its cap
        await item(botA, USD(30)), // botA's bucket has $40, but the vault's has $10
        await item(botB, USD(1)), // botB's bucket is empty
        await item(botA, USD(10)), // exactly what the vault's bucket holds
      ]);
      expect(outcome.map((o) => o?.name)).toEqual([undefined, "DestinationBlacklisted", undefined, "ExceedsSpendWindow", "ExceedsSpendWindow", undefined]);
      expect(outcome[3]!.args).toEqual([vault, DAY, USD(30), USD(10)]);
      expect(outcome[4]!.args).toEqual([botB.address, 3_600n, USD(1), 0n]);
      expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + USD(120));
      // Read a few seconds on: what refilled since is a few thousandths of a dollar.
      const [[a], [v]] = await buckets(botA.address);
      expect(a![2]).toBeGreaterThanOrEqual(USD(30));
      expect(a![2]).toBeLessThan(USD(30.1));
      expect(v![2]).toBeLessThan(USD(0.1));
    });

    it("the direct path refuses alike, with the same error", async () => {
      const i = await item(botA, USD(5));
      expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executePayment", [i.intent, i.signature]))).name).toBe("ExceedsSpendWindow");
    });

    it("an owner-approved payment is debited like any other (the owner's approval is not a way around a window)", async () => {
      await owner("addBotWithPolicy", [botC.address, emptyConfig({ requireHumanReview: true, spendingLimits: [limit(USD(10), DAY)] })]);
      await owner("setVaultSpendingLimits", [[]]); // the vault-wide day is spent: only the bot's bucket here
      const reviewed = async (amount: bigint) => {
        const { intent, signature } = await item(botC, amount);
        const hash = await f.read<Hex>(vault, "ServiceVault", "hashPaymentIntent", [intent]);
        const deadline = clock + 100_000n;
        return [intent, signature, deadline, await f.signReview(f.owner, hash, deadline, vault)] as const;
      };
      await f.write(f.relayer, vault, "ServiceVault", "executeReviewedPayment", await reviewed(USD(8)));
      const before = await f.balanceOf(f.tokens.usdc, payee);
      const over = await reviewed(USD(5));
      expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeReviewedPayment", over))).args.slice(0, 3)).toEqual([botC.address, DAY, USD(5)]);
      expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before);
    });
  });

  describe("what is debited", () => {
    const recipient = account(12).address;
    beforeAll(async () => {
      await fresh();
      await f.write(f.owner, f.tokens.weth, "mocks/MockERC20", "mint", [vault, 10n ** 18n]);
      await owner("addBotWithPolicy", [botA.address, emptyConfig({ spendingLimits: [limit(USD(100), DAY)] })]);
      await owner("approveProtocol", [f.tokens.usdc]);
      await owner("addGlobalDestination", [recipient]);
    });

    it("an execute: its declared value, which bounds what it moves; declaring 0 moves nothing", async () => {
      const transfer = (amount: bigint) => calldata("mocks/MockERC20", "transfer", [recipient, amount]);
      const send = async (amount: bigint, declared: bigint) => {
        const intent = executeIntent(f, f.tokens.usdc, transfer(amount), clock + 100_000n, { bot: botA.address, tokens: [f.tokens.usdc], amounts: [declared] });
        const args = [intent, await f.signExecute(botA, intent, vault), transfer(amount)];
        return { args, refusal: () => revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeProtocol", args)) };
      };
      const zero = await send(USD(30), 0n);
      expect((await zero.refusal()).name).toBe("ExcessOutflow");
      const over = await send(USD(101), USD(101));
      expect((await over.refusal()).name).toBe("ExceedsSpendWindow");
      const ok = await send(USD(70), USD(70));
      await f.write(f.relayer, vault, "ServiceVault", "executeProtocol", ok.args);
      expect(await f.balanceOf(f.tokens.usdc, recipient)).toBe(USD(70));
      const [[bucket]] = await buckets(botA.address);
      expect(bucket![2]).toBeLessThan(USD(31));
      expect((await (await send(USD(31), USD(31))).refusal()).name).toBe("ExceedsSpendWindow");
    });

    it("a swap: its swap volume bucket, by what it spent; a swap-and-pay debits its swap leg there and its payment in the spend buckets", async () => {
      await owner("setBotSwapLimit", [botA.address, USD(40), DAY]);
      const swap = async (maxFromAmount: bigint, over: Partial<SwapIntent> = {}): Promise<SwapIntent> => ({
        bot: botA.address, fromToken: f.tokens.usdc, maxFromAmount, toToken: f.tokens.weth, minToAmount: 0n, deadline: clock + 100_000n, ref: f.ref("swap"), ...over,
      });
      const routerCall = (s: SwapIntent) => calldata("mocks/MockSwapRouter", "swapExactIn", [s.fromToken, s.toToken, s.maxFromAmount, 0n, vault]);
      const sign = (s: SwapIntent) => f.signSwap(botA, s, vault);
      const big = await swap(USD(41));
      expect((await revertOf(async () => f.simulate(f.relayer, vault, "ServiceVault", "executeSwap", [big, await sign(big), f.router, routerCall(big)]))).args.slice(0, 3)).toEqual([botA.address, DAY, USD(41)]);
      const ok = await swap(USD(30));
      await f.write(f.relayer, vault, "ServiceVault", "executeSwap", [ok, await sign(ok), f.router, routerCall(ok)]);
      const [, , swapBucket] = await buckets(botA.address);
      expect(swapBucket[2]).toBeGreaterThanOrEqual(USD(10));
      expect(swapBucket[2]).toBeLessThan(USD(11));

      // Swap-and-pay: WETH → USDC for a USDC payment. The swap leg ($15 of WETH) takes the swap
      // bucket's ≈ $10 short: refused; with a $5 swap leg it passes and the payment takes the spend bucket.
      const pair = async (wethIn: bigint, pay: bigint) => {
        const payment = await f.payment({ bot: botA.address, to: recipient, amount: pay, deadline: clock + 100_000n });
        const s = await swap(wethIn, { fromToken: f.tokens.weth, toToken: f.tokens.usdc, minToAmount: pay });
        const data = calldata("mocks/MockSwapRouter", "swapExactIn", [s.fromToken, s.toToken, s.maxFromAmount, 0n, vault]);
        return [s, await sign(s), payment, await f.signPayment(botA, payment, vault), f.router, data, { deadline: 0n, signature: "0x" }] as const;
      };
      const ETH_PER_USD = 10n ** 18n / 3_000n;
      const tooMuch = await pair(ETH_PER_USD * 15n, USD(1));
      expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", tooMuch))).args[0]).toBe(botA.address);
      const [[spendBefore]] = await buckets(botA.address);
      const fine = await pair(ETH_PER_USD * 5n, USD(4));
      await f.write(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", fine);
      const [[spendAfter], , swapAfter] = await buckets(botA.address);
      expect(swapAfter[2]).toBeLessThan(USD(6));
      expect(spendBefore![2] - spendAfter![2]).toBeGreaterThanOrEqual(USD(4) - USD(1) / 100n);
      expect(spendBefore![2] - spendAfter![2]).toBeLessThanOrEqual(USD(4));
    });
  });
});
