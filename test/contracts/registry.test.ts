import { zeroAddress, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { account, PRICE, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

describe("ServiceRegistry and mocks", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
  });
  afterAll(async () => f?.chain.close());

  const usd = (token: Address, amount: bigint) => f.read<bigint>(f.registry, "ServiceRegistry", "usdValue", [token, amount]);

  it("only the owner changes the registry", async () => {
    for (const [fn, args] of [
      ["addRelayer", [f.stranger.address]], ["removeRelayer", [f.relayer.address]], ["approveDefaultToken", [f.tokens.wbtc]],
      ["removeDefaultToken", [f.tokens.usdc]], ["approveProtocol", [f.lending]], ["revokeProtocol", [f.lending]],
      ["addSwapRouter", [f.stranger.address]], ["removeSwapRouter", [f.router]], ["setPriceFeed", [f.tokens.usdc, zeroAddress]],
      ["addDefaultRebalanceToken", [f.tokens.wbtc]], ["removeDefaultRebalanceToken", [f.tokens.usdc]],
      ["revokeDefaultToken", [f.tokens.usdc]], ["transferOwnership", [f.stranger.address]],
    ] as const) {
      const r = await revertOf(() => f.simulate(f.stranger, f.registry, "ServiceRegistry", fn, args));
      expect([fn, r.name]).toEqual([fn, "OwnableUnauthorizedAccount"]);
    }
  });

  it("ownership moves in two steps and is never renounced; revokeDefaultToken is removeDefaultToken by the production name", async () => {
    expect(await f.read(f.registry, "ServiceRegistry", "VERSION")).toBe(1n);
    const next = account(15);
    await f.write(f.owner, f.registry, "ServiceRegistry", "transferOwnership", [next.address]);
    expect(await f.read(f.registry, "ServiceRegistry", "owner")).toBe(f.owner.address);
    expect(await f.read(f.registry, "ServiceRegistry", "pendingOwner")).toBe(next.address);
    expect((await revertOf(() => f.simulate(f.stranger, f.registry, "ServiceRegistry", "acceptOwnership"))).name).toBe("OwnableUnauthorizedAccount");
    await f.write(next, f.registry, "ServiceRegistry", "acceptOwnership");
    expect(await f.read(f.registry, "ServiceRegistry", "owner")).toBe(next.address);
    await f.write(next, f.registry, "ServiceRegistry", "transferOwnership", [f.owner.address]);
    await f.write(f.owner, f.registry, "ServiceRegistry", "acceptOwnership");
    expect(await f.read(f.registry, "ServiceRegistry", "owner")).toBe(f.owner.address);
    expect((await revertOf(() => f.simulate(f.owner, f.registry, "ServiceRegistry", "renounceOwnership"))).name).toBe("OwnershipCannotBeRenounced");
    const x = account(16).address;
    await f.write(f.owner, f.registry, "ServiceRegistry", "approveDefaultToken", [x]);
    const receipt = await f.write(f.owner, f.registry, "ServiceRegistry", "revokeDefaultToken", [x]);
    expect(f.events(receipt, "ServiceRegistry", "DefaultTokenRevoked")).toHaveLength(1);
    expect(await f.read(f.registry, "ServiceRegistry", "isDefaultToken", [x])).toBe(false);
  });

  it("relayers, default tokens, protocols and routers can be added and removed", async () => {
    const x = account(14).address;
    const cases = [
      ["addRelayer", "removeRelayer", "isAuthorized", "RelayerAdded"],
      ["approveDefaultToken", "removeDefaultToken", "isDefaultToken", "DefaultTokenApproved"],
      ["addDefaultRebalanceToken", "removeDefaultRebalanceToken", "isDefaultRebalanceToken", "DefaultRebalanceTokenAdded"],
      ["approveProtocol", "revokeProtocol", "isApprovedProtocol", "ProtocolApproved"],
      ["addSwapRouter", "removeSwapRouter", "isApprovedSwapRouter", "SwapRouterAdded"],
    ] as const;
    for (const [add, remove, view, event] of cases) {
      expect(await f.read(f.registry, "ServiceRegistry", view, [x])).toBe(false);
      const receipt = await f.write(f.owner, f.registry, "ServiceRegistry", add, [x]);
      expect(f.events(receipt, "ServiceRegistry", event)).toHaveLength(1);
      expect(await f.read(f.registry, "ServiceRegistry", view, [x])).toBe(true);
      await f.write(f.owner, f.registry, "ServiceRegistry", remove, [x]);
      expect(await f.read(f.registry, "ServiceRegistry", view, [x])).toBe(false);
    }
    expect(await f.read(f.registry, "ServiceRegistry", "getDefaultTokens")).toEqual([f.tokens.usdc, f.tokens.dai, f.tokens.weth]);
    expect(await f.read(f.registry, "ServiceRegistry", "getDefaultRebalanceTokens")).toEqual([f.tokens.usdc, f.tokens.weth]);
    expect((await revertOf(() => f.simulate(f.owner, f.registry, "ServiceRegistry", "addDefaultRebalanceToken", [zeroAddress]))).name).toBe("ZeroAddress");
    expect((await revertOf(() => f.simulate(f.owner, f.registry, "ServiceRegistry", "addRelayer", [zeroAddress]))).name).toBe("ZeroAddress");
  });

  describe("usdValue", () => {
    it("prices tokens of any decimals with 6-decimal USD", async () => {
      expect(await usd(f.tokens.usdc, USD(1.5))).toBe(USD(1.5));
      expect(await usd(f.tokens.weth, 10n ** 18n)).toBe(USD(3000));
      expect(await usd(f.tokens.wbtc, 10n ** 7n)).toBe(USD(6000)); // 0.1 BTC
      expect(await usd(f.tokens.dai, 10n ** 12n)).toBe(1n); // one micro-dollar
      expect(await usd(zeroAddress, 5n * 10n ** 17n)).toBe(USD(1500)); // native ETH
    });

    it("handles large amounts without overflow and tokens with fewer decimals than USD", async () => {
      expect(await usd(f.tokens.dai, 10n ** 36n)).toBe(10n ** 24n); // a quintillion DAI
      const points = await f.deploy("mocks/MockERC20", ["Points", "PTS", 0]);
      const feed = await f.deploy("mocks/MockPriceFeed", [2, 150n, "PTS / USD"]); // $1.50
      await f.write(f.owner, f.registry, "ServiceRegistry", "setPriceFeed", [points, feed]);
      expect(await usd(points, 2n)).toBe(USD(3));
    });

    it("follows setPrice, refuses a missing feed and a non-positive answer", async () => {
      await f.write(f.owner, f.feeds.weth, "mocks/MockPriceFeed", "setPrice", [PRICE(2500)]);
      expect(await usd(f.tokens.weth, 10n ** 18n)).toBe(USD(2500));
      const [roundId] = await f.read<[bigint]>(f.feeds.weth, "mocks/MockPriceFeed", "latestRoundData");
      expect(roundId).toBe(2n);
      await f.write(f.owner, f.feeds.weth, "mocks/MockPriceFeed", "setPrice", [0n]);
      expect(await revertOf(() => usd(f.tokens.weth, 1n))).toEqual({ name: "InvalidPrice", args: [f.tokens.weth] });
      await f.write(f.owner, f.feeds.weth, "mocks/MockPriceFeed", "setPrice", [PRICE(3000)]);
      const unpriced = account(15).address;
      expect(await revertOf(() => usd(unpriced, 1n))).toEqual({ name: "NoPriceFeed", args: [unpriced] });
      expect(await f.read(f.registry, "ServiceRegistry", "priceFeed", [f.tokens.weth])).toBe(f.feeds.weth);
    });
  });

  describe("mocks", () => {
    it("MockERC20 placed with hardhat_setCode is initialized once; a deployed one cannot be re-initialized", async () => {
      const at = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address;
      await f.chain.provider.request({ method: "hardhat_setCode", params: [at, readArtifact("mocks/MockERC20").deployedBytecode] } as never);
      await f.write(f.owner, at, "mocks/MockERC20", "initialize", ["USD Coin", "USDC", 6]);
      expect([await f.read(at, "mocks/MockERC20", "name"), await f.read(at, "mocks/MockERC20", "symbol"), await f.read(at, "mocks/MockERC20", "decimals")]).toEqual(["USD Coin", "USDC", 6]);
      expect((await revertOf(() => f.simulate(f.stranger, at, "mocks/MockERC20", "initialize", ["X", "X", 1]))).name).toBe("AlreadyInitialized");
      expect((await revertOf(() => f.simulate(f.stranger, f.tokens.usdc, "mocks/MockERC20", "initialize", ["X", "X", 1]))).name).toBe("AlreadyInitialized");
    });

    it("MockSwapRouter quotes from the feeds minus its fee; setFeeBps changes it", async () => {
      expect(await f.read(f.router, "mocks/MockSwapRouter", "feeBps")).toBe(30n);
      expect(await f.read(f.router, "mocks/MockSwapRouter", "quote", [f.tokens.weth, f.tokens.usdc, 10n ** 18n])).toBe(USD(3000) * 9970n / 10000n);
      await f.write(f.owner, f.router, "mocks/MockSwapRouter", "setFeeBps", [0n]);
      expect(await f.read(f.router, "mocks/MockSwapRouter", "quote", [f.tokens.usdc, f.tokens.wbtc, USD(60000)])).toBe(10n ** 8n);
      await f.write(f.owner, f.router, "mocks/MockSwapRouter", "setFeeBps", [30n]);
      expect(await f.read(f.router, "mocks/MockSwapRouter", "isPairEnabled", [f.tokens.weth, f.tokens.usdc])).toBe(true);
      expect(await revertOf(() => f.read(f.router, "mocks/MockSwapRouter", "quote", [f.tokens.dai, f.tokens.weth, 1n]))).toEqual({
        name: "NoRoute", args: [f.tokens.dai, f.tokens.weth],
      });
    });

    it("MockLendingPool refuses to withdraw more than supplied", async () => {
      const r = await revertOf(() => f.simulate(f.stranger, f.lending, "mocks/MockLendingPool", "withdraw", [f.tokens.usdc, 1n]));
      expect(r).toEqual({ name: "Error", args: ["insufficient supplied"] });
    });

    it("MockMarketplace lists only approved tokens of their owner and can cancel", async () => {
      const id = await f.simulate<bigint>(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      expect(id).toBe(1n);
      await f.write(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      expect(await revertOf(() => f.simulate(f.stranger, f.marketplace, "mocks/MockMarketplace", "list", [f.nft, id, 5n]))).toEqual({ name: "Error", args: ["marketplace not approved"] });
      expect(await revertOf(() => f.simulate(f.bot, f.marketplace, "mocks/MockMarketplace", "list", [f.nft, id, 5n]))).toEqual({ name: "Error", args: ["not token owner"] });
      await f.write(f.stranger, f.nft, "mocks/MockNFT", "setApprovalForAll", [f.marketplace, true]);
      await f.write(f.stranger, f.marketplace, "mocks/MockMarketplace", "list", [f.nft, id, 5n]);
      expect(await f.read(f.marketplace, "mocks/MockMarketplace", "listings", [f.nft, id])).toEqual([f.stranger.address, 5n]);
      await f.write(f.stranger, f.marketplace, "mocks/MockMarketplace", "cancel", [f.nft, id]);
      expect(await revertOf(() => f.simulate(f.bot, f.marketplace, "mocks/MockMarketplace", "buy", [f.nft, id]))).toEqual({ name: "Error", args: ["not for sale"] });
    });
  });
});
