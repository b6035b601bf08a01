// Actions of `relay owner …` (vault configuration sent on-chain with the owner's key) and `relay fund`
// (minting devnet mock tokens). Each transaction is simulated first, so that a refusal is one line
// naming the contract's error, and then sent and awaited to its receipt.
import { BaseError, erc20Abi, zeroHash, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../chain/artifacts.ts";
import { decodeRevert, revertDataOf } from "../../chain/revert-decode.ts";
import type { Clients } from "../../chain/clients.ts";
import { createSender } from "../../chain/sender.ts";
import type { BotConfigParams } from "../../chain/vault-config.ts";
import { refFromString } from "../../../packages/client/src/sign.ts";
import { formatUnits } from "../../../packages/client/src/units.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { printResult } from "../output.ts";
import { parseAmount, requireOwnerKey, requireVault, resolveToken, tokenLabel, type ResolvedToken, type Settings } from "../settings.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import { connectChain, resolveAddress, withDecimals } from "./chain.ts";
import { applyLimitFlags, describeConfig, parseDuration, parseUsd, UNLIMITED, type BotLimitFlags } from "./limits.ts";

export type Options = SettingsOptions & { ownerKey?: string };

export interface Context {
  settings: Settings;
  clients: Clients;
  vault: Address;
  key: Hex;
}

export async function context(options: Options, io: CliIO): Promise<Context> {
  const settings = await settingsFor(options, io);
  const vault = requireVault(settings);
  const key = requireOwnerKey(settings);
  return { settings, vault, key, clients: await connectChain(settings) };
}

/**
 * Simulate, send and await one transaction from `key`; returns its hash. A refusal is decoded by the
 * relayer's own decoder; `token`, when the transaction moves one, shows ERC-20 amounts in its units.
 */
export async function transact(clients: Clients, key: Hex, to: Address, contract: string, functionName: string, args: readonly unknown[], token?: ResolvedToken): Promise<Hex> {
  const { abi } = readArtifact(contract);
  const account = privateKeyToAccount(key);
  try {
    await clients.publicClient.simulateContract({ address: to, abi, functionName, args, account });
  } catch (error) {
    throw new CliError(`${functionName} would revert: ${revertReason(error, token)}`);
  }
  const receipt = await createSender(clients, key).call(to, contract, functionName, args);
  return receipt.transactionHash;
}

function revertReason(error: unknown, token: ResolvedToken | undefined): string {
  const data = revertDataOf(error);
  if (data !== undefined) {
    const units = token?.decimals === undefined ? undefined : { symbol: tokenLabel(token), decimals: token.decimals };
    return decodeRevert(data, { token: units });
  }
  if (error instanceof BaseError) return error.shortMessage;
  return error instanceof Error ? error.message.split("\n")[0]! : String(error);
}

/** Run one vault function as the owner and print what was done. */
export async function vaultCall(options: Options, io: CliIO, functionName: string, args: readonly unknown[], done: string, action = functionName): Promise<void> {
  const { clients, vault, key } = await context(options, io);
  const txHash = await transact(clients, key, vault, "ServiceVault", functionName, args);
  printResult(io, options, { action, vault, txHash }, [
    ["done", done],
    ["txHash", txHash],
  ]);
}

async function readBotConfig(ctx: Context, bot: Address): Promise<BotConfigParams> {
  const { abi } = readArtifact("ServiceVault");
  return (await ctx.clients.publicClient.readContract({ address: ctx.vault, abi, functionName: "getBotPolicy", args: [bot] })) as BotConfigParams;
}

export async function botAdd(botText: string, options: Options & BotLimitFlags, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const bot = resolveAddress(settings, botText, "bot");
  const config = applyLimitFlags(UNLIMITED, options);
  await vaultCall(options, io, "addBotWithPolicy", [bot, config], `added bot ${bot}`, "addBot");
}

export async function botUpdate(botText: string, options: Options & BotLimitFlags, io: CliIO): Promise<void> {
  const ctx = await context(options, io);
  const bot = resolveAddress(ctx.settings, botText, "bot");
  const config = applyLimitFlags(await readBotConfig(ctx, bot), options);
  const txHash = await transact(ctx.clients, ctx.key, ctx.vault, "ServiceVault", "updateBotPolicy", [bot, config]);
  printResult(io, options, { action: "updateBotConfig", vault: ctx.vault, bot, txHash }, [["done", `updated bot ${bot}`], ["txHash", txHash], ...describeConfig(config)]);
}

export async function botShow(botText: string, options: Options, io: CliIO): Promise<void> {
  const ctx = await context(options, io);
  const bot = resolveAddress(ctx.settings, botText, "bot");
  const { abi } = readArtifact("ServiceVault");
  const active = (await ctx.clients.publicClient.readContract({ address: ctx.vault, abi, functionName: "isBotActive", args: [bot] })) as boolean;
  const config = await readBotConfig(ctx, bot);
  printResult(io, options, { bot, active, config }, [["bot", bot], ["active", String(active)], ...describeConfig(config)]);
}

export async function botRemove(botText: string, options: Options, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const bot = resolveAddress(settings, botText, "bot");
  await vaultCall(options, io, "removeBot", [bot], `removed bot ${bot}`);
}

export async function vaultLimits(options: Options & Pick<BotLimitFlags, "limit" | "dailyLimit" | "clearLimits">, io: CliIO): Promise<void> {
  const { spendingLimits } = applyLimitFlags(UNLIMITED, options);
  if (spendingLimits.length === 0 && !options.clearLimits) throw new CliError("give --limit or --daily-limit (or --clear-limits to remove the vault's limits)", 2);
  await vaultCall(options, io, "setVaultSpendingLimits", [spendingLimits], `set ${spendingLimits.length} vault-wide spending limit(s)`);
}

export async function destination(action: "add" | "remove", toText: string, options: Options & { forBot?: string }, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const to = resolveAddress(settings, toText, "destination");
  if (options.forBot === undefined) {
    const fn = action === "add" ? "addGlobalDestination" : "removeGlobalDestination";
    return vaultCall(options, io, fn, [to], `${action === "add" ? "added" : "removed"} ${to} ${action === "add" ? "to" : "from"} the vault's destinations`);
  }
  const bot = resolveAddress(settings, options.forBot, "--for-bot");
  const fn = action === "add" ? "addBotDestination" : "removeBotDestination";
  return vaultCall(options, io, fn, [bot, to], `${action === "add" ? "added" : "removed"} ${to} ${action === "add" ? "to" : "from"} bot ${bot}'s destinations`);
}

export async function blacklist(action: "add" | "remove", text: string, options: Options, io: CliIO): Promise<void> {
  const to = resolveAddress(await settingsFor(options, io), text, "address");
  const fn = action === "add" ? "addGlobalBlacklist" : "removeGlobalBlacklist";
  await vaultCall(options, io, fn, [to], `${action === "add" ? "blacklisted" : "un-blacklisted"} ${to}`);
}

export async function pause(paused: boolean, options: Options, io: CliIO): Promise<void> {
  await vaultCall(options, io, paused ? "pause" : "unpause", [], paused ? "vault paused" : "vault unpaused");
}

/**
 * Registers the AI panel's three scanner keys (setScanners), or none with --clear: 2 of their
 * verdicts execute a request the vault holds for the AI scan (docs/design.md, "AI holds").
 */
export async function scanners(texts: string[], options: Options & { clear?: boolean }, io: CliIO): Promise<void> {
  if (options.clear) {
    if (texts.length > 0) throw new CliError("give the three scanner addresses or --clear, not both", EXIT.USAGE);
    const none = "0x0000000000000000000000000000000000000000";
    return vaultCall(options, io, "setScanners", [[none, none, none]], "cleared the vault's scanners: a request it holds for the AI scan needs the owner's review");
  }
  if (texts.length !== 3) throw new CliError(`give the AI panel's three scanner addresses (relay agents prints them), got ${texts.length}`, EXIT.USAGE);
  const settings = await settingsFor(options, io);
  const addresses = texts.map((text) => resolveAddress(settings, text, "scanner"));
  await vaultCall(options, io, "setScanners", [addresses], `registered scanners ${addresses.join(", ")}`);
}

/** Cancels an intent on-chain (owner or operator): a leaked signature then executes nowhere. */
export async function cancel(intentHash: string, options: Options, io: CliIO): Promise<void> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(intentHash)) throw new CliError(`intent hash must be 0x and 64 hex digits, got "${intentHash}"`, EXIT.USAGE);
  await vaultCall(options, io, "cancelIntent", [intentHash.toLowerCase()], `cancelled intent ${intentHash.toLowerCase()}`);
}

