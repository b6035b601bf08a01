// relay-client's owner helpers end to end on a devnet (no relayer): deploy at the predicted
// address, bots in human units, deposits with a ref, withdrawals, the operator and its ceilings,
// two-step ownership, pause, destinations, blacklist, protocols, the rebalance list, and
// vaultState(); each checked against the chain as the vault's own ABI reads it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deployVault, NATIVE_ETH, predictVaultAddress, readVaultState, refFromString, VaultOwner, type OwnerWallet } from "../../packages/client/src/index.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const VAULT_ABI = readArtifact("ServiceVault").abi;
const DAY = 86_400;

describe("relay-client's owner helpers on a devnet", () => {
  let devnet: Devnet;
  let clients: Clients;
  let pc: PublicClient;
  let factory: Address;
  let usdc: Address;
  let nft: Address;
  let vault: Address;
  let owner: VaultOwner;
  const key = generatePrivateKey();
  const me = privateKeyToAccount(key);
  const wallet = (k: Hex): OwnerWallet => clients.walletFor(privateKeyToAccount(k)) as OwnerWallet;
  const read = <T>(functionName: string, args: readonly unknown[] = []) => pc.readContract({ address: vault, abi: VAULT_ABI, functionName, args }) as Promise<T>;
  const usdcOf = (who: Address) => pc.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  const fund = (who: Address) => pc.request({ method: "hardhat_setBalance" as never, params: [who, "0x56bc75e2d63100000"] as never });
  const mint = async (to: Address, amount: bigint) => {
    const minter = clients.walletFor(privateKeyToAccount(devnet.manifest.accounts.owner.privateKey as Hex));
    await pc.waitForTransactionReceipt({ hash: await minter.writeContract({ address: usdc, abi: readArtifact("mocks/MockERC20").abi, functionName: "mint", args: [to, amount] }) });
  };

  beforeAll(async () => {
    devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir: tempDir("relay-client-owner-") });
    clients = clientsFor(devnet.manifest.rpcUrl, 84532);
    pc = clients.publicClient as PublicClient;
    factory = devnet.manifest.contracts.factory as Address;
    usdc = devnet.manifest.tokens.USDC!.address as Address;
    nft = devnet.manifest.contracts.nft as Address;
    await fund(me.address);
  });
  afterAll(async () => devnet?.close());

  it("deployVault lands at predictVaultAddress; the caller owns it", async () => {
    const predicted = await predictVaultAddress(pc, factory, me.address);
    expect(predicted).toBe(await predictVaultAddress(pc, factory, me.address, 0));
    vault = await deployVault({ wallet: wallet(key), publicClient: pc, factory });
    expect(vault).toBe(predicted);
    expect(await read("owner")).toBe(me.address);
    expect(await predictVaultAddress(pc, factory, me.address)).toBe(await predictVaultAddress(pc, factory, me.address, 1));
    owner = new VaultOwner({ wallet: wallet(key), publicClient: pc, vault });
  });

  const bot = privateKeyToAccount(generatePrivateKey()).address;

  it("addBot, updateBot and bot() speak human USD; the chain holds 6-decimal amounts", async () => {
    await owner.addBot(bot, { maxPerTx: "50.5", spendingLimits: [{ amount: "200", windowSeconds: DAY, maxCount: 10 }], requireHumanReview: true });
    expect(await read("getBotPolicy", [bot])).toEqual({
      maxPerTxAmount: 50_500_000n,
      maxRebalanceAmount: 0n,
      spendingLimits: [{ amount: 200_000_000n, maxCount: 10n, windowSeconds: 86_400n }],
      aiTriggerThreshold: 0n,
      requireAiVerification: false,
      requireHumanReview: true,
    });
    await owner.updateBot(bot, { aiTriggerThreshold: "25" });
    expect(await owner.bot(bot)).toEqual({
      active: true,
      policy: { maxPerTx: "50.5", maxRebalance: "0", spendingLimits: [{ amount: "200", windowSeconds: DAY, maxCount: 10 }], aiTriggerThreshold: "25", requireAiVerification: false, requireHumanReview: true },
    });
    await expect(owner.addBot(bot, { maxPerTx: "1" })).rejects.toThrow(/BotAlreadyActive/);
    await expect(owner.addBot(privateKeyToAccount(generatePrivateKey()).address, { maxPerTx: "1.0000001" })).rejects.toThrow(/more than 6 decimal places/);
  });

  it("deposit by anyone with a ref (ERC-20 approved first, ETH as value); withdraw by the owner only", async () => {
    const payer = generatePrivateKey();
    await fund(privateKeyToAccount(payer).address);
    await mint(privateKeyToAccount(payer).address, 1_000_000_000n);
    const asPayer = new VaultOwner({ wallet: wallet(payer), publicClient: pc, vault });
    await asPayer.deposit(usdc, "1000", { ref: "march invoice" });
    expect(await usdcOf(vault)).toBe(1_000_000_000n);
    await asPayer.deposit(NATIVE_ETH, "0.5");
    expect(await pc.getBalance({ address: vault })).toBe(5n * 10n ** 17n);
    const deposits = await owner.deposits();
    expect(deposits.map((d) => ({ from: d.from, amount: d.amount, ref: d.ref }))).toEqual([
      { from: privateKeyToAccount(payer).address, amount: 1_000_000_000n, ref: refFromString("march invoice") },
      { from: privateKeyToAccount(payer).address, amount: 5n * 10n ** 17n, ref: `0x${"0".repeat(64)}` },
    ]);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await expect(asPayer.withdraw(usdc, "1", to)).rejects.toThrow(/NotOwner/);
    expect(await usdcOf(to)).toBe(0n);
    await owner.withdraw(usdc, "12.25", to);
    expect(await usdcOf(to)).toBe(12_250_000n);
    await owner.withdraw(NATIVE_ETH, "0.1", to);
    expect(await pc.getBalance({ address: to })).toBe(10n ** 17n);
  });

  it("withdrawNft sends an NFT the vault holds (owner only)", async () => {
    const minter = clients.walletFor(me);
    const nftAbi = readArtifact("mocks/MockNFT").abi;
    const { result: id, request } = await pc.simulateContract({ address: nft, abi: nftAbi, functionName: "mint", args: [vault], account: me });
    await pc.waitForTransactionReceipt({ hash: await minter.writeContract(request) });
    const stranger = generatePrivateKey();
    await fund(privateKeyToAccount(stranger).address);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await expect(new VaultOwner({ wallet: wallet(stranger), publicClient: pc, vault }).withdrawNft(nft, id as bigint, to)).rejects.toThrow(/NotOwner/);
    expect(await pc.readContract({ address: nft, abi: nftAbi, functionName: "ownerOf", args: [id] })).toBe(vault);
    await owner.withdrawNft(nft, id as bigint, to);
    expect(await pc.readContract({ address: nft, abi: nftAbi, functionName: "ownerOf", args: [id] })).toBe(to);
  });

  it("the operator adds within the ceilings the owner set, and no further", async () => {
    const opKey = generatePrivateKey();
    const op = privateKeyToAccount(opKey).address;
    await fund(op);
    await owner.setOperator(op);
    await owner.setOperatorCeilings({ maxOperatorBots: 1, maxPerTx: "20", maxBotDaily: "100" });
    const asOperator = new VaultOwner({ wallet: wallet(opKey), publicClient: pc, vault });
    const opBot = privateKeyToAccount(generatePrivateKey()).address;
    await expect(asOperator.addBot(opBot, { maxPerTx: "21", spendingLimits: [{ amount: "100", windowSeconds: DAY }] })).rejects.toThrow(/ExceedsOperatorCeiling/);
    await expect(asOperator.addBot(opBot, { maxPerTx: "20" })).rejects.toThrow(/ExceedsOperatorCeiling/);
    await asOperator.addBot(opBot, { maxPerTx: "20", spendingLimits: [{ amount: "100", windowSeconds: DAY }] });
    await expect(asOperator.addBot(privateKeyToAccount(generatePrivateKey()).address, { maxPerTx: "1", spendingLimits: [{ amount: "1", windowSeconds: DAY }] })).rejects.toThrow(/OperatorBotLimitReached/);
    await expect(asOperator.updateBot(opBot, { maxPerTx: "1000" })).rejects.toThrow(/NotOwner/);
    const state = await owner.vaultState();
    expect(state.operator).toBe(op);
    expect(state.operatorCeilings).toEqual({ maxPerTx: "20", maxBotDaily: "100", maxOperatorBots: 1, vaultDailyAggregate: "0", minAiTriggerFloor: "0" });
    expect(state.bots.find((b) => b.address === opBot)).toMatchObject({ addedByOperator: op, policy: { maxPerTx: "20" } });
    await owner.removeBot(opBot);
    await owner.setOperator(null);
    expect(await read("operator")).toBe(zeroAddress);
  });

  it("pause, destinations, blacklist, protocols, rebalance list and vault limits show in vaultState()", async () => {
    const dest = privateKeyToAccount(generatePrivateKey()).address;
    const botDest = privateKeyToAccount(generatePrivateKey()).address;
    const bad = privateKeyToAccount(generatePrivateKey()).address;
    const protocol = devnet.manifest.contracts.lending as Address;
    await owner.pause();
    await owner.addDestination(dest);
    await owner.addDestination(botDest, { bot });
    await owner.blacklist(bad);
    await owner.approveProtocol(protocol);
    await owner.addRebalanceTokens([usdc]);
    await owner.setVaultLimits([{ amount: "5000", windowSeconds: DAY }]);
    const state = await owner.vaultState();
    expect(state).toMatchObject({
      vault,
      owner: me.address,
      pendingOwner: null,
      paused: true,
      globalDestinations: [dest],
      blacklistCount: 1,
      rebalanceTokens: [usdc],
      vaultLimits: [{ amount: "5000", windowSeconds: DAY, maxCount: 0 }],
      maxSwapSlippageBps: 100,
    });
    expect(state.bots.map((b) => [b.address, b.destinations])).toEqual([[bot, [botDest]]]);
    expect(await read("isProtocolApprovedByVault", [protocol])).toBe(true);
    expect(await read("isBlacklisted", [bad])).toBe(true);
    // The same read needs no key.
    expect(await readVaultState(pc, vault)).toEqual({ ...state, blockNumber: await pc.getBlockNumber() });
    await owner.unpause();
    await owner.removeDestination(dest);
    await owner.removeDestination(botDest, { bot });
    await owner.unblacklist(bad);
    await owner.revokeProtocol(protocol);
    await owner.removeRebalanceTokens([usdc]);
    await owner.setVaultLimits([]);
    expect(await owner.vaultState()).toMatchObject({ paused: false, globalDestinations: [], blacklistCount: 0, rebalanceTokens: [], vaultLimits: [] });
    expect(await read("isProtocolApprovedByVault", [protocol])).toBe(false);
  });

  it("ownership moves only when the named owner accepts", async () => {
    const nextKey = generatePrivateKey();
    const next = privateKeyToAccount(nextKey).address;
    await fund(next);
    const asNext = new VaultOwner({ wallet: wallet(nextKey), publicClient: pc, vault });
    await expect(asNext.acceptOwnership()).rejects.toThrow(/NotOwner/);
    await owner.transferOwnership(next);
    expect((await owner.vaultState()).pendingOwner).toBe(next);
    expect(await read("owner")).toBe(me.address);
    await expect(asNext.pause()).rejects.toThrow(/NotOwnerOrOperator/);
    await asNext.acceptOwnership();
    expect(await read("owner")).toBe(next);
    await expect(owner.removeBot(bot)).rejects.toThrow(/NotOwnerOrOperator/);
    await asNext.removeBot(bot);
    expect(await read("isBotActive", [bot])).toBe(false);
  });
});
