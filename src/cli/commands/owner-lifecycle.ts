// `relay owner …` for a vault's life beyond its policy: deploy (at the address predict gives),
// withdraw tokens, ETH and NFTs, the operator and its ceilings, two-step ownership transfer, and the
// whole policy in one read (`state`). Sent with the owner key as the other owner commands are.
import { type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readVaultState } from "../../../packages/client/src/owner.ts";
import { formatUnits } from "../../../packages/client/src/units.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { printResult } from "../output.ts";
import { parseAmount, requireOwnerKey, requireVault, resolveToken, tokenLabel } from "../settings.ts";
import { settingsFor } from "../register/common.ts";
import { connectChain, resolveAddress, withDecimals } from "./chain.ts";
import { parseUsd } from "./limits.ts";
import { ETH_MARKER, ETH_TOKEN } from "../../chain/eth.ts";
import { context, transact, vaultCall, type Options } from "./owner.ts";

function parseId(text: string, what: string): bigint {
  if (!/^\d{1,78}$/.test(text)) throw new CliError(`${what} must be a whole number, got "${text}"`, EXIT.USAGE);
  return BigInt(text);
}

/** `withdraw --token T --amount A --to X`: tokens or ETH out of the vault (owner only). */
export async function withdraw(options: Options & { token: string; amount: string; to: string; baseUnits?: boolean }, io: CliIO): Promise<void> {
  const ctx = await context(options, io);
  const to = resolveAddress(ctx.settings, options.to, "--to");
  const eth = options.token.toUpperCase() === "ETH";
  const token = eth ? { address: ETH_MARKER, ...ETH_TOKEN } : await withDecimals(ctx.clients, resolveToken(ctx.settings, options.token));
  const amount = parseAmount(ctx.settings, token, options.amount, { baseUnits: options.baseUnits });
  const txHash = await transact(ctx.clients, ctx.key, ctx.vault, "ServiceVault", "withdraw", [token.address, amount, to], token);
  const label = eth ? "ETH" : tokenLabel(token);
  printResult(io, options, { action: "withdraw", vault: ctx.vault, token: token.address, amount: amount.toString(), to, txHash }, [
    ["done", `withdrew ${token.decimals === undefined ? `${amount} base units of` : formatUnits(amount, token.decimals)} ${label} to ${to}`],
    ["txHash", txHash],
  ]);
}

/** `withdraw-nft <nft> <tokenId> --to X` (ERC-721) or `withdraw-nft <token> <id> --amount N --to X` (ERC-1155). */
export async function withdrawNft(nftText: string, idText: string, options: Options & { to: string; amount?: string }, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const nft = resolveAddress(settings, nftText, "NFT contract");
  const to = resolveAddress(settings, options.to, "--to");
  const id = parseId(idText, "token id");
  if (options.amount === undefined) {
    return vaultCall(options, io, "withdrawERC721", [nft, id, to], `withdrew ERC-721 ${nft} #${id} to ${to}`);
  }
  const amount = parseId(options.amount, "--amount");
  return vaultCall(options, io, "withdrawERC1155", [nft, id, amount, to], `withdrew ${amount} of ERC-1155 ${nft} #${id} to ${to}`);
}

/** `operator set <address>` / `operator clear`. */
export async function setOperator(text: string | undefined, options: Options, io: CliIO): Promise<void> {
  if (text === undefined) return vaultCall(options, io, "setOperator", ["0x0000000000000000000000000000000000000000"], "cleared the vault's operator");
  const operator = resolveAddress(await settingsFor(options, io), text, "operator");
  return vaultCall(options, io, "setOperator", [operator], `operator set to ${operator}`);
}

export interface CeilingFlags {
  maxPerTx?: string;
  maxBotDaily?: string;
  maxBots?: string;
  vaultDaily?: string;
  aiFloor?: string;
}

/** `operator ceilings …`: what the operator may add (flags not given are 0: no bound; --max-bots 0: none). */
export async function operatorCeilings(options: Options & CeilingFlags, io: CliIO): Promise<void> {
  const usd = (text: string | undefined, flag: string) => (text === undefined ? 0n : parseUsd(text, flag));
  const ceilings = {
    maxPerTxAmount: usd(options.maxPerTx, "--max-per-tx"),
    maxBotDailyLimit: usd(options.maxBotDaily, "--max-bot-daily"),
    maxOperatorBots: options.maxBots === undefined ? 0n : parseId(options.maxBots, "--max-bots"),
    vaultDailyAggregate: usd(options.vaultDaily, "--vault-daily"),
    minAiTriggerFloor: usd(options.aiFloor, "--ai-floor"),
  };
  return vaultCall(options, io, "setOperatorCeilings", [ceilings], `the operator may add ${ceilings.maxOperatorBots} bot(s) within the ceilings`);
}

/** `transfer-ownership <address>`: names the next owner, who must accept. */
export async function transferOwnership(text: string, options: Options, io: CliIO): Promise<void> {
  const next = resolveAddress(await settingsFor(options, io), text, "new owner");
  return vaultCall(options, io, "transferOwnership", [next], `${next} may now accept the vault (relay owner accept-ownership with its key)`);
}