/** The vault's swap slippage tolerance, in percent of the feed-priced input ("1", "0.5"). */
export async function slippage(percent: string, options: Options, io: CliIO): Promise<void> {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(percent);
  const bps = match ? Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0")) : NaN;
  if (!(bps >= 0 && bps <= 10_000)) throw new CliError(`slippage must be a percentage from 0 to 100 with at most 2 decimals, got "${percent}"`, EXIT.USAGE);
  await vaultCall(options, io, "setSwapSlippageBps", [BigInt(bps)], `swap slippage tolerance set to ${bps / 100}%`);
}

/** A bot's swap volume window, `<usd>/<window>` (e.g. 5000/1d); `0/1d` removes it. */
export async function swapLimit(botText: string, text: string, options: Options, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const bot = resolveAddress(settings, botText, "bot");
  const [amount, window, ...rest] = text.split("/");
  if (amount === undefined || window === undefined || rest.length > 0) throw new CliError(`swap limit must be <usd>/<window>, e.g. 5000/1d; got "${text}"`, EXIT.USAGE);
  const usd = parseUsd(amount, "swap limit");
  const seconds = parseDuration(window, "swap limit");
  await vaultCall(options, io, "setBotSwapLimit", [bot, usd, seconds], usd === 0n ? `removed the swap volume limit of bot ${bot}` : `bot ${bot} may swap at most ${amount} USD per ${window}`);
}

