// The owner functions the production vault's interface added (two-step ownership, the operator's
// ceilings, NFT withdrawals, deposits by anyone, the ERC-1271 switch, the slippage setting) give
// nobody anything the owner did not allow. Attack: with a relayer key, the operator, a bot or a
// stranger, send each new owner function straight to the vault (the transaction forced past
// simulation, with its own gas): each lands reverted, and the chain shows nothing moved or changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, zeroAddress, type Address, type Hex } from "viem";
import type { LocalAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { account, emptyConfig, limitsOf, setupFixture, USD, type Fixture } from "../contracts/fixture.ts";

const VAULT_ABI = readArtifact("ServiceVault").abi;
const DAY = 86_400n;

/**
 * Sends `data` to `to` from `from` with a fixed gas limit, past any simulation, so that it lands in
 * a block even when it reverts; its receipt's status. (The in-process node answers the sending of a
 * transaction that reverted with an error carrying its hash: the receipt is read from that.)
 */
async function forcedTx(f: Fixture, from: LocalAccount, to: Address, data: Hex, value?: bigint): Promise<"success" | "reverted"> {
  let hash: Hex | undefined;
  try {
    hash = await f.clients.walletFor(from).sendTransaction({ to, data, value, gas: 1_000_000n, account: from, chain: f.clients.chain });
  } catch (error) {
    for (let e: unknown = error; e !== undefined && e !== null && hash === undefined; e = (e as { cause?: unknown }).cause) {
      const sent = (e as { transactionHash?: Hex }).transactionHash;
      if (typeof sent === "string") hash = sent;
    }
    if (hash === undefined) throw error;
  }
  return (await f.clients.publicClient.waitForTransactionReceipt({ hash })).status;
}

describe("the owner's new functions, called by anyone else", () => {
  let f: Fixture;
  let erc1155: Address;
  let nftId: bigint;
  const ceilings = { maxPerTxAmount: USD(50), maxBotDailyLimit: USD(100), maxOperatorBots: 1n, vaultDailyAggregate: USD(100), minAiTriggerFloor: 0n };

  beforeAll(async () => {
    f = await setupFixture();
    await f.write(f.owner, f.vault, "ServiceVault", "setOperator", [f.operator.address]);
    await f.write(f.owner, f.vault, "ServiceVault", "setOperatorCeilings", [ceilings]);
    // An NFT and ERC-1155 units in the vault.
    nftId = await f.simulate<bigint>(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.vault]);
    await f.write(f.stranger, f.nft, "mocks/MockNFT", "mint", [f.vault]);
    erc1155 = await f.deploy("mocks/MockERC1155");
    await f.write(f.stranger, erc1155, "mocks/MockERC1155", "mint", [f.vault, 7n, 10n]);
  });
  afterAll(async () => f?.chain.close());

  /** Sends `fn(args)` from `from` to the vault without simulating first; whether it succeeded. */
  const forced = (from: LocalAccount, fn: string, args: readonly unknown[]) => forcedTx(f, from, f.vault, encodeFunctionData({ abi: VAULT_ABI, functionName: fn, args }));
  const nftOwner = () => f.read<Address>(f.nft, "mocks/MockNFT", "ownerOf", [nftId]);
  const units1155 = (who: Address) => f.read<bigint>(erc1155, "mocks/MockERC1155", "balanceOf", [who, 7n]);
  const state = async () => ({
    owner: await f.read(f.vault, "ServiceVault", "owner"),
    pendingOwner: await f.read(f.vault, "ServiceVault", "pendingOwner"),
    operator: await f.read(f.vault, "ServiceVault", "operator"),
    ceilings: await f.read(f.vault, "ServiceVault", "operatorCeilings"),
    slippage: await f.read(f.vault, "ServiceVault", "maxSwapSlippageBps"),
    erc1271: await f.read(f.vault, "ServiceVault", "erc1271BotsEnabled"),
    bots: await f.read(f.vault, "ServiceVault", "getBots"),
    botPolicy: await f.read(f.vault, "ServiceVault", "getBotPolicy", [f.bot.address]),
    nft: await nftOwner(),
    units: await units1155(f.vault),
    usdc: await f.balanceOf(f.tokens.usdc, f.vault),
    eth: await f.clients.publicClient.getBalance({ address: f.vault }),
  });

  it("a relayer key, the operator, a bot and a stranger: every new owner function lands reverted and nothing changes", async () => {
    const thief = account(12).address;
    const calls: [string, readonly unknown[]][] = [
      ["transferOwnership", [thief]],
      ["acceptOwnership", []],
      ["setOperatorCeilings", [{ ...ceilings, maxOperatorBots: 100n, maxPerTxAmount: 0n, maxBotDailyLimit: 0n, vaultDailyAggregate: 0n }]],
      ["setOperator", [thief]],
      ["withdrawERC721", [f.nft, nftId, thief]],
      ["withdrawERC1155", [erc1155, 7n, 10n, thief]],
      ["withdraw", [f.tokens.usdc, 1n, thief]],
      ["withdraw", [zeroAddress, 1n, thief]],
      ["setErc1271Bots", [true]],
      ["setMaxSwapSlippageBps", [10_000n]],
      ["updateBotConfig", [f.bot.address, limitsOf(emptyConfig({ maxPerTxAmount: USD(1_000_000) }))]],
      ["updateBotPolicy", [f.bot.address, emptyConfig({ maxPerTxAmount: USD(1_000_000) })]],
      ["renounceOwnership", []],
    ];
    const before = await state();
    for (const who of [f.relayer, f.operator, f.bot, f.stranger]) {
      for (const [fn, args] of calls) expect([who.address, fn, await forced(who, fn, args)]).toEqual([who.address, fn, "reverted"]);
    }
    expect(await state()).toEqual(before);
    expect(await f.read(f.nft, "mocks/MockNFT", "ownerOf", [nftId])).toBe(f.vault);
    expect(await units1155(thief)).toBe(0n);
  });

  it("a relayer key, a bot or a stranger adds no bot, in either shape", async () => {
    const newBot = account(13).address;
    for (const who of [f.relayer, f.bot, f.stranger]) {
      expect(await forced(who, "addBot", [newBot, limitsOf(emptyConfig({ maxPerTxAmount: USD(10), spendingLimits: [{ amount: USD(10), maxCount: 0n, windowSeconds: DAY }] }))])).toBe("reverted");
      expect(await forced(who, "addBotWithPolicy", [newBot, emptyConfig({ maxPerTxAmount: USD(10), spendingLimits: [{ amount: USD(10), maxCount: 0n, windowSeconds: DAY }] })])).toBe("reverted");
    }
    expect(await f.read(f.vault, "ServiceVault", "isBotActive", [newBot])).toBe(false);
  });

  it("the operator above its ceilings adds nothing; within them, exactly what they allow", async () => {
    const newBot = account(14).address;
    const daily = (amount: bigint, windowSeconds = DAY) => [{ amount, maxCount: 0n, windowSeconds }];
    const over = [
      emptyConfig({ maxPerTxAmount: USD(51), spendingLimits: daily(USD(100)) }), // per tx above
      emptyConfig({ maxPerTxAmount: 0n, spendingLimits: daily(USD(100)) }), // no per-tx cap
      emptyConfig({ maxPerTxAmount: USD(50), spendingLimits: daily(USD(101)) }), // per day above
      emptyConfig({ maxPerTxAmount: USD(50), spendingLimits: daily(USD(5), 3_600n) }), // 5 an hour is 120 a day
      emptyConfig({ maxPerTxAmount: USD(50), spendingLimits: [] }), // no daily bound at all
      emptyConfig({ maxPerTxAmount: USD(50), spendingLimits: daily(0n) }), // a count-only limit bounds no spend
    ];
    for (const config of over) {
      expect(await forced(f.operator, "addBotWithPolicy", [newBot, config])).toBe("reverted");
      expect(await forced(f.operator, "addBot", [newBot, limitsOf(config)])).toBe("reverted");
    }
    expect(await f.read(f.vault, "ServiceVault", "isBotActive", [newBot])).toBe(false);
    // The owner cannot be made a bot either.
    expect(await forced(f.operator, "addBot", [f.owner.address, limitsOf(emptyConfig({ maxPerTxAmount: USD(50), spendingLimits: daily(USD(100)) }))])).toBe("reverted");

    const within = emptyConfig({ maxPerTxAmount: USD(50), spendingLimits: daily(USD(100)), requireHumanReview: true });
    expect(await forced(f.operator, "addBotWithPolicy", [newBot, within])).toBe("success");
    expect(await f.read(f.vault, "ServiceVault", "getBotPolicy", [newBot])).toEqual(within);
    expect(await f.read(f.vault, "ServiceVault", "botAddedByOperator", [newBot])).toBe(f.operator.address);
    // One bot was the limit (and the aggregate of 100 is spent).
    expect(await forced(f.operator, "addBot", [account(15).address, limitsOf(emptyConfig({ maxPerTxAmount: USD(1), spendingLimits: daily(USD(1)) }))])).toBe("reverted");
    // It cannot loosen the bot it added.
    expect(await forced(f.operator, "updateBotPolicy", [newBot, emptyConfig()])).toBe("reverted");
    expect(await forced(f.operator, "updateBotConfig", [newBot, limitsOf(emptyConfig())])).toBe("reverted");
    expect(await f.read(f.vault, "ServiceVault", "getBotPolicy", [newBot])).toEqual(within);
    // Removing it frees the place; the owner's own bots never count against the operator.
    expect(await forced(f.operator, "removeBot", [newBot])).toBe("success");
    expect(await f.read(f.vault, "ServiceVault", "operatorBotCount")).toBe(0n);
    expect(await f.read(f.vault, "ServiceVault", "botAddedByOperator", [newBot])).toBe(zeroAddress);
  });

  it("with no ceilings set the operator adds no bot at all", async () => {
    const vault = await f.newVault(f.owner);
    await f.write(f.owner, vault, "ServiceVault", "setOperator", [f.operator.address]);
    const data = encodeFunctionData({ abi: VAULT_ABI, functionName: "addBotWithPolicy", args: [account(16).address, emptyConfig({ maxPerTxAmount: USD(1), spendingLimits: [{ amount: USD(1), maxCount: 0n, windowSeconds: DAY }] })] });
    expect(await forcedTx(f, f.operator, vault, data)).toBe("reverted");
    expect(await f.read(vault, "ServiceVault", "getBots")).toEqual([]);
  });

  it("two-step ownership: the named owner has no right until it accepts; no one else can accept", async () => {
    const next = account(17);
    await f.write(f.owner, f.vault, "ServiceVault", "transferOwnership", [next.address]);
    expect(await f.read(f.vault, "ServiceVault", "pendingOwner")).toBe(next.address);
    // Pending: still the old owner's vault.
    expect(await forced(next, "withdrawERC721", [f.nft, nftId, next.address])).toBe("reverted");
    for (const who of [f.relayer, f.operator, f.stranger]) expect(await forced(who, "acceptOwnership", [])).toBe("reverted");
    expect(await nftOwner()).toBe(f.vault);
    expect(await f.read(f.vault, "ServiceVault", "owner")).toBe(f.owner.address);
    // The operator cannot be named.
    expect(await forced(f.owner, "transferOwnership", [f.operator.address])).toBe("reverted");
    // Accepted: every owner right moves, none stays with the old owner.
    expect(await forced(next, "acceptOwnership", [])).toBe("success");
    expect(await f.read(f.vault, "ServiceVault", "owner")).toBe(next.address);
    expect(await f.read(f.vault, "ServiceVault", "pendingOwner")).toBe(zeroAddress);
    expect(await forced(f.owner, "withdrawERC721", [f.nft, nftId, f.owner.address])).toBe("reverted");
    expect(await nftOwner()).toBe(f.vault);
    // And back, the same way; a cancelled transfer cannot be accepted.
    expect(await forced(next, "transferOwnership", [f.owner.address])).toBe("success");
    expect(await forced(next, "transferOwnership", [zeroAddress])).toBe("success");
    expect(await forced(f.owner, "acceptOwnership", [])).toBe("reverted");
    expect(await forced(next, "transferOwnership", [f.owner.address])).toBe("success");
    expect(await forced(f.owner, "acceptOwnership", [])).toBe("success");
    expect(await f.read(f.vault, "ServiceVault", "owner")).toBe(f.owner.address);
  });

  it("the owner withdraws an ERC-721 and ERC-1155 units; the events name them", async () => {
    const to = account(18).address;
    const receipt = await f.write(f.owner, f.vault, "ServiceVault", "withdrawERC721", [f.nft, nftId, to]);
    expect(await nftOwner()).toBe(to);
    expect(f.events(receipt, "ServiceVault", "ERC721Withdrawn")[0]?.args).toEqual({ nft: f.nft, tokenId: nftId, to });
    await f.write(f.owner, f.vault, "ServiceVault", "withdrawERC1155", [erc1155, 7n, 4n, to]);
    expect(await units1155(to)).toBe(4n);
    expect(await units1155(f.vault)).toBe(6n);
  });

  it("anyone deposits with a ref; ETH must match the value sent", async () => {
    const ref = f.ref("deposit") as Hex;
    await f.write(f.stranger, f.tokens.usdc, "mocks/MockERC20", "mint", [f.stranger.address, USD(5)]);
    await f.write(f.stranger, f.tokens.usdc, "mocks/MockERC20", "approve", [f.vault, USD(5)]);
    const before = await f.balanceOf(f.tokens.usdc, f.vault);
    const receipt = await f.write(f.stranger, f.vault, "ServiceVault", "deposit", [f.tokens.usdc, USD(5), ref]);
    expect(await f.balanceOf(f.tokens.usdc, f.vault)).toBe(before + USD(5));
    expect(f.events(receipt, "ServiceVault", "Deposited")[0]?.args).toEqual({ from: f.stranger.address, token: f.tokens.usdc, amount: USD(5), ref });
    const eth = await f.clients.publicClient.getBalance({ address: f.vault });
    await f.write(f.stranger, f.vault, "ServiceVault", "deposit", ["0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE", 10n ** 15n, ref], 10n ** 15n);
    expect(await f.clients.publicClient.getBalance({ address: f.vault })).toBe(eth + 10n ** 15n);
    const data = encodeFunctionData({ abi: VAULT_ABI, functionName: "deposit", args: [zeroAddress, 10n ** 15n, ref] });
    expect(await forcedTx(f, f.stranger, f.vault, data, 1n)).toBe("reverted");
    expect(await f.clients.publicClient.getBalance({ address: f.vault })).toBe(eth + 10n ** 15n);
  });
});