/** `accept-ownership`: with the pending owner's key (--owner-key / RELAY_OWNER_KEY). */
export async function acceptOwnership(options: Options, io: CliIO): Promise<void> {
  const ctx = await context(options, io);
  const me = privateKeyToAccount(ctx.key).address;
  return vaultCall(options, io, "acceptOwnership", [], `${me} now owns vault ${ctx.vault}`);
}

/** The factory: --factory, else the manifest's. */
function factoryOf(settings: Awaited<ReturnType<typeof settingsFor>>, flag: string | undefined): Address {
  if (flag !== undefined) return resolveAddress(settings, flag, "--factory");
  const fromManifest = settings.manifest?.contracts.factory;
  if (fromManifest === undefined) throw new CliError("no factory known: give --factory <address> (or run against a devnet state directory)", EXIT.USAGE);
  return fromManifest as Address;
}

/** `deploy [--factory F]`: a vault owned by the owner key, at the address `predict` gave. */
export async function deploy(options: Options & { factory?: string }, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const key = requireOwnerKey(settings);
  const factory = factoryOf(settings, options.factory);
  const clients = await connectChain(settings);
  const owner = privateKeyToAccount(key).address;
  const { abi } = (await import("../../chain/artifacts.ts")).readArtifact("ServiceVaultFactory");
  const nonce = (await clients.publicClient.readContract({ address: factory, abi, functionName: "ownerVaultCount", args: [owner] })) as bigint;
  const predicted = (await clients.publicClient.readContract({ address: factory, abi, functionName: "predictVaultAddress", args: [owner, nonce] })) as Address;
  const txHash = await transact(clients, key, factory, "ServiceVaultFactory", "deployVault", []);
  const code = await clients.publicClient.getCode({ address: predicted });
  if (code === undefined) throw new CliError(`deployVault (${txHash}) left no vault at ${predicted}`);
  printResult(io, options, { action: "deployVault", factory, owner, nonce: Number(nonce), vault: predicted, txHash }, [
    ["done", `deployed vault ${predicted} owned by ${owner}`],
    ["vault", predicted],
    ["txHash", txHash],
  ]);
}

/** `predict [--owner A] [--nonce N] [--factory F]`: the address of an owner's vault number N (default: its next). */
export async function predict(options: Options & { factory?: string; owner?: string; nonce?: string }, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const factory = factoryOf(settings, options.factory);
  const owner = options.owner !== undefined ? resolveAddress(settings, options.owner, "--owner") : privateKeyToAccount(requireOwnerKey(settings)).address;
  const clients = await connectChain(settings);
  const { abi } = (await import("../../chain/artifacts.ts")).readArtifact("ServiceVaultFactory");
  const nonce = options.nonce !== undefined ? parseId(options.nonce, "--nonce") : ((await clients.publicClient.readContract({ address: factory, abi, functionName: "ownerVaultCount", args: [owner] })) as bigint);
  const vault = (await clients.publicClient.readContract({ address: factory, abi, functionName: "predictVaultAddress", args: [owner, nonce] })) as Address;
  const deployed = (await clients.publicClient.getCode({ address: vault })) !== undefined;
  printResult(io, options, { factory, owner, nonce: Number(nonce), vault, deployed }, [
    ["vault", vault],
    ["owner", owner],
    ["nonce", String(nonce)],
    ["deployed", String(deployed)],
  ]);
}

/** `state`: the vault's roles, bots, limits and lists in one read (no key needed). */
export async function state(options: Options, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const vault = requireVault(settings);
  const clients = await connectChain(settings);
  const s = await readVaultState(clients.publicClient as never, vault);
  printResult(io, options, s, [
    ["vault", s.vault],
    ["owner", s.owner],
    ["pendingOwner", s.pendingOwner ?? undefined],
    ["operator", s.operator ?? "none"],
    ["paused", String(s.paused)],
    ["bots", s.bots.length === 0 ? "none" : s.bots.map((b) => `${b.address} (max/tx ${b.policy.maxPerTx} USD${b.policy.requireHumanReview ? ", reviewed" : ""})`).join(", ")],
    ["vaultLimits", s.vaultLimits.length === 0 ? "none" : s.vaultLimits.map((l) => `${l.amount} USD/${l.windowSeconds}s`).join(", ")],
    ["destinations", s.globalDestinations.length === 0 ? "any" : s.globalDestinations.join(", ")],
    ["blacklisted", String(s.blacklistCount)],
    ["rebalanceTokens", s.rebalanceTokens.length === 0 ? "the registry's defaults" : s.rebalanceTokens.join(", ")],
    ["operatorCeilings", `${s.operatorCeilings.maxOperatorBots} bot(s), max/tx ${s.operatorCeilings.maxPerTx}, per bot/day ${s.operatorCeilings.maxBotDaily}, all/day ${s.operatorCeilings.vaultDailyAggregate}, AI floor ${s.operatorCeilings.minAiTriggerFloor} USD`],
  ]);
}
