import { zeroAddress, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, calldata, emptyConfig, executeIntent, limitsOf, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

describe("ServiceVault administration", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
    await f.write(f.owner, f.vault, "ServiceVault", "setOperator", [f.operator.address]);
  });
  afterAll(async () => f?.chain.close());

  const as = (who: { address: Address }) => who as Fixture["owner"];
  const refused = (from: Fixture["owner"], fn: string, args: readonly unknown[] = []) =>
    revertOf(() => f.simulate(from, f.vault, "ServiceVault", fn, args)).then((r) => r.name);

  it("reports version, registry, roles and intent tracking", async () => {
    expect(await f.read(f.vault, "ServiceVault", "version")).toBe("1");
    expect(await f.read(f.vault, "ServiceVault", "registry")).toBe(f.registry);
    expect(await f.read(f.vault, "ServiceVault", "owner")).toBe(f.owner.address);
    expect(await f.read(f.vault, "ServiceVault", "operator")).toBe(f.operator.address);
    expect(await f.read(f.vault, "ServiceVault", "trackUsedIntents")).toBe(true);
    expect(await f.read(f.vault, "ServiceVault", "paused")).toBe(false);
  });

  describe("owner/operator permissions", () => {
    const ownerOnly: [string, readonly unknown[]][] = [
      ["updateBotPolicy", [account(1).address, emptyConfig()]],
      ["updateBotConfig", [account(1).address, limitsOf(emptyConfig())]],
      ["setVaultSpendingLimits", [[]]],
      ["addGlobalDestination", [account(9).address]],
      ["removeGlobalDestination", [account(9).address]],
      ["addBotDestination", [account(1).address, account(9).address]],
      ["removeBotDestination", [account(1).address, account(9).address]],
      ["removeGlobalBlacklist", [account(9).address]],
      ["approveProtocol", [account(9).address]],
      ["revokeProtocol", [account(9).address]],
      ["addRebalanceTokens", [[account(9).address]]],
      ["removeRebalanceTokens", [[account(9).address]]],
      ["setOperator", [account(9).address]],
      ["transferOwnership", [account(9).address]],
      ["unpause", []],
      ["withdraw", [zeroAddress, 0n, account(9).address]],
      ["withdrawERC721", [account(9).address, 1n, account(9).address]],
      ["withdrawERC1155", [account(9).address, 1n, 1n, account(9).address]],
      ["setOperatorCeilings", [{ maxPerTxAmount: 0n, maxBotDailyLimit: 0n, maxOperatorBots: 9n, vaultDailyAggregate: 0n, minAiTriggerFloor: 0n }]],
      ["setErc1271Bots", [false]],
      ["setMaxSwapSlippageBps", [100n]],
    ];

    it("owner-only functions refuse the operator, a bot and a stranger with NotOwner", async () => {
      for (const [fn, args] of ownerOnly) {
        for (const who of [f.operator, f.bot, f.stranger]) expect([fn, await refused(who, fn, args)]).toEqual([fn, "NotOwner"]);
      }
    });

    it("guardian functions refuse a stranger with NotOwnerOrOperator", async () => {
      for (const [fn, args] of [["pause", []], ["removeBot", [f.bot.address]], ["addGlobalBlacklist", [account(9).address]]] as const) {
        expect(await refused(f.stranger, fn, args)).toBe("NotOwnerOrOperator");
        expect(await refused(f.bot, fn, args)).toBe("NotOwnerOrOperator");
      }
    });

    it("the operator may blacklist and remove bots", async () => {
      await f.write(f.operator, f.vault, "ServiceVault", "addGlobalBlacklist", [account(9).address]);
      expect(await f.read(f.vault, "ServiceVault", "isBlacklisted", [account(9).address])).toBe(true);
      await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [f.bot2.address, emptyConfig()]);
      await f.write(f.operator, f.vault, "ServiceVault", "removeBot", [f.bot2.address]);
      expect(await f.read(f.vault, "ServiceVault", "isBotActive", [f.bot2.address])).toBe(false);
    });

    it("transferOwnership then acceptOwnership hands every owner right to the new owner", async () => {
      const next = account(9);
      await f.write(f.owner, f.vault, "ServiceVault", "transferOwnership", [next.address]);
      expect(await f.read(f.vault, "ServiceVault", "owner")).toBe(f.owner.address);
      await f.write(next, f.vault, "ServiceVault", "acceptOwnership");
      expect(await f.read(f.vault, "ServiceVault", "owner")).toBe(next.address);
      expect(await refused(f.owner, "approveProtocol", [f.lending])).toBe("NotOwner");
      await f.write(next, f.vault, "ServiceVault", "transferOwnership", [f.owner.address]);
      await f.write(f.owner, f.vault, "ServiceVault", "acceptOwnership");
      expect(await f.read(f.vault, "ServiceVault", "owner")).toBe(f.owner.address);
    });
  });

  describe("pause", () => {
    it("the operator pauses; paused refuses payments, protocol calls and swaps; only the owner unpauses", async () => {
      await f.write(f.operator, f.vault, "ServiceVault", "pause");
      expect(await f.read(f.vault, "ServiceVault", "paused")).toBe(true);
      const deadline = (await f.now()) + 300n;
      const p = await f.payment();
      expect(await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [p, "0x"]))).toEqual({ name: "VaultPaused", args: [] });
      const data = calldata("mocks/MockLendingPool", "supply", [f.tokens.usdc, 1n]);
      const e = executeIntent(f, f.lending, data, deadline);
      expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeProtocol", [e, "0x", data]))).name).toBe("VaultPaused");
      const s = { bot: f.bot.address, toToken: f.tokens.weth, minToAmount: 1n, fromToken: f.tokens.usdc, maxFromAmount: 1n, deadline, ref: f.ref("s") };
      expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeSwap", [s, "0x", f.router, "0x"]))).name).toBe("VaultPaused");
      expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedPayment", [p, "0x", deadline, "0x"]))).name).toBe("VaultPaused");
      // relayer authorization is checked before pause
      expect((await revertOf(() => f.simulate(f.stranger, f.vault, "ServiceVault", "executePayment", [p, "0x"]))).name).toBe("NotAuthorizedRelayer");
      expect(await refused(f.operator, "unpause")).toBe("NotOwner");
      await f.write(f.owner, f.vault, "ServiceVault", "unpause");
      await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [p, await f.signPayment(f.bot, p)]);
    });
  });

  describe("bots", () => {
    const limits = [
      { amount: USD(1000), maxCount: 10n, windowSeconds: 86400n },
      { amount: USD(100), maxCount: 3n, windowSeconds: 3600n },
    ];
    const config = emptyConfig({ maxPerTxAmount: USD(50), maxRebalanceAmount: USD(500), spendingLimits: limits, aiTriggerThreshold: USD(20), requireAiVerification: true });

    it("stores and returns the full configuration, and lists active bots", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [f.bot2.address, config]);
      expect(await f.read(f.vault, "ServiceVault", "getBotPolicy", [f.bot2.address])).toEqual(config);
      expect(await f.read(f.vault, "ServiceVault", "getBots")).toEqual([f.bot.address, f.bot2.address]);
      const updated = { ...config, spendingLimits: [limits[1]!], requireHumanReview: true };
      const receipt = await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot2.address, updated]);
      expect(f.events(receipt, "ServiceVault", "BotConfigUpdated")).toHaveLength(1);
      expect(await f.read(f.vault, "ServiceVault", "getBotPolicy", [f.bot2.address])).toEqual(updated);
    });

    it("refuses a duplicate, the zero address and more than 5 spending limits", async () => {
      expect(await refused(f.owner, "addBotWithPolicy", [f.bot2.address, config])).toBe("BotAlreadyActive");
      expect(await refused(f.owner, "addBotWithPolicy", [zeroAddress, config])).toBe("ZeroAddress");
      const six = Array.from({ length: 6 }, () => limits[0]!);
      expect(await refused(f.owner, "addBotWithPolicy", [account(10).address, { ...config, spendingLimits: six }])).toBe("TooManySpendingLimits");
      expect(await refused(f.owner, "updateBotPolicy", [account(10).address, config])).toBe("BotNotActive");
    });

    it("removing a bot deactivates it and zeroes its configuration", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "removeBot", [f.bot2.address]);
      expect(await f.read(f.vault, "ServiceVault", "isBotActive", [f.bot2.address])).toBe(false);
      expect(await f.read(f.vault, "ServiceVault", "getBotPolicy", [f.bot2.address])).toEqual(emptyConfig());
      expect(await f.read(f.vault, "ServiceVault", "getBots")).toEqual([f.bot.address]);
      expect(await refused(f.owner, "removeBot", [f.bot2.address])).toBe("BotNotActive");
    });

    it("vault-wide spending limits: at most 5", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "setVaultSpendingLimits", [limits]);
      expect(await f.read(f.vault, "ServiceVault", "getVaultSpendingLimits")).toEqual(limits);
      expect(await refused(f.owner, "setVaultSpendingLimits", [Array.from({ length: 6 }, () => limits[0]!)])).toBe("TooManySpendingLimits");
    });
  });

  it("destination and rebalance views count what was added", async () => {
    const a = account(11).address;
    await f.write(f.owner, f.vault, "ServiceVault", "addGlobalDestination", [a]);
    await f.write(f.owner, f.vault, "ServiceVault", "addBotDestination", [f.bot.address, a]);
    expect(await f.read(f.vault, "ServiceVault", "globalDestinationCount")).toBe(1n);
    expect(await f.read(f.vault, "ServiceVault", "botDestinationCount", [f.bot.address])).toBe(1n);
    expect(await f.read(f.vault, "ServiceVault", "isGlobalDestination", [a])).toBe(true);
    expect(await f.read(f.vault, "ServiceVault", "isBotDestination", [f.bot.address, a])).toBe(true);
    await f.write(f.owner, f.vault, "ServiceVault", "addRebalanceTokens", [[f.tokens.wbtc, f.tokens.dai]]);
    expect(await f.read(f.vault, "ServiceVault", "getRebalanceTokens")).toEqual([f.tokens.wbtc, f.tokens.dai]);
    expect(await f.read(f.vault, "ServiceVault", "isRebalanceToken", [f.tokens.dai])).toBe(true);
    expect(await f.read(f.vault, "ServiceVault", "isRebalanceToken", [f.tokens.usdc])).toBe(false);
  });

  it("isContractApproved: vault approval, registry approval or registry default token", async () => {
    const target = account(12).address;
    expect(await f.read(f.vault, "ServiceVault", "isContractApproved", [target])).toBe(false);
    expect(await f.read(f.vault, "ServiceVault", "isContractApproved", [f.tokens.usdc])).toBe(true);
    await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [target]);
    expect(await f.read(f.vault, "ServiceVault", "isContractApproved", [target])).toBe(true);
  });

  describe("funds", () => {
    it("the owner deposits and withdraws tokens and native ETH", async () => {
      await f.write(f.owner, f.tokens.dai, "mocks/MockERC20", "mint", [f.owner.address, 10n ** 18n]);
      await f.write(f.owner, f.tokens.dai, "mocks/MockERC20", "approve", [f.vault, 10n ** 18n]);
      await f.write(f.owner, f.vault, "ServiceVault", "deposit", [f.tokens.dai, 10n ** 18n, f.ref("owner's deposit")]);
      expect(await f.balanceOf(f.tokens.dai, f.vault)).toBe(10n ** 18n);
      const to = account(13).address;
      await f.write(f.owner, f.vault, "ServiceVault", "withdraw", [f.tokens.dai, 4n * 10n ** 17n, to]);
      expect(await f.balanceOf(f.tokens.dai, to)).toBe(4n * 10n ** 17n);
      const before = await f.clients.publicClient.getBalance({ address: to });
      await f.write(f.owner, f.vault, "ServiceVault", "withdraw", [zeroAddress, 10n ** 18n, to]);
      expect(await f.clients.publicClient.getBalance({ address: to })).toBe(before + 10n ** 18n);
    });

    it("receives NFTs by safe transfer and reports receiver interfaces", async () => {
      const id = await f.simulate<bigint>(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      await f.write(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      await f.write(as(f.stranger), f.nft, "mocks/MockNFT", "safeTransferFrom", [f.stranger.address, f.vault, id]);
      expect(await f.read(f.nft, "mocks/MockNFT", "ownerOf", [id])).toBe(f.vault);
      for (const iface of ["0x150b7a02", "0x4e2312e0", "0x01ffc9a7"] as Hex[]) {
        expect(await f.read(f.vault, "ServiceVault", "supportsInterface", [iface])).toBe(true);
      }
      expect(await f.read(f.vault, "ServiceVault", "supportsInterface", ["0xdeadbeef"])).toBe(false);
    });
  });
});
