// Where the CLI's settings come from (DESIGN.md section 9): flags > environment > the devnet manifest
// (`<state-dir>/devnet.json`, or `devnet-<chainId>.json` of a devnet running several chains when
// --chain-id / RELAY_CHAIN_ID names another of its chains) > defaults. Also the two lookups every money command needs: a token by
// symbol or address, and an amount in human or base units.
import { existsSync } from "node:fs";
import type { Address, Hex } from "viem";
import { ETH_MARKER, ETH_TOKEN, isEth } from "../chain/eth.ts";
import { parseAddress } from "../crypto/address.ts";
import { parseUnits } from "../../packages/client/src/units.ts";
import { chainManifestPath, manifestPath, readManifest, type Manifest } from "../devnet/manifest.ts";
import { CANONICAL_TOKENS, TOKENS, isSupportedChainId, SUPPORTED_CHAIN_IDS } from "../devnet/tokens.ts";
import { resolveStateDir } from "./state-dir.ts";
import { CliError, EXIT } from "./io.ts";
import { didYouMean } from "./did-you-mean.ts";

/** Settings given as command-line flags (all optional; commander's camelCase names). */
export interface SettingsFlags {
  relayerUrl?: string;
  rpcUrl?: string;
  chainId?: number | string;
  vault?: string;
  botKey?: string;
  ownerKey?: string;
  stateDir?: string;
}

/** A token the CLI knows by symbol: from the manifest, or the network's canonical list. */
export interface KnownToken {
  address: Address;
  decimals: number;
}

/** Where a setting's value came from, for messages such as `relay config`. */
export type SettingSource = "flag" | "env" | "manifest" | "default";

export interface Settings {
  relayerUrl: string;
  rpcUrl: string;
  chainId: number;
  /** Undefined when no flag, RELAY_VAULT or manifest names one; `requireVault` explains what to do. */
  vault: Address | undefined;
  botKey: Hex | undefined;
  ownerKey: Hex | undefined;
  /** Absolute path of the state directory. */
  stateDir: string;
  /** The devnet manifest of the selected chain, when the state directory has one (see `loadManifest`). */
  manifest: Manifest | undefined;
  /** Tokens by upper-case symbol. */
  tokens: Readonly<Record<string, KnownToken>>;
  sources: Readonly<Record<"relayerUrl" | "rpcUrl" | "chainId" | "vault" | "botKey" | "ownerKey", SettingSource>>;
}

/** Defaults when nothing else says: the ports `relay serve` and `relay devnet` use, the devnet's chain. */
export const DEFAULTS = Object.freeze({
  relayerUrl: "http://127.0.0.1:8787",
  rpcUrl: "http://127.0.0.1:8545",
  chainId: 84532,
});

