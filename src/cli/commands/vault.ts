// Actions of `relay vault …`: the relayer's vault reads, printed in human units (or `--json` as the
// relayer answered).
import type { Address } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { formatUnits } from "../../../packages/client/src/units.ts";
import type { CliIO } from "../io.ts";
import { printResult } from "../output.ts";
import { requireBotKey, requireVault, resolveToken, type Settings } from "../settings.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import { resolveAddress } from "./chain.ts";
import { relayClient } from "./requests.ts";

async function context(options: SettingsOptions, io: CliIO) {
  const settings = await settingsFor(options, io);
  return { settings, vault: requireVault(settings), client: relayClient(settings, io), call: { signal: io.signal } };
}

function symbolOf(settings: Settings, address: string): string {
  const known = Object.entries(settings.tokens).find(([, t]) => t.address.toLowerCase() === address.toLowerCase());
  return known?.[0] ?? address;
}

export async function value(options: SettingsOptions, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const result = await client.vaultValue(vault, settings.chainId, call);
  printResult(io, options, result, [
    ["vault", result.vault],
    ["totalValueUsd", result.totalValueUsd.toFixed(2)],
    ...result.tokens.map((t) => [t.symbol, `${formatUnits(BigInt(t.balance), t.decimals)} ($${t.valueUsd.toFixed(2)} at $${t.priceUsd})`] as const),
  ]);
}

export async function rebalanceTokens(options: SettingsOptions, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const result = await client.rebalanceTokens(vault, settings.chainId, call);
  printResult(io, options, result, [
    ["source", result.source],
    ["rebalanceTokenCount", String(result.rebalanceTokenCount)],
    ["tokens", result.tokens.map((t) => symbolOf(settings, t)).join(", ")],
  ]);
}

export async function rebalanceToken(tokenText: string, options: SettingsOptions, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const token = resolveToken(settings, tokenText);
  const result = await client.rebalanceToken(vault, token.address, settings.chainId, call);
  printResult(io, options, result, [
    ["allowed", String(result.allowed)],
    ["source", result.source],
  ]);
}

export async function balance(tokenText: string, options: SettingsOptions, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const token = resolveToken(settings, tokenText);
  const result = await client.balance(vault, token.address, settings.chainId, call);
  const human = token.decimals === undefined ? `${result.balance} base units` : `${formatUnits(BigInt(result.balance), token.decimals)} ${token.symbol ?? ""}`.trim();
  if (options.json) printResult(io, options, { ...result, token: token.address, decimals: token.decimals }, []);
  else io.stdout.write(`${human}\n`);
}

export async function info(options: SettingsOptions, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const result = await client.vaultInfo(vault, settings.chainId, call);
  printResult(io, options, result, [
    ["vault", vault],
    ["owner", result.owner],
    ["operator", result.operator],
    ["paused", String(result.paused)],
    ["version", result.version],
    ["trackUsedIntents", String(result.trackUsedIntents)],
  ]);
}

/** The bot named by the argument, else the one whose key the settings hold. */
function botAddress(settings: Settings, text: string | undefined): Address {
  if (text !== undefined) return resolveAddress(settings, text, "bot");
  return privateKeyToAddress(requireBotKey(settings));
}

export async function bot(botText: string | undefined, options: SettingsOptions, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const address = botAddress(settings, botText);
  const result = await client.botStatus(vault, address, settings.chainId, call);
  printResult(io, options, { bot: address, ...result }, [
    ["bot", address],
    ["isActive", String(result.isActive)],
  ]);
}

export async function destination(toText: string, options: SettingsOptions & { forBot?: string }, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const address = botAddress(settings, options.forBot);
  const to = resolveAddress(settings, toText, "destination");
  const result = await client.destination(vault, address, to, settings.chainId, call);
  printResult(io, options, result, [
    ["allowed", String(result.allowed)],
    ["reason", result.reason],
  ]);
}

export async function protocol(protocolText: string, options: SettingsOptions, io: CliIO): Promise<void> {
  const { vault, client, settings, call } = await context(options, io);
  const address = resolveAddress(settings, protocolText, "protocol");
  const result = await client.protocol(vault, address, settings.chainId, call);
  printResult(io, options, result, [["approved", String(result.approved)]]);
}

/** `relay chains`: the chains the relayer serves, with each one's factory and registry. */
export async function chains(options: SettingsOptions, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const result = await relayClient(settings, io).chains({ signal: io.signal });
  printResult(io, options, result, result.chains.flatMap((chain) => [
    [String(chain.chainId), `${chain.name}${chain.devnet ? " (devnet)" : ""}`],
    ["  factory", chain.factoryAddress],
    ["  registry", chain.registryAddress],
    ["  domain", chain.domain === undefined ? undefined : `${chain.domain.name} v${chain.domain.version}`],
    ["  tokens", chain.tokens.map((t) => t.symbol ?? t.address).join(", ")],
  ] as const));
}