describe("the CREATE2 factory", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
  });
  afterAll(async () => f?.chain.close());

  it("deploys an owner's n-th vault at predictVaultAddress(owner, n); another caller cannot take that address", async () => {
    const owner = account(19);
    const predicted = await f.read<Address>(f.factory, "ServiceVaultFactory", "predictVaultAddress", [owner.address, 0n]);
    // A stranger deploying lands at its own address, not the owner's.
    const strangers = await f.newVault(f.stranger);
    expect(strangers).not.toBe(predicted);
    expect(await f.clients.publicClient.getCode({ address: predicted })).toBeUndefined();
    const vault = await f.newVault(owner);
    expect(vault).toBe(predicted);
    expect(await f.read(vault, "ServiceVault", "owner")).toBe(owner.address);
    expect(await f.read(f.factory, "ServiceVaultFactory", "ownerVaultCount", [owner.address])).toBe(1n);
    expect(await f.read(f.factory, "ServiceVaultFactory", "ownerVaults", [owner.address, 0n])).toBe(vault);
    const second = await f.newVault(owner);
    expect(second).toBe(await f.read<Address>(f.factory, "ServiceVaultFactory", "predictVaultAddress", [owner.address, 1n]));
    expect(await f.read(f.factory, "ServiceVaultFactory", "vaultCount")).toBe(4n); // the fixture's, the stranger's, these two
    expect(await f.read(f.factory, "ServiceVaultFactory", "allVaults", [3n])).toBe(second);
    // A clone is initialized once, by the factory.
    const data = encodeFunctionData({ abi: VAULT_ABI, functionName: "initialize", args: [f.stranger.address] });
    expect(await forcedTx(f, f.stranger, vault, data)).toBe("reverted");
    expect(await f.read(vault, "ServiceVault", "owner")).toBe(owner.address);
  });
});