/** How to provide each setting, for error messages. */
const HOW_TO: Record<"relayerUrl" | "rpcUrl" | "chainId" | "vault" | "botKey" | "ownerKey", { flag: string; env: string }> = {
  relayerUrl: { flag: "--relayer-url", env: "RELAY_URL" },
  rpcUrl: { flag: "--rpc-url", env: "RELAY_RPC_URL" },
  chainId: { flag: "--chain-id", env: "RELAY_CHAIN_ID" },
  vault: { flag: "--vault", env: "RELAY_VAULT" },
  botKey: { flag: "--bot-key", env: "RELAY_BOT_KEY" },
  ownerKey: { flag: "--owner-key", env: "RELAY_OWNER_KEY" },
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Resolve every setting. Reads `<stateDir>/devnet.json` when it exists (a missing file is fine, a
 * broken one is an error). Values are validated; a bad one is a usage error naming where it came from.
 */
export function resolveSettings(flags: SettingsFlags, env: Env, cwd: string): Settings {
  const stateDir = resolveStateDir(flags.stateDir, env, cwd);
  const manifest = loadManifest(stateDir, explicitChainId(flags, env));
  const sources = {} as Record<keyof typeof HOW_TO, SettingSource>;

  // The first of flag, environment, manifest that has a value, parsed; or the default.
  function pick<T>(key: keyof typeof HOW_TO, fromManifest: T | undefined, parse: (raw: string, where: string) => T): T | undefined {
    const flag = flags[key];
    if (flag !== undefined && flag !== "") {
      sources[key] = "flag";
      return parse(String(flag), HOW_TO[key].flag);
    }
    const fromEnv = env[HOW_TO[key].env];
    if (fromEnv !== undefined && fromEnv !== "") {
      sources[key] = "env";
      return parse(fromEnv, HOW_TO[key].env);
    }
    sources[key] = fromManifest === undefined ? "default" : "manifest";
    return fromManifest;
  }

  const defaultBot = manifest?.accounts.bots.default.privateKey as Hex | undefined;
  const chainId = pick("chainId", manifest?.chainId, chainIdFrom) ?? DEFAULTS.chainId;
  const settings: Settings = {
    relayerUrl: pick("relayerUrl", manifest?.relayerUrl, urlFrom) ?? DEFAULTS.relayerUrl,
    rpcUrl: pick("rpcUrl", manifest?.rpcUrl, urlFrom) ?? DEFAULTS.rpcUrl,
    chainId,
    vault: pick("vault", manifest?.contracts.vault as Address | undefined, addressFrom),
    botKey: pick("botKey", defaultBot, keyFrom),
    ownerKey: pick("ownerKey", manifest?.accounts.owner.privateKey as Hex | undefined, keyFrom),
    stateDir,
    manifest,
    tokens: Object.freeze(knownTokens(chainId, manifest)),
    sources: Object.freeze(sources),
  };
  return Object.freeze(settings);
}

// The chain id given by flag or environment (validated later, with the other settings), if any.
function explicitChainId(flags: SettingsFlags, env: Env): number | undefined {
  const raw = flags.chainId !== undefined && flags.chainId !== "" ? String(flags.chainId) : env[HOW_TO.chainId.env];
  if (raw === undefined || raw === "" || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * `<stateDir>/devnet.json`, unless a chain id was asked for that it does not describe and the
 * state directory has that chain's `devnet-<chainId>.json` (a devnet of several chains).
 */
export function loadManifest(stateDir: string, chainId: number | undefined): Manifest | undefined {
  const primary = readIfPresent(manifestPath(stateDir));
  if (chainId === undefined || primary?.chainId === chainId) return primary;
  return readIfPresent(chainManifestPath(stateDir, chainId)) ?? primary;
}

function readIfPresent(file: string): Manifest | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readManifest(file);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

// The manifest's tokens when it is for this chain; otherwise the network's canonical tokens.
function knownTokens(chainId: number, manifest: Manifest | undefined): Record<string, KnownToken> {
  const tokens: Record<string, KnownToken> = {};
  if (manifest !== undefined && manifest.chainId === chainId) {
    for (const [symbol, token] of Object.entries(manifest.tokens)) {
      tokens[symbol.toUpperCase()] = { address: token.address as Address, decimals: token.decimals };
    }
    return tokens;
  }
  for (const [symbol, address] of Object.entries(CANONICAL_TOKENS[chainId] ?? {})) {
    const spec = TOKENS.find((t) => t.symbol === symbol);
    if (spec !== undefined && address !== undefined) tokens[symbol] = { address, decimals: spec.decimals };
  }
  return tokens;
}

function usage(message: string): CliError {
  return new CliError(message, EXIT.USAGE);
}

function chainIdFrom(raw: string, where: string): number {
  const id = Number(raw);
  if (!/^\d+$/.test(raw) || !isSupportedChainId(id)) {
    throw usage(`${where} ${raw} is not a supported chain id (supported: ${SUPPORTED_CHAIN_IDS.join(", ")})`);
  }
  return id;
}

function urlFrom(raw: string, where: string): string {
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) throw usage(`${where} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}

function addressFrom(raw: string, where: string): Address {
  const checked = parseAddress(raw);
  if (!checked.ok) {
    throw usage(checked.reason === "checksum" ? `${where} ${raw} has a wrong EIP-55 checksum` : `${where} must be a 0x-prefixed 20-byte address, got "${raw}"`);
  }
  return checked.address;
}

function keyFrom(raw: string, where: string): Hex {
  const hex = raw.startsWith("0x") ? raw : `0x${raw}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw usage(`${where} must be a 32-byte hex private key`);
  return hex as Hex;
}

function missing(key: keyof typeof HOW_TO, what: string): CliError {
  const { flag, env } = HOW_TO[key];
  return usage(`no ${what}: pass ${flag}, set ${env}, or run \`relay devnet\` (or \`relay serve\`) so that --state-dir has a devnet manifest`);
}

/** The vault, or a usage error saying how to name one. */
export function requireVault(settings: Settings): Address {
  if (settings.vault === undefined) throw missing("vault", "vault address");
  return settings.vault;
}

/** The bot's private key, or a usage error saying how to give one. */
export function requireBotKey(settings: Settings): Hex {
  if (settings.botKey === undefined) throw missing("botKey", "bot key");
  return settings.botKey;
}

/** The vault owner's private key, or a usage error saying how to give one. */
export function requireOwnerKey(settings: Settings): Hex {
  if (settings.ownerKey === undefined) throw missing("ownerKey", "owner key");
  return settings.ownerKey;
}

/** A token by symbol (any case, from `settings.tokens`) or by address; `decimals` is undefined for an unknown address. */
export interface ResolvedToken {
  address: Address;
  symbol: string | undefined;
  decimals: number | undefined;
}

/**
 * Look a token up by symbol or address. Unknown symbols and malformed addresses are usage errors.
 * "ETH" is native ETH under its 0xEeee… marker (what SDKs sign); the zero address and the marker
 * given as addresses are ETH too, kept as given.
 */
export function resolveToken(settings: Settings, symbolOrAddress: string): ResolvedToken {
  const text = symbolOrAddress.trim();
  if (text.toUpperCase() === ETH_TOKEN.symbol && settings.tokens[ETH_TOKEN.symbol] === undefined) {
    return { address: ETH_MARKER, symbol: ETH_TOKEN.symbol, decimals: ETH_TOKEN.decimals };
  }
  if (text.startsWith("0x") || text.startsWith("0X")) {
    const address = addressFrom(text, "token");
    if (isEth(address)) return { address, symbol: ETH_TOKEN.symbol, decimals: ETH_TOKEN.decimals };
    const known = Object.entries(settings.tokens).find(([, token]) => token.address.toLowerCase() === address.toLowerCase());
    return { address, symbol: known?.[0], decimals: known?.[1].decimals };
  }
  // Symbols are matched in any case: the known ones are keyed upper-case, so no two differ by case alone.
  const known = settings.tokens[text.toUpperCase()];
  if (known === undefined) {
    const symbols = Object.keys(settings.tokens);
    const hint = didYouMean(text, settings.tokens[ETH_TOKEN.symbol] === undefined ? [...symbols, ETH_TOKEN.symbol] : symbols);
    if (hint !== "") throw usage(`unknown token "${text}"${hint}`);
    const list = symbols.length === 0 ? "none on this chain; give the token's address" : symbols.join(", ");
    throw usage(`unknown token "${text}" on chain ${settings.chainId} (known: ${list})`);
  }
  return { address: known.address, symbol: text.toUpperCase(), decimals: known.decimals };
}

/** A token's display name: its symbol when known, else its address. */
export function tokenLabel(token: ResolvedToken): string {
  return token.symbol ?? token.address;
}

/**
 * An amount in base units. Human units ("5", "0.25") are converted with the token's decimals; with
 * `baseUnits` the text must already be a non-negative integer. Usage errors name the amount and token.
 */
export function parseAmount(_settings: Settings, token: ResolvedToken, text: string, options: { baseUnits?: boolean } = {}): bigint {
  if (options.baseUnits) {
    if (!/^\d+$/.test(text)) throw usage(`amount "${text}" is not a whole number of base units`);
    return BigInt(text);
  }
  if (token.decimals === undefined) {
    throw usage(`decimals of token ${token.address} are unknown: give the amount in base units with --base-units`);
  }
  try {
    return parseUnits(text, token.decimals);
  } catch (error) {
    throw usage(`${(error as Error).message} (${tokenLabel(token)} has ${token.decimals} decimals)`);
  }
}
