// Approval grants on-chain: what the vault refuses a bot's signature alone (ReviewRequired), and that
// the owner's ReviewApproval still grants it. Two rules: the selectors of calls that grant a right over
// the vault's assets (one constant table), and the general one behind them: a protocol holding a
// standing allowance over a token the vault tracks (declared, or a registry default token) can pass
// it on or pull it for anyone, so any bot-signed call to it is the owner's decision.
import { maxUint160, maxUint256, toFunctionSelector, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecuteIntent } from "../../packages/client/src/intent-types.ts";
import { account, calldata, executeIntent, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

const MAX_UINT48 = 2n ** 48n - 1n;

describe("ServiceVault approval grants", () => {
  let f: Fixture;
  /** A Permit2-style protocol, approved by the vault's owner. */
  let p: Address;
  const attacker = account(9);

  beforeAll(async () => {
    f = await setupFixture();
    p = await f.deploy("mocks/MockAllowanceTransfer");
    await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [p]);
  });
  afterAll(async () => f?.chain.close());

  const deadline = async () => (await f.now()) + 300n;
  const signed = async (protocol: Address, data: Hex, over: Partial<ExecuteIntent> = {}) => {
    const intent = executeIntent(f, protocol, data, await deadline(), over);
    return [intent, await f.signExecute(f.bot, intent), data] as const;
  };
  /** The bot's signature alone: the decoded revert. */
  const refused = async (protocol: Address, data: Hex, over: Partial<ExecuteIntent> = {}) => {
    const args = await signed(protocol, data, over);
    return revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executeProtocol", [...args]));
  };
  const runBot = async (protocol: Address, data: Hex, over: Partial<ExecuteIntent> = {}) =>
    f.write(f.relayer, f.vault, "ServiceVault", "executeProtocol", [...(await signed(protocol, data, over))]);
  /** With the owner's ReviewApproval. */
  const runReviewed = async (protocol: Address, data: Hex, over: Partial<ExecuteIntent> = {}) => {
    const [intent, botSig] = await signed(protocol, data, over);
    const hash = await f.read<Hex>(f.vault, "ServiceVault", "hashExecuteIntent", [intent]);
    const approvalDeadline = (await f.now()) + 600n;
    const ownerSig = await f.signReview(f.owner, hash, approvalDeadline);
    return f.write(f.relayer, f.vault, "ServiceVault", "executeReviewedProtocol", [intent, botSig, data, approvalDeadline, ownerSig]);
  };
  const approveVia = (token: Address, spender: Address, amount: bigint = maxUint160) => calldata("mocks/MockAllowanceTransfer", "approve", [token, spender, amount, MAX_UINT48]);
  const multicall = (items: Hex[]) => calldata("mocks/MockAllowanceTransfer", "multicall", [items]);
  const subAllowance = async (spender: Address) =>
    (await f.read<readonly [bigint, bigint, bigint]>(p, "mocks/MockAllowanceTransfer", "allowance", [f.vault, f.tokens.usdc, spender]))[0];
  const allowance = (token: Address, spender: Address) => f.read<bigint>(token, "mocks/MockERC20", "allowance", [f.vault, spender]);

  describe("the selector table", () => {
    const grants = [
      "approve(address,uint256)",
      "setApprovalForAll(address,bool)",
      "increaseAllowance(address,uint256)",
      "approve(address,address,uint160,uint48)",
      "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)",
      "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)",
      "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
      "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)",
    ];
    for (const signature of grants) {
      it(`${signature} on an approved protocol: ReviewRequired without the owner's approval`, async () => {
        const data = `${toFunctionSelector(signature)}${"00".repeat(64)}` as Hex;
        expect(await refused(p, data)).toEqual({ name: "ReviewRequired", args: [f.bot.address] });
      });
    }

    it("P.approve(USDC, attacker, max, max) with the bot's signature alone: refused, and its sub-allowance stays 0", async () => {
      expect((await refused(p, approveVia(f.tokens.usdc, attacker.address))).name).toBe("ReviewRequired");
      expect(await subAllowance(attacker.address)).toBe(0n);
    });

    it("a call outside the table, to a protocol holding no allowance, runs on the bot's signature (P.multicall([]))", async () => {
      await runBot(p, multicall([]));
    });
  });

  describe("the standing-allowance rule", () => {
    beforeAll(async () => {
      // The owner lets P pull the vault's USDC (a registry default token), through review.
      await runReviewed(f.tokens.usdc, calldata("mocks/MockERC20", "approve", [p, maxUint256]));
      expect(await allowance(f.tokens.usdc, p)).toBe(maxUint256);
    });

    it("P.multicall([approve(USDC, attacker, max, max)]) with tokens []: ReviewRequired, no sub-allowance, the attacker's pull reverts, the vault keeps its USDC", async () => {
      expect(await refused(p, multicall([approveVia(f.tokens.usdc, attacker.address)]))).toEqual({ name: "ReviewRequired", args: [f.bot.address] });
      expect(await subAllowance(attacker.address)).toBe(0n);
      const before = await f.balanceOf(f.tokens.usdc, f.vault);
      expect((await revertOf(() => f.simulate(attacker, p, "mocks/MockAllowanceTransfer", "transferFrom", [f.vault, attacker.address, before, f.tokens.usdc]))).name).toBe("AllowanceExpired");
      expect(await f.balanceOf(f.tokens.usdc, f.vault)).toBe(before);
    });

    it("any bot-signed call to P is refused, even one that grants nothing (P.multicall([]))", async () => {
      expect((await refused(p, multicall([]))).name).toBe("ReviewRequired");
    });

    it("the owner's ReviewApproval still grants it: the sub-allowance is set, and the spender pulls exactly it through P", async () => {
      const spender = account(8);
      await runReviewed(p, multicall([approveVia(f.tokens.usdc, spender.address, USD(25))]));
      expect(await subAllowance(spender.address)).toBe(USD(25));
      const before = await f.balanceOf(f.tokens.usdc, f.vault);
      await f.write(spender, p, "mocks/MockAllowanceTransfer", "transferFrom", [f.vault, spender.address, USD(25), f.tokens.usdc]);
      expect(await f.balanceOf(f.tokens.usdc, spender.address)).toBe(USD(25));
      expect(await f.balanceOf(f.tokens.usdc, f.vault)).toBe(before - USD(25));
    });

    it("a standing allowance over a declared token that is no default token counts too (WBTC declared: refused)", async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [f.tokens.wbtc]);
      await f.write(f.owner, f.tokens.wbtc, "mocks/MockERC20", "mint", [f.vault, 10n ** 8n]);
      const lending = f.lending;
      await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [lending]);
      await runReviewed(f.tokens.wbtc, calldata("mocks/MockERC20", "approve", [lending, 1n]));
      const supply = calldata("mocks/MockLendingPool", "supply", [f.tokens.wbtc, 1n]);
      expect((await refused(lending, supply, { tokens: [f.tokens.wbtc], amounts: [1n] })).name).toBe("ReviewRequired");
      // The owner takes the allowance back: the pool is an ordinary protocol again.
      await runReviewed(f.tokens.wbtc, calldata("mocks/MockERC20", "approve", [lending, 0n]));
      await runBot(lending, supply, { tokens: [f.tokens.wbtc], amounts: [1n] });
      expect(await f.read(lending, "mocks/MockLendingPool", "supplied", [f.vault, f.tokens.wbtc])).toBe(1n);
    });

    it("once the owner revokes P's allowance, a bot-signed call that grants nothing runs again", async () => {
      await runReviewed(f.tokens.usdc, calldata("mocks/MockERC20", "approve", [p, 0n]));
      await runBot(p, multicall([]));
    });
  });

  it("the bound: a token the owner approved as a protocol itself, with a self-multicall, can be made to approve over that token only", async () => {
    const token = await f.deploy("mocks/MockMulticallToken", ["Multi", "MULTI", 18]);
    await f.write(f.owner, token, "mocks/MockERC20", "mint", [f.vault, 10n ** 18n]);
    await f.write(f.owner, f.vault, "ServiceVault", "approveProtocol", [token]);
    await runBot(token, calldata("mocks/MockMulticallToken", "multicall", [[calldata("mocks/MockERC20", "approve", [attacker.address, maxUint256])]]));
    expect(await allowance(token, attacker.address)).toBe(maxUint256);
    expect(await allowance(f.tokens.usdc, attacker.address)).toBe(0n);
  });
});
