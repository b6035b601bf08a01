// Swaps are bounded, and a feed that cannot price is refused. Attack: a bot signs a swap with
// `minToAmount` 0 (or swaps through a router quoting far below the market) and so gives the vault's
// value away; or swaps without end. Now the vault takes no less than the feed-priced value of the
// input less the owner's tolerance (1% unless set), the relayer tells the router that floor and refuses
// a quote below it, and the owner's swap volume window bounds a bot's swaps. A stale or non-positive
// feed refuses payments and swaps at the relayer and on-chain. Every refusal is checked on the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFunctionData, type Address, type Hex } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { balanceOf, fresh, ownerCall, paymentBody, post, startEnv, swapBody, type Env } from "../relayer/harness.ts";
import { advanceChain, newBot, readOf, routerQuote, swapBodyAs, usd, usdLeft } from "../relayer/harness-extra.ts";
import { asRelayer } from "./support/leaked-relayer.ts";
import { deployer, setPrice, setUpdatedAt } from "./support/devnet-admin.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;
const WETH = (milli: number) => BigInt(milli) * 10n ** 15n;

describe("swap bounds", () => {
  let env: Env;
  let swap: string;
  let usdc: Address;
  let weth: Address;
  let router: Address;

  beforeAll(async () => {
    env = await startEnv();
    swap = `${env.url}/v1/swap`;
    usdc = env.token("USDC");
    weth = env.token("WETH");
    router = env.manifest.contracts.router as Address;
  });
  afterAll(() => env?.close());

  const vaultHoldings = () => Promise.all([balanceOf(env, usdc, env.vault), balanceOf(env, weth, env.vault)]);
  const setFee = (bps: bigint) => deployer(env).call(router, "mocks/MockSwapRouter", "setFeeBps", [bps]);
  const floorOf = (amountIn: bigint) => readOf<bigint>(env, env.vault, "ServiceVault", "swapFloor", [usdc, weth, amountIn]);

  /** The minimum the relayer told the router, read from the transaction it sent. */
  async function routerMinimum(txHash: Hex): Promise<bigint> {
    const tx = await env.clients.publicClient.getTransaction({ hash: txHash });
    const outer = decodeFunctionData({ abi: readArtifact("ServiceVault").abi, data: tx.input });
    expect(outer.functionName).toBe("executeSwap");
    const inner = decodeFunctionData({ abi: readArtifact("mocks/MockSwapRouter").abi, data: (outer.args as readonly unknown[])[3] as Hex });
    expect(inner.functionName).toBe("swapExactIn");
    return (inner.args as readonly unknown[])[3] as bigint;
  }

  it("minToAmount 0: the swap goes through at no less than the feed-priced floor, and the router was told that floor", async () => {
    // 3,000 USDC at $1 is 1 WETH at $3,000; less the default 1% tolerance: 0.99 WETH.
    const floor = await floorOf(USDC(3_000));
    expect(floor).toBe(WETH(990));
    const [usdcBefore, wethBefore] = await vaultHoldings();
    const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(3_000), minToAmount: 0n }));
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const [usdcAfter, wethAfter] = await vaultHoldings();
    expect(usdcAfter).toBe(usdcBefore - USDC(3_000));
    expect(wethAfter - wethBefore).toBeGreaterThanOrEqual(floor);
    expect(wethAfter - wethBefore).toBe(WETH(997)); // the router's 0.3% fee
    expect(await routerMinimum(res.body.txHash)).toBe(floor);
  });

  describe("a router quoting 50% below the feeds", () => {
    beforeAll(() => setFee(5_000n));
    afterAll(async () => {
      await setFee(30n);
      await ownerCall(env, "setSwapSlippageBps", [100n]);
    });

    it("422 SWAP_SLIPPAGE_EXCEEDED: the best quote is below the vault's floor, nothing moved", async () => {
      expect(await routerQuote(env, usdc, weth, USDC(3_000))).toBe(WETH(500));
      const before = await vaultHoldings();
      const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(3_000), minToAmount: 0n }));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("SWAP_SLIPPAGE_EXCEEDED");
      expect(res.body.details).toBe("best quote 0.5 WETH is below the vault's slippage floor 0.99 WETH (minToAmount is 0 WETH)");
      expect(await vaultHoldings()).toEqual(before);
    });

    it("with the owner's tolerance raised to 60% it passes, at no less than the new floor", async () => {
      await ownerCall(env, "setSwapSlippageBps", [6_000n]);
      const floor = await floorOf(USDC(3_000));
      expect(floor).toBe(WETH(400));
      const [usdcBefore, wethBefore] = await vaultHoldings();
      const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(3_000), minToAmount: 0n }));
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
      const [usdcAfter, wethAfter] = await vaultHoldings();
      expect(usdcAfter).toBe(usdcBefore - USDC(3_000));
      expect(wethAfter - wethBefore).toBe(WETH(500));
      expect(await routerMinimum(res.body.txHash)).toBe(floor);
    });
  });

  describe("the owner's swap volume window", () => {
    let bot: Awaited<ReturnType<typeof newBot>>;

    beforeAll(async () => {
      bot = await newBot(env);
      await ownerCall(env, "setBotSwapLimit", [bot.address, usd(1_000), 3_600n]);
    });

    it("$600 passes; another $600 in the hour is 403 EXCEEDS_REBALANCE_LIMIT with nothing moved; $300 more still passes", async () => {
      const body = (dollars: number) => swapBodyAs(env, bot, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(dollars), minToAmount: 0n });
      const start = await vaultHoldings();
      expect((await post(swap, await body(600))).body.status).toBe("approved");
      const afterFirst = await vaultHoldings();
      expect(afterFirst[0]).toBe(start[0] - USDC(600));

      // The vault's bucket refills 1000/3600 USD a second: 36 s on, it holds $10 more than the $400
      // the first swap left, plus a second's refill or so should a second of the relayer's clock end
      // before the next request is checked.
      await advanceChain(env, 36);
      const over = await post(swap, await body(600));
      expect(over.status).toBe(403);
      expect(over.body.code).toBe("EXCEEDS_REBALANCE_LIMIT");
      const left = usdLeft(over.body.details, "the bot's swap volume limit of 1000 USD per 3600 s");
      expect(left).toBeGreaterThanOrEqual(410);
      expect(left).toBeLessThan(410 + (1000 / 3600) * 5);
      expect(await vaultHoldings()).toEqual(afterFirst);

      expect((await post(swap, await body(300))).body.status).toBe("approved");
      expect((await vaultHoldings())[0]).toBe(start[0] - USDC(900));
    });
  });

  describe("a feed that cannot price", () => {
    /** A payment the default bot signed, forced on-chain by the relayer key: the vault's own refusal. */
    async function forcedPayment(to: Address) {
      const intent = { bot: env.bot.address, to, token: usdc, amount: USDC(10), deadline: defaultDeadline(), ref: randomRef() };
      const signature = await signPaymentIntent(env.bot, env.manifest.domain as never, intent);
      return asRelayer(env, "executePayment", [intent, signature]);
    }

    async function expectRefused(why: RegExp) {
      const to = fresh();
      const before = await vaultHoldings();
      const payment = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(10) }));
      expect(payment.status).toBe(422);
      expect(payment.body.code).toBe("PRICE_FEED_STALE");
      const swapped = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(100), minToAmount: 0n }));
      expect(swapped.status).toBe(422);
      expect(swapped.body.code).toBe("PRICE_FEED_STALE");
      // The vault refuses it as well: a relayer key cannot push it through.
      const forced = await forcedPayment(to);
      expect(forced.refusal).toMatch(why);
      expect(forced.status).toBe("reverted");
      expect(await vaultHoldings()).toEqual(before);
      expect(await balanceOf(env, usdc, to)).toBe(0n);
    }

    it("USDC's feed answered two days ago: payment and swap 422 PRICE_FEED_STALE, the vault StalePrice, nothing moved", async () => {
      const now = (await env.clients.publicClient.getBlock()).timestamp;
      await setUpdatedAt(env, "USDC", now - 2n * 86_400n);
      try {
        await expectRefused(/^StalePrice$/);
      } finally {
        await setUpdatedAt(env, "USDC", 0n);
      }
    });

    for (const answer of [0n, -1n]) {
      it(`USDC's feed answers ${answer}: payment and swap 422 PRICE_FEED_STALE, the vault InvalidPrice, nothing moved`, async () => {
        await setPrice(env, "USDC", answer);
        try {
          await expectRefused(/^InvalidPrice$/);
        } finally {
          await setPrice(env, "USDC", 1_00000000n);
        }
      });
    }

    it("with the feed restored, the same payment pays", async () => {
      const to = fresh();
      const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(10) }));
      expect(res.body.status).toBe("approved");
      expect(await balanceOf(env, usdc, to)).toBe(USDC(10));
    });
  });
});
