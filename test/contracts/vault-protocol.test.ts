import { zeroAddress, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecuteIntent } from "../../packages/client/src/intent-types.ts";
import { calldata, emptyConfig, executeIntent, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

describe("ServiceVault protocol execution", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
  });
  afterAll(async () => f?.chain.close());

  const deadline = async () => (await f.now()) + 300n;
  const run = async (intent: ExecuteIntent, callData: Hex) =>
    f.write(f.relayer, f.vault, "ServiceVault", "executeProtocol", [intent, await f.signExecute(f.bot, intent), callData]);
  const refused = async (intent: ExecuteIntent, callData: Hex) => {
    const sig = await f.signExecute(f.bot, intent);
    return revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeProtocol", [intent, sig, callData]));
  };
  const allowance = (token: Address, spender: Address) => f.read<bigint>(token, "mocks/MockERC20", "allowance", [f.vault, spender]);
  const supplyCall = (amount: bigint) => calldata("mocks/MockLendingPool", "supply", [f.tokens.usdc, amount]);
  const supplyIntent = async (amount: bigint, over: Partial<ExecuteIntent> = {}) =>
    executeIntent(f, f.lending, supplyCall(amount), await deadline(), { tokens: [f.tokens.usdc], amounts: [amount], ...over });

  it("protocol approval: an unapproved protocol is refused with ProtocolNotApproved", async () => {
    expect(await f.read(f.vault, "ServiceVault", "isContractApproved", [f.lending])).toBe(false);
    expect(await refused(await supplyIntent(USD(1)), supplyCall(USD(1)))).toEqual({ name: "ProtocolNotApproved", args: [f.lending] });
  });

  it("protocol approval: a registry-approved protocol is accepted without vault approval", async () => {
    await f.write(f.owner, f.registry, "ServiceRegistry", "approveProtocol", [f.lending]);
    expect(await f.read(f.vault, "ServiceVault", "isContractApproved", [f.lending])).toBe(true);
    expect(await f.read(f.vault, "ServiceVault", "isProtocolApprovedByVault", [f.lending])).toBe(false);
    const intent = await supplyIntent(USD(1));
    await f.simulate(f.relayer, f.vault, "ServiceVault", "executeProtocol", [intent, await f.signExecute(f.bot, intent), supplyCall(USD(1))]);
    await f.write(f.owner, f.registry, "ServiceRegistry", "revokeProtocol", [f.lending]);
  });

  it("lending supply through an owner-approved protocol: atomic approve → call → revoke", async () => {
    await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.lending]);
    expect(await f.read(f.vault, "ServiceVault", "isProtocolApprovedByVault", [f.lending])).toBe(true);
    const intent = await supplyIntent(USD(100));
    const receipt = await run(intent, supplyCall(USD(100)));
    expect(await f.read(f.lending, "mocks/MockLendingPool", "supplied", [f.vault, f.tokens.usdc])).toBe(USD(100));
    expect(await allowance(f.tokens.usdc, f.lending)).toBe(0n);
    const [ev] = f.events(receipt, "ServiceVault", "ProtocolExecuted");
    expect(ev!.args).toMatchObject({ bot: f.bot.address, protocol: f.lending, value: 0n, ref: intent.ref });
  });

  it("replay: an executed protocol intent cannot run again", async () => {
    const intent = await supplyIntent(USD(2));
    await run(intent, supplyCall(USD(2)));
    expect((await refused(intent, supplyCall(USD(2)))).name).toBe("IntentAlreadyUsed");
  });

  it("a revoked vault approval refuses the protocol again", async () => {
    await f.write(f.owner, f.vault, "ServiceVault", "revokeProtocol", [f.lending]);
    expect((await refused(await supplyIntent(USD(1)), supplyCall(USD(1)))).name).toBe("ProtocolNotApproved");
    await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.lending]);
  });

  describe("default-token approve-only rule", () => {
    const spender = "0x00000000000000000000000000000000000a11ce" as Address;
    // An approval outlives the call, so only the owner's ReviewApproval may grant one.
    const reviewed = async (intent: ExecuteIntent, data: Hex) => {
      const botSig = await f.signExecute(f.bot, intent);
      const hash = await f.read<Hex>(f.vault, "ServiceVault", "hashExecuteIntent", [intent]);
      const approvalDeadline = (await f.now()) + 600n;
      const ownerSig = await f.signReview(f.owner, hash, approvalDeadline);
      return [intent, botSig, data, approvalDeadline, ownerSig] as const;
    };

    it("a registry default token accepts an owner-reviewed approve(address,uint256) without vault approval", async () => {
      const data = calldata("mocks/MockERC20", "approve", [spender, USD(5)]);
      const args = await reviewed(executeIntent(f, f.tokens.usdc, data, await deadline()), data);
      await f.write(f.relayer, f.vault, "ServiceVault", "executeReviewedProtocol", [...args]);
      expect(await allowance(f.tokens.usdc, spender)).toBe(USD(5));
    });

    it("the bot's signature alone cannot grant the approval: ReviewRequired, no allowance", async () => {
      const fresh = "0x00000000000000000000000000000000000b0b00" as Address;
      const data = calldata("mocks/MockERC20", "approve", [fresh, USD(5)]);
      expect(await refused(executeIntent(f, f.tokens.usdc, data, await deadline()), data)).toEqual({ name: "ReviewRequired", args: [f.bot.address] });
      expect(await allowance(f.tokens.usdc, fresh)).toBe(0n);
    });

    it("any other call on a default token is refused", async () => {
      const data = calldata("mocks/MockERC20", "transfer", [spender, USD(5)]);
      expect(await refused(executeIntent(f, f.tokens.usdc, data, await deadline()), data)).toEqual({ name: "ProtocolNotApproved", args: [f.tokens.usdc] });
    });

    it("approve on a token that is not a default token is refused, even reviewed", async () => {
      const data = calldata("mocks/MockERC20", "approve", [spender, 1n]);
      const args = await reviewed(executeIntent(f, f.tokens.wbtc, data, await deadline()), data);
      expect(await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeReviewedProtocol", [...args]))).toEqual({
        name: "ProtocolNotApproved",
        args: [f.tokens.wbtc],
      });
    });
  });

  describe("NFT purchase through the marketplace", () => {
    let tokenId: bigint;
    beforeAll(async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.marketplace]);
      tokenId = await f.simulate<bigint>(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      await f.write(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      await f.write(f.stranger, f.nft, "mocks/MockNFT", "approve", [f.marketplace, tokenId]);
      await f.write(f.stranger, f.marketplace, "mocks/MockMarketplace", "list", [f.nft, tokenId, USD(50)]);
    });

    it("a reverting protocol call reverts everything with the protocol's own reason", async () => {
      const data = calldata("mocks/MockMarketplace", "buy", [f.nft, tokenId + 100n]);
      const intent = executeIntent(f, f.marketplace, data, await deadline(), { tokens: [f.tokens.usdc], amounts: [USD(50)] });
      expect(await refused(intent, data)).toEqual({ name: "Error", args: ["not for sale"] });
      const hash = await f.read<Hex>(f.vault, "ServiceVault", "hashExecuteIntent", [intent]);
      expect(await f.read(f.vault, "ServiceVault", "usedIntents", [hash])).toBe(false);
    });

    it("buys the NFT: the vault owns it, the seller is paid, the allowance is back to 0", async () => {
      const data = calldata("mocks/MockMarketplace", "buy", [f.nft, tokenId]);
      const sellerBefore = await f.balanceOf(f.tokens.usdc, f.stranger.address);
      await run(executeIntent(f, f.marketplace, data, await deadline(), { tokens: [f.tokens.usdc], amounts: [USD(50)] }), data);
      expect(await f.read(f.nft, "mocks/MockNFT", "ownerOf", [tokenId])).toBe(f.vault);
      expect(await f.balanceOf(f.tokens.usdc, f.stranger.address)).toBe(sellerBefore + USD(50));
      expect(await allowance(f.tokens.usdc, f.marketplace)).toBe(0n);
    });

    it("an approval smaller than the price makes the call revert (the approval is the only spend right)", async () => {
      const second = await f.simulate<bigint>(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      await f.write(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.stranger.address]);
      await f.write(f.stranger, f.nft, "mocks/MockNFT", "approve", [f.marketplace, second]);
      await f.write(f.stranger, f.marketplace, "mocks/MockMarketplace", "list", [f.nft, second, USD(50)]);
      const data = calldata("mocks/MockMarketplace", "buy", [f.nft, second]);
      const intent = executeIntent(f, f.marketplace, data, await deadline(), { tokens: [f.tokens.usdc], amounts: [USD(49)] });
      expect((await refused(intent, data)).name).toBe("ERC20InsufficientAllowance");
    });
  });

  describe("intent structure", () => {
    it("callData must hash to calldataHash", async () => {
      const intent = await supplyIntent(USD(1));
      expect((await refused(intent, supplyCall(USD(2)))).name).toBe("CalldataHashMismatch");
    });

    it("tokens and amounts must have the same length", async () => {
      const intent = await supplyIntent(USD(1), { amounts: [USD(1), 1n] });
      expect((await refused(intent, supplyCall(USD(1)))).name).toBe("LengthMismatch");
    });

    it("the vault itself and the zero address are not valid protocols", async () => {
      const data = calldata("ServiceVault", "unpause", []);
      expect(await refused(executeIntent(f, f.vault, data, await deadline()), data)).toEqual({ name: "InvalidProtocol", args: [f.vault] });
      expect(await refused(executeIntent(f, zeroAddress, data, await deadline()), data)).toEqual({ name: "InvalidProtocol", args: [zeroAddress] });
    });
  });

  it("per-tx cap: the USD sum of tokens and native value counts", async () => {
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ maxPerTxAmount: USD(100) })]);
    // 60 USDC + 0.02 ETH ($60 at $3000) = $120 > $100
    const intent = await supplyIntent(USD(60), { value: 2n * 10n ** 16n });
    expect(await refused(intent, supplyCall(USD(60)))).toEqual({ name: "ExceedsPerTxLimit", args: [USD(120), USD(100)] });
    const fits = await supplyIntent(USD(60));
    await run(fits, supplyCall(USD(60)));
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]);
  });

  it("balance: approving more than the vault holds is refused with InsufficientBalance", async () => {
    const held = await f.balanceOf(f.tokens.usdc, f.vault);
    const intent = await supplyIntent(held + 1n);
    expect(await refused(intent, supplyCall(held + 1n))).toEqual({ name: "InsufficientBalance", args: [f.tokens.usdc, held, held + 1n] });
  });
});
