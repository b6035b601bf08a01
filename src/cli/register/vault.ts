// Registers `relay vault …`: reads of a vault through the relayer; and `relay chains`, the chains it serves.
import type { Command } from "commander";
import type { CliIO } from "../io.ts";
import { examples, withBotOptions, withSettingsOptions } from "./common.ts";

export function registerVaultCommands(program: Command, io: CliIO): void {
  const load = () => import("../commands/vault.ts");
  const vault = program
    .command("vault")
    .description("Read a vault through the relayer: value, balances, rebalance whitelist, bots, destinations, protocols")
    .addHelpText("after", examples("relay vault value", "relay vault balance USDC", "relay vault destination 0x… --for-bot reviewed", "relay vault info --json"));
  const sub = (name: string) => withSettingsOptions(vault.command(name));

  withSettingsOptions(program.command("chains"))
    .description("The chains the relayer serves: network name, vault factory, registry, domain, tokens")
    .addHelpText("after", examples("relay chains", "relay chains --json"))
    .action(async (o) => (await load()).chains(o, io));

  sub("value").description("Total USD value with a per-token breakdown").action(async (o) => (await load()).value(o, io));
  sub("rebalance-tokens").description("The effective rebalance whitelist and where it comes from").action(async (o) => (await load()).rebalanceTokens(o, io));
  sub("rebalance-token")
    .argument("<token>", "token symbol or address")
    .description("Whether the vault may swap into a token")
    .action(async (token: string, o) => (await load()).rebalanceToken(token, o, io));
  sub("balance")
    .argument("<token>", "token symbol or address")
    .description("The vault's balance of a token, in human units (base units with --json)")
    .action(async (token: string, o) => (await load()).balance(token, o, io));
  sub("info").description("Owner, operator, pause state, version").action(async (o) => (await load()).info(o, io));
  withBotOptions(sub("bot"))
    .argument("[bot]", "bot address or manifest name (default: the bot whose key is configured)")
    .description("Whether a bot is active on the vault")
    .action(async (bot: string | undefined, o) => (await load()).bot(bot, o, io));
  withBotOptions(sub("destination"))
    .argument("<to>", "recipient address")
    .option("--for-bot <bot>", "check for this bot (address or manifest name; default: the configured bot)")
    .description("Whether a bot may pay a recipient (blacklist, vault and bot whitelists)")
    .action(async (to: string, o) => (await load()).destination(to, o, io));
  sub("protocol")
    .argument("<address>", "contract address or manifest name (marketplace, lending, nft)")
    .description("Whether the vault may call a contract")
    .action(async (address: string, o) => (await load()).protocol(address, o, io));
}
