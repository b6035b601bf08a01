// The actions of `relay review`: the Ink screen on a terminal, and its non-interactive twin
// `relay review list | show <id> | approve <id> | reject <id> --reason <text> [--no-cancel]` (each with
// --json); a rejection also cancels the intent on-chain unless --no-cancel.
// Relayer failures reach main's reportFailure, which turns them into the CLI's exit codes.
import type { Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../chain/clients.ts";
import { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { readVaultDomain } from "../../../packages/client/src/sign.ts";
import { signInWithEthereum } from "../../../packages/client/src/siwe.ts";
import type { VaultDomain } from "../../../packages/client/src/intent-types.ts";
import { connectChain } from "../commands/chain.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import { loadManifest, requireOwnerKey, type Settings } from "../settings.ts";
import { botBook, describeReview, tokenBook, type BotBook, type TokenBook } from "./describe.ts";
import { followManifestUrl } from "./follow-manifest.ts";
import { intentCanceller } from "./cancel.ts";
import { formatDecision, formatDetail, formatList, oneLine } from "./format.ts";
import { cancelFailure, formatCancelled, rejectReview } from "./reject.ts";
import { createRelaySource } from "./relay-source.ts";
import type { ReviewSource } from "./source.ts";

export type ReviewFlags = SettingsOptions;

export const NO_TTY_MESSAGE =
  "relay review needs an interactive terminal; use `relay review list`, `relay review show <id>`, " +
  "`relay review approve <id>` or `relay review reject <id> --reason <text>` instead (each takes --json)";

/** The Ink screen. Without a terminal on both stdin and stdout it refuses, naming the commands to use. */
export async function reviewInteractive(flags: ReviewFlags, io: CliIO): Promise<void> {
  if (!io.stdout.isTTY || !process.stdin.isTTY) throw new CliError(NO_TTY_MESSAGE, EXIT.USAGE);
  const settings = await settingsFor(flags, io);
  // One attempt per call: the screen shows "reconnecting" and tries again by itself.
  const opened = openReviews(settings, { retry: { maxAttempts: 1 } });
  // A relayer URL read from the manifest follows the manifest when the relayer restarts elsewhere;
  // one the owner gave (flag, RELAY_URL, a profile) is kept.
  const follows = settings.sources.relayerUrl === "manifest" || settings.sources.relayerUrl === "default";
  const source = follows
    ? followManifestUrl({
        url: settings.relayerUrl,
        readUrl: () => manifestRelayerUrl(settings),
        sourceFor: (relayerUrl) => openReviews({ ...settings, relayerUrl }, { retry: { maxAttempts: 1 } }).source,
      })
    : opened.source;
  const { tokens, bots } = opened;
  const [{ render }, { createElement }, { ReviewApp }] = await Promise.all([import("ink"), import("react"), import("./ui/app.ts")]);
  const app = render(createElement(ReviewApp, { source, tokens, bots }), { exitOnCtrlC: true });
  const stop = (): void => app.unmount();
  io.signal.addEventListener("abort", stop, { once: true });
  try {
    await app.waitUntilExit();
  } finally {
    io.signal.removeEventListener("abort", stop);
  }
}

export async function reviewList(flags: ReviewFlags, io: CliIO): Promise<void> {
  const { source, tokens, bots } = openReviews(await settingsFor(flags, io));
  const reviews = await source.list(io.signal);
  if (flags.json) io.stdout.write(`${JSON.stringify({ reviews })}\n`);
  else io.stdout.write(formatList(reviews.map((item) => describeReview(item, tokens, bots)), Date.now()));
}

export async function reviewShow(requestId: string, flags: ReviewFlags, io: CliIO): Promise<void> {
  const { source, tokens, bots } = openReviews(await settingsFor(flags, io));
  const item = await source.detail(requestId, io.signal);
  if (flags.json) io.stdout.write(`${JSON.stringify(item)}\n`);
  else io.stdout.write(formatDetail(describeReview(item, tokens, bots), Date.now()));
}

export async function reviewApprove(requestId: string, flags: ReviewFlags, io: CliIO): Promise<void> {
  const { source } = openReviews(await settingsFor(flags, io));
  const response = await source.approve(requestId, io.signal);
  io.stdout.write(flags.json ? `${JSON.stringify(response)}\n` : formatDecision(response));
}

/**
 * Reject a held request and, unless `--no-cancel`, cancel its signed intent on the vault with the owner
 * key. Both outcomes are printed; a failed cancel exits 1 with the command that retries it.
 */
export async function reviewReject(requestId: string, flags: ReviewFlags & { reason: string; cancel?: boolean }, io: CliIO): Promise<void> {
  const reason = flags.reason.trim();
  if (reason === "") throw new CliError("--reason must not be empty: say why the request is rejected", EXIT.USAGE);
  const cancel = flags.cancel !== false;
  const settings = await settingsFor(flags, io);
  if (cancel && settings.ownerKey === undefined) {
    throw new CliError("cancelling the intent on-chain needs the owner key: pass --owner-key or set RELAY_OWNER_KEY", EXIT.USAGE);
  }
  const { source } = openReviews(settings);
  // The node must answer before the relayer is told: a rejection whose cancel cannot be sent is a half decision.
  if (cancel) await connectChain(settings);
  const { response, cancel: cancelled } = await rejectReview(source, requestId, reason, { cancel, signal: io.signal });
  if (flags.json) io.stdout.write(`${JSON.stringify(cancelled === undefined ? response : { ...response, cancel: cancelled })}\n`);
  else io.stdout.write(formatDecision(response) + (cancelled !== undefined && "txHash" in cancelled ? `${formatCancelled(cancelled)}\n` : ""));
  if (cancelled !== undefined && "error" in cancelled) throw new CliError(cancelFailure(response.requestId, cancelled));
}

interface OpenedReviews {
  settings: Settings;
  source: ReviewSource;
  tokens: TokenBook;
  bots: BotBook;
}

/** The owner's account, a relay client and the source built on them (it can cancel on-chain with the owner key). */
export function openReviews(settings: Settings, clientOptions: { retry?: { maxAttempts: number } } = {}): OpenedReviews {
  const ownerKey = requireOwnerKey(settings);
  const owner = privateKeyToAccount(ownerKey);
  const client = new RelayClient({ baseUrl: settings.relayerUrl, chainId: settings.chainId, ...clientOptions });
  const { chainId, relayerUrl } = settings;
  const filter: { chainId?: number; vault?: Address } = {};
  // Narrow the list only by what the user named; a manifest's vault is not the owner's only one.
  if (settings.sources.chainId !== "default") filter.chainId = chainId;
  if (settings.vault !== undefined && (settings.sources.vault === "flag" || settings.sources.vault === "env")) filter.vault = settings.vault;
  const source = createRelaySource({
    client,
    owner,
    signIn: async (signal) => {
      await signInWithEthereum(client, owner, { chainId, baseUrl: relayerUrl, statement: "Review held requests of my vaults.", ...(signal ? { signal } : {}) });
    },
    vaultDomain: vaultDomainReader(settings),
    filter,
    cancelIntent: intentCanceller(settings, ownerKey),
    ...(settings.manifest?.devnet === true ? { chainTime: devnetTime(settings) } : {}),
  });
  return { settings, source, tokens: tokenBook(settings.tokens), bots: botBook(settings.manifest?.accounts.bots) };
}

// The relayer URL the state directory's manifest of this chain names now (a restarted `relay serve`
// rewrites it); undefined while it names none or cannot be read, e.g. between a stop and a start.
function manifestRelayerUrl(settings: Settings): string | undefined {
  try {
    const manifest = loadManifest(settings.stateDir, settings.chainId);
    return manifest?.chainId === settings.chainId ? manifest.relayerUrl : undefined;
  } catch {
    return undefined;
  }
}

// A devnet's time (its latest block's), which `relay time advance` may have moved ahead of the wall
// clock; approvals signed there count their deadline from it (the vault checks them against it).
function devnetTime(settings: Settings): () => Promise<number> {
  return async () => {
    const { publicClient } = clientsFor(settings.rpcUrl, settings.chainId);
    try {
      return Number((await publicClient.getBlock({ blockTag: "latest" })).timestamp);
    } catch (error) {
      throw new CliError(`cannot read the chain's time at ${settings.rpcUrl}: ${oneLine(error)}`);
    }
  };
}

// Each vault's EIP-712 domain, read once from the chain.
function vaultDomainReader(settings: Settings): (vault: Address) => Promise<VaultDomain> {
  const domains = new Map<string, Promise<VaultDomain>>();
  return (vault) => {
    let domain = domains.get(vault.toLowerCase());
    if (domain === undefined) {
      const { publicClient } = clientsFor(settings.rpcUrl, settings.chainId);
      domain = readVaultDomain(publicClient, vault).catch((error: unknown) => {
        domains.delete(vault.toLowerCase());
        throw new CliError(`cannot read the EIP-712 domain of vault ${vault} at ${settings.rpcUrl}: ${oneLine(error)}`);
      });
      domains.set(vault.toLowerCase(), domain);
    }
    return domain;
  };
}
