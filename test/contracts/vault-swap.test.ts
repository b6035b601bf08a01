import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SwapIntent } from "../../packages/client/src/intent-types.ts";
import { calldata, emptyConfig, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

describe("ServiceVault swaps", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
    await f.write(f.owner, f.tokens.dai, "mocks/MockERC20", "mint", [f.vault, 10n ** 21n]);
  });
  afterAll(async () => f?.chain.close());

  const intentFor = async (over: Partial<SwapIntent> = {}): Promise<SwapIntent> => ({
    bot: f.bot.address,
    fromToken: f.tokens.usdc,
    toToken: f.tokens.weth,
    maxFromAmount: USD(300),
    minToAmount: 1n,
    deadline: (await f.now()) + 300n,
    ref: f.ref("swap"),
    ...over,
  });
  const routerCall = (i: SwapIntent, minOut = 0n, amountIn = i.maxFromAmount): Hex =>
    calldata("mocks/MockSwapRouter", "swapExactIn", [i.fromToken, i.toToken, amountIn, minOut, f.vault]);
  const quote = (i: SwapIntent) => f.read<bigint>(f.router, "mocks/MockSwapRouter", "quote", [i.fromToken, i.toToken, i.maxFromAmount]);
  const args = async (i: SwapIntent, data = routerCall(i), router: Address = f.router) => [i, await f.signSwap(f.bot, i), router, data] as const;
  const refused = async (i: SwapIntent, data?: Hex, router?: Address) => {
    const a = await args(i, data, router);
    return revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeSwap", a));
  };

  it("swaps inside the vault: tokens stay in the vault, amounts are measured, SwapExecuted is emitted", async () => {
    const i = await intentFor();
    const expected = await quote(i); // 0.1 ETH minus 0.3 %
    expect(expected).toBe((10n ** 17n * 9970n) / 10000n);
    const i2 = { ...i, minToAmount: expected };
    const usdcBefore = await f.balanceOf(f.tokens.usdc, f.vault);
    const wethBefore = await f.balanceOf(f.tokens.weth, f.vault);
    const a = await args(i2);
    const [hash, amountIn, amountOut] = await f.simulate<[Hex, bigint, bigint]>(f.relayer, f.vault, "ServiceVault", "executeSwap", a);
    expect([amountIn, amountOut]).toEqual([USD(300), expected]);
    const receipt = await f.write(f.relayer, f.vault, "ServiceVault", "executeSwap", a);
    expect(await f.balanceOf(f.tokens.usdc, f.vault)).toBe(usdcBefore - USD(300));
    expect(await f.balanceOf(f.tokens.weth, f.vault)).toBe(wethBefore + expected);
    expect(await f.read<bigint>(f.tokens.usdc, "mocks/MockERC20", "allowance", [f.vault, f.router])).toBe(0n);
    const [ev] = f.events(receipt, "ServiceVault", "SwapExecuted");
    expect(ev!.args).toMatchObject({ intentHash: hash, bot: f.bot.address, fromToken: f.tokens.usdc, toToken: f.tokens.weth, amountIn: USD(300), amountOut: expected });
  });

  it("replay: an executed swap cannot run again", async () => {
    const i = await intentFor({ maxFromAmount: USD(10) });
    const a = await args(i);
    await f.write(f.relayer, f.vault, "ServiceVault", "executeSwap", a);
    expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeSwap", a))).name).toBe("IntentAlreadyUsed");
  });

  it("minimum output: the vault refuses less than minToAmount with InsufficientOutput", async () => {
    const i = await intentFor();
    const expected = await quote(i);
    const greedy = { ...i, minToAmount: expected + 1n };
    expect(await refused(greedy, routerCall(greedy, 0n))).toEqual({ name: "InsufficientOutput", args: [expected, expected + 1n] });
    // spending less than the maximum yields less: measured, not trusted
    const partial = { ...i, minToAmount: expected };
    expect((await refused(partial, routerCall(partial, 0n, USD(150)))).name).toBe("InsufficientOutput");
  });

  it("the router's own slippage revert bubbles up", async () => {
    const i = await intentFor();
    const expected = await quote(i);
    expect(await refused(i, routerCall(i, expected + 1n))).toEqual({ name: "SlippageExceeded", args: [expected, expected + 1n] });
  });

  it("no route: a disabled pair reverts NoRoute", async () => {
    const i = await intentFor({ fromToken: f.tokens.dai, maxFromAmount: 10n ** 20n });
    expect(await refused(i)).toEqual({ name: "NoRoute", args: [f.tokens.dai, f.tokens.weth] });
    await f.write(f.owner, f.router, "mocks/MockSwapRouter", "setPairEnabled", [f.tokens.usdc, f.tokens.weth, false]);
    expect((await refused(await intentFor())).name).toBe("NoRoute");
    await f.write(f.owner, f.router, "mocks/MockSwapRouter", "setPairEnabled", [f.tokens.usdc, f.tokens.weth, true]);
  });

  it("router: only registry-approved routers are used", async () => {
    const rogue = await f.deploy("mocks/MockSwapRouter", [f.registry]);
    const i = await intentFor();
    expect(await refused(i, routerCall(i), rogue)).toEqual({ name: "SwapRouterNotApproved", args: [rogue] });
  });

  it("fromToken and toToken must differ", async () => {
    const i = await intentFor({ fromToken: f.tokens.weth, maxFromAmount: 1n });
    expect(await refused(i)).toEqual({ name: "SameToken", args: [f.tokens.weth] });
  });

  describe("rebalance whitelist", () => {
    it("with no vault list, the registry's default rebalance whitelist applies (not its wider default tokens)", async () => {
      expect(await f.read(f.vault, "ServiceVault", "isRebalanceAllowed", [f.tokens.weth])).toBe(true);
      expect(await f.read(f.vault, "ServiceVault", "isRebalanceAllowed", [f.tokens.wbtc])).toBe(false);
      expect(await refused(await intentFor({ toToken: f.tokens.wbtc }))).toEqual({ name: "RebalanceTokenNotAllowed", args: [f.tokens.wbtc] });
      // DAI is a registry default token (protocol calls may approve it) but not a default rebalance token.
      expect(await f.read(f.registry, "ServiceRegistry", "isDefaultToken", [f.tokens.dai])).toBe(true);
      expect(await f.read(f.vault, "ServiceVault", "isRebalanceAllowed", [f.tokens.dai])).toBe(false);
      expect(await refused(await intentFor({ toToken: f.tokens.dai }))).toEqual({ name: "RebalanceTokenNotAllowed", args: [f.tokens.dai] });
      // The registry's owner changes the list for every vault without one of its own.
      await f.write(f.owner, f.registry, "ServiceRegistry", "addDefaultRebalanceToken", [f.tokens.dai]);
      expect(await f.read(f.vault, "ServiceVault", "isRebalanceAllowed", [f.tokens.dai])).toBe(true);
      await f.write(f.owner, f.registry, "ServiceRegistry", "removeDefaultRebalanceToken", [f.tokens.dai]);
      expect(await f.read(f.vault, "ServiceVault", "isRebalanceAllowed", [f.tokens.dai])).toBe(false);
    });

    it("a non-empty vault list replaces the registry defaults entirely", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "addRebalanceTokens", [[f.tokens.wbtc]]);
      expect(await f.read(f.vault, "ServiceVault", "rebalanceTokenCount")).toBe(1n);
      const toWbtc = await intentFor({ toToken: f.tokens.wbtc });
      const a = await args(toWbtc);
      await f.write(f.relayer, f.vault, "ServiceVault", "executeSwap", a);
      expect(await f.balanceOf(f.tokens.wbtc, f.vault)).toBeGreaterThan(0n);
      expect(await refused(await intentFor())).toEqual({ name: "RebalanceTokenNotAllowed", args: [f.tokens.weth] });
      await f.write(f.owner, f.vault, "ServiceVault", "removeRebalanceTokens", [[f.tokens.wbtc]]);
      expect(await f.read(f.vault, "ServiceVault", "rebalanceTokenCount")).toBe(0n);
      expect((await refused(await intentFor({ toToken: f.tokens.wbtc }))).name).toBe("RebalanceTokenNotAllowed");
    });
  });

  it("rebalance cap: usdValue(fromToken, maxFromAmount) above maxRebalanceAmount is refused", async () => {
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ maxRebalanceAmount: USD(1000), maxPerTxAmount: USD(1) })]);
    expect(await refused(await intentFor({ maxFromAmount: USD(1500) }))).toEqual({ name: "ExceedsRebalanceLimit", args: [USD(1500), USD(1000)] });
    // at the cap it runs; the per-tx cap (for money leaving the vault) does not apply to swaps
    const a = await args(await intentFor({ maxFromAmount: USD(1000) }));
    await f.write(f.relayer, f.vault, "ServiceVault", "executeSwap", a);
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]);
  });

  it("balance: swapping more than the vault holds is refused", async () => {
    const held = await f.balanceOf(f.tokens.usdc, f.vault);
    expect(await refused(await intentFor({ maxFromAmount: held + 1n }))).toEqual({ name: "InsufficientBalance", args: [f.tokens.usdc, held, held + 1n] });
  });
});
