// Options shared by the bot, vault and owner commands, and turning a command's options into Settings.
import { Option, type Command } from "commander";
import { CliError, EXIT, type CliIO } from "../io.ts";
import type { Settings, SettingsFlags } from "../settings.ts";
import { resolveStateDir, stateDirOption } from "../state-dir.ts";
import { definedOnly } from "../../../packages/client/src/defined.ts";

/** The options every command that talks to a relayer or a chain accepts; `--json` unless it prints no result (`relay mcp`). */
export function withSettingsOptions(command: Command, { json = true }: { json?: boolean } = {}): Command {
  const withSettings = command
    .option("--relayer-url <url>", "relayer base URL (env RELAY_URL; default: the manifest's, else http://127.0.0.1:8787)")
    .option("--rpc-url <url>", "chain JSON-RPC URL (env RELAY_RPC_URL; default: the manifest's, else http://127.0.0.1:8545)")
    .option("--chain-id <id>", "chain id (env RELAY_CHAIN_ID; default: the manifest's, else 84532)")
    .option("--vault <address>", "vault address (env RELAY_VAULT; default: the manifest's vault)")
    .addOption(stateDirOption("where the devnet manifest and the CLI's cli.json live"))
    .option("--profile <name>", "use the settings saved under this name (`relay profile save`)");
  return json ? withSettings.option("--json", "print the result as JSON") : withSettings;
}

/** `--bot-key` and `--bot <name>` (a bot of the devnet manifest, e.g. `reviewed`). */
export function withBotOptions(command: Command): Command {
  return command
    .option("--bot-key <hex>", "the bot's private key (env RELAY_BOT_KEY; default: the manifest's `default` bot)")
    .option("--bot <name>", "use the key of this bot of the devnet manifest (`default`, `reviewed`)");
}

/** `--owner-key`. */
export function withOwnerOptions(command: Command): Command {
  return command.option("--owner-key <hex>", "the vault owner's private key (env RELAY_OWNER_KEY; default: the manifest's owner)");
}

/** Flags of the wait-capable commands. */
export function withWaitOptions(command: Command): Command {
  return command
    .option("--wait", "if held, poll until the request is approved or rejected")
    .addOption(new Option("--timeout <seconds>", "give up waiting after this long (exit 4)").default("600"));
}

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}\n`).join("")}`;
}

export interface SettingsOptions extends SettingsFlags {
  profile?: string;
  bot?: string;
  json?: boolean;
}

/**
 * Settings for a command: flags > the selected profile > environment > manifest > defaults;
 * `--bot <name>` picks that manifest bot's key.
 */
export async function settingsFor(options: SettingsOptions, io: CliIO): Promise<Settings> {
  let flags: SettingsFlags = options;
  if (options.profile !== undefined) {
    const { readProfiles } = await import("../state.ts");
    const stateDir = resolveSettingsDir(options, io);
    const profile = (await readProfiles(stateDir))[options.profile];
    if (profile === undefined) throw new CliError(`no profile "${options.profile}" in ${stateDir}/cli.json (see \`relay profile list\`)`, EXIT.USAGE);
    flags = { ...profile, ...definedOnly(options) };
  }
  const { resolveSettings } = await import("../settings.ts");
  const settings = resolveSettings(flags, io.env, io.cwd);
  if (options.bot === undefined) return settings;
  if (options.botKey !== undefined) throw new CliError("give either --bot or --bot-key, not both", EXIT.USAGE);
  const bots = settings.manifest?.accounts.bots;
  if (bots === undefined) throw new CliError(`--bot ${options.bot} needs a devnet manifest in ${settings.stateDir}`, EXIT.USAGE);
  const bot = bots[options.bot];
  if (bot === undefined) throw new CliError(`no bot "${options.bot}" in the devnet manifest (bots: ${Object.keys(bots).join(", ")})`, EXIT.USAGE);
  return Object.freeze({ ...settings, botKey: bot.privateKey as `0x${string}`, sources: Object.freeze({ ...settings.sources, botKey: "manifest" as const }) });
}

function resolveSettingsDir(options: SettingsOptions, io: CliIO): string {
  return resolveStateDir(options.stateDir, io.env, io.cwd);
}