export async function protocol(action: "approve" | "revoke", text: string, options: Options, io: CliIO): Promise<void> {
  const address = resolveAddress(await settingsFor(options, io), text, "protocol");
  await vaultCall(options, io, action === "approve" ? "approveProtocol" : "revokeProtocol", [address], `${action === "approve" ? "approved" : "revoked"} protocol ${address}`);
}

export async function rebalanceTokens(action: "add" | "remove", texts: string[], options: Options, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const tokens = texts.map((t) => resolveToken(settings, t));
  const fn = action === "add" ? "addRebalanceTokens" : "removeRebalanceTokens";
  await vaultCall(options, io, fn, [tokens.map((t) => t.address)], `${action === "add" ? "added" : "removed"} rebalance tokens ${tokens.map(tokenLabel).join(", ")}`);
}

/** A deposit's reference: 0x + 64 hex as given, other text hashed, none: zero. */
function depositRef(text: string | undefined): Hex {
  if (text === undefined) return zeroHash;
  return /^0x[0-9a-fA-F]{64}$/.test(text) ? (text.toLowerCase() as Hex) : refFromString(text);
}

/** Approve the vault for `amount` and deposit it from the owner's wallet. */
export async function deposit(options: Options & { token: string; amount: string; baseUnits?: boolean; ref?: string }, io: CliIO): Promise<void> {
  const ctx = await context(options, io);
  const token = await withDecimals(ctx.clients, resolveToken(ctx.settings, options.token));
  const amount = parseAmount(ctx.settings, token, options.amount, { baseUnits: options.baseUnits });
  await transact(ctx.clients, ctx.key, token.address, "mocks/MockERC20", "approve", [ctx.vault, amount], token);
  const txHash = await transact(ctx.clients, ctx.key, ctx.vault, "ServiceVault", "deposit", [token.address, amount, depositRef(options.ref)], token);
  printResult(io, options, { action: "deposit", vault: ctx.vault, token: token.address, amount: amount.toString(), txHash }, [
    ["done", `deposited ${human(amount, token.decimals)} ${tokenLabel(token)}`],
    ["txHash", txHash],
  ]);
}

/** `relay fund`: mint devnet mock tokens to the vault (or `--to`). Any key pays the gas: the owner's by default. */
export async function fund(options: Options & { token: string; amount: string; to?: string; baseUnits?: boolean }, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const to = options.to === undefined ? requireVault(settings) : resolveAddress(settings, options.to, "--to");
  const key = requireOwnerKey(settings);
  const clients = await connectChain(settings);
  const token = await withDecimals(clients, resolveToken(settings, options.token));
  const amount = parseAmount(settings, token, options.amount, { baseUnits: options.baseUnits });
  const txHash = await transact(clients, key, token.address, "mocks/MockERC20", "mint", [to, amount], token);
  const balance = await clients.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: "balanceOf", args: [to] });
  printResult(io, options, { action: "mint", to, token: token.address, amount: amount.toString(), balance: balance.toString(), txHash }, [
    ["done", `minted ${human(amount, token.decimals)} ${tokenLabel(token)} to ${to}`],
    ["balance", `${human(balance, token.decimals)} ${tokenLabel(token)}`],
    ["txHash", txHash],
  ]);
}

function human(amount: bigint, decimals: number | undefined): string {
  return decimals === undefined ? `${amount} base units of` : formatUnits(amount, decimals);
}
