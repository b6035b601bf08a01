// POST /v1/swap end to end: in-vault rebalancing through the devnet's swap router, priced from the
// feeds. The fast path with balances checked on-chain, the status read, and the swap refusals:
// no route, slippage, the rebalance whitelist (the registry's default, then the owner's on-chain list)
// and the bot's rebalance cap.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import type { Sender } from "../../src/chain/sender.ts";
import { balanceOf, get, ownerCall, post, startEnv, swapBody, type Env } from "./harness.ts";
import { expectErrorEnvelope, fundedSender, newBot, routerQuote, setPair, swapBodyAs, usd } from "./harness-extra.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));

describe("POST /v1/swap", () => {
  let env: Env;
  let swap: string;
  let anyone: Sender;
  let usdc: Address;
  let weth: Address;
  let usdt: Address;
  let dai: Address;

  beforeAll(async () => {
    env = await startEnv();
    swap = `${env.url}/v1/swap`;
    usdc = env.token("USDC");
    weth = env.token("WETH");
    usdt = env.token("USDT");
    dai = env.token("DAI");
    anyone = await fundedSender(env);
    await setPair(env, anyone, usdc, weth, true);
  });
  afterAll(() => env?.close());

  /** Balances of the vault in `tokens`, in order. */
  const vaultBalances = (...tokens: Address[]): Promise<bigint[]> => Promise.all(tokens.map((t) => balanceOf(env, t, env.vault)));

  it("fast path: USDC → WETH is approved with txHash; the vault's WETH goes up by the quote and its USDC down", async () => {
    const amountIn = USDC(3_000);
    const quote = await routerQuote(env, usdc, weth, amountIn);
    expect(quote).toBeGreaterThan(0n);
    const minToAmount = (quote * 99n) / 100n;
    const [usdcBefore, wethBefore] = await vaultBalances(usdc, weth);

    const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: amountIn, minToAmount }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requestId: expect.stringMatching(/^req_/), status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: res.body.txHash });
    expect(receipt.status).toBe("success");

    const [usdcAfter, wethAfter] = await vaultBalances(usdc, weth);
    expect(usdcAfter).toBe(usdcBefore! - amountIn);
    expect(wethAfter! - wethBefore!).toBe(quote);

    const status = await get(`${swap}/${res.body.requestId}`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ requestId: res.body.requestId, status: "approved", txHash: res.body.txHash });
  });

  it("a swap id is not a payment id; an unknown id is 404 NOT_FOUND", async () => {
    const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(10), minToAmount: 1n }));
    expect(res.body.status).toBe("approved");
    expect((await get(`${env.url}/v1/payments/${res.body.requestId}`)).status).toBe(404);
    const unknown = await get(`${swap}/req_doesnotexist`);
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.body, "NOT_FOUND");
  });

  it("422 NO_SWAP_ROUTE for a pair the router has disabled; nothing moves", async () => {
    await setPair(env, anyone, usdc, usdt, false);
    try {
      const before = await vaultBalances(usdc, usdt);
      const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: usdt, maxFromAmount: USDC(100), minToAmount: 1n }));
      expect(res.status).toBe(422);
      expectErrorEnvelope(res.body, "NO_SWAP_ROUTE");
      expect(await vaultBalances(usdc, usdt)).toEqual(before);
    } finally {
      await setPair(env, anyone, usdc, usdt, true);
    }
  });

  it("422 SWAP_SLIPPAGE_EXCEEDED when minToAmount is above the router's quote; nothing moves", async () => {
    const amountIn = USDC(1_000);
    const quote = await routerQuote(env, usdc, weth, amountIn);
    const before = await vaultBalances(usdc, weth);
    const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: amountIn, minToAmount: quote + 1n }));
    expect(res.status).toBe(422);
    expectErrorEnvelope(res.body, "SWAP_SLIPPAGE_EXCEEDED");
    expect(await vaultBalances(usdc, weth)).toEqual(before);
  });

  it("422 INSUFFICIENT_BALANCE when maxFromAmount is more than the vault holds (a bot without a rebalance cap)", async () => {
    const bot = await newBot(env, { maxRebalanceAmount: 0n });
    const held = await balanceOf(env, usdc, env.vault);
    const res = await post(swap, await swapBodyAs(env, bot, { fromToken: usdc, toToken: weth, maxFromAmount: held + 1n, minToAmount: 1n }));
    expect(res.status).toBe(422);
    expectErrorEnvelope(res.body, "INSUFFICIENT_BALANCE");
  });

  describe("rebalance whitelist", () => {
    it("403 REBALANCE_TOKEN_NOT_ALLOWED for DAI, outside the default list (USDC, WETH, USDT)", async () => {
      const before = await vaultBalances(usdc, dai);
      const res = await post(swap, await swapBody(env, { fromToken: usdc, toToken: dai, maxFromAmount: USDC(100), minToAmount: 1n }));
      expect(res.status).toBe(403);
      expectErrorEnvelope(res.body, "REBALANCE_TOKEN_NOT_ALLOWED");
      expect(res.body.details).toMatch(/default/);
      expect(await vaultBalances(usdc, dai)).toEqual(before);
      // USDT is on the default list.
      const ok = await post(swap, await swapBody(env, { fromToken: usdc, toToken: usdt, maxFromAmount: USDC(100), minToAmount: 1n }));
      expect(ok.body.status).toBe("approved");
    });

    it("once the owner sets an on-chain list, that list alone rules: DAI allowed, WETH refused", async () => {
      await ownerCall(env, "addRebalanceTokens", [[dai]]);
      try {
        const [daiBefore] = await vaultBalances(dai);
        const quote = await routerQuote(env, usdc, dai, USDC(100));
        const toDai = await post(swap, await swapBody(env, { fromToken: usdc, toToken: dai, maxFromAmount: USDC(100), minToAmount: quote }));
        expect(toDai.status).toBe(200);
        expect(toDai.body.status).toBe("approved");
        expect((await vaultBalances(dai))[0]! - daiBefore!).toBe(quote);

        const toWeth = await post(swap, await swapBody(env, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(100), minToAmount: 1n }));
        expect(toWeth.status).toBe(403);
        expectErrorEnvelope(toWeth.body, "REBALANCE_TOKEN_NOT_ALLOWED");
        expect(toWeth.body.details).toMatch(/on-chain/);
      } finally {
        await ownerCall(env, "removeRebalanceTokens", [[dai]]);
      }
    });
  });

  it("403 EXCEEDS_REBALANCE_LIMIT for a swap worth more than the bot's maxRebalanceAmount; under it is approved", async () => {
    const bot = await newBot(env, { maxRebalanceAmount: usd(100) });
    const before = await vaultBalances(usdc, weth);
    const over = await post(swap, await swapBodyAs(env, bot, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(150), minToAmount: 1n }));
    expect(over.status).toBe(403);
    expectErrorEnvelope(over.body, "EXCEEDS_REBALANCE_LIMIT");
    expect(await vaultBalances(usdc, weth)).toEqual(before);

    const under = await post(swap, await swapBodyAs(env, bot, { fromToken: usdc, toToken: weth, maxFromAmount: USDC(50), minToAmount: 1n }));
    expect(under.status).toBe(200);
    expect(under.body.status).toBe("approved");
  });
});
