// Registers `relay keys new` and `relay profile save|list|remove`.
import type { Command } from "commander";
import type { CliIO } from "../io.ts";
import { stateDirOption } from "../state-dir.ts";
import { examples } from "./common.ts";

export function registerKeyCommands(program: Command, io: CliIO): void {
  const load = () => import("../commands/keys.ts");
  const keys = program.command("keys").description("Key pairs for bots");
  keys
    .command("new")
    .description("Generate a new private key and print it with its address")
    .option("--json", "print {address, privateKey} as JSON")
    .addOption(stateDirOption("accepted like on every command; `keys new` reads and writes no state"))
    .addHelpText("after", examples("relay keys new", "relay keys new --json > bot-key.json"))
    .action(async (o) => (await load()).keysNew(o, io));

  const profile = program
    .command("profile")
    .description("Named sets of settings in <state-dir>/cli.json, used with --profile <name> (flags still win)")
    .addHelpText("after", examples("relay profile save sepolia --relayer-url https://relay.example --rpc-url https://… --chain-id 84532 --vault 0x…", "relay pay --profile sepolia --to 0x… --amount 1 --token USDC"));
  profile
    .command("save")
    .argument("<name>", "profile name")
    .option("--relayer-url <url>", "relayer base URL")
    .option("--rpc-url <url>", "chain JSON-RPC URL")
    .option("--chain-id <id>", "chain id")
    .option("--vault <address>", "vault address")
    .option("--bot-key <hex>", "bot private key (stored in cli.json, mode 0600)")
    .option("--owner-key <hex>", "owner private key: not stored unless --store-owner-key")
    .option("--store-owner-key", "store --owner-key in the profile too (anyone with cli.json then controls the vault)")
    .addOption(stateDirOption("where cli.json lives"))
    .option("--json", "print the saved profile as JSON")
    .description("Save (or replace) a profile")
    .action(async (name: string, o) => (await load()).profileSave(name, o, io));
  profile
    .command("list")
    .addOption(stateDirOption("where cli.json lives"))
    .option("--json", "print as JSON")
    .description("List profiles (keys shown as their address)")
    .action(async (o) => (await load()).profileList(o, io));
  profile
    .command("remove")
    .argument("<name>", "profile name")
    .addOption(stateDirOption("where cli.json lives"))
    .description("Remove a profile")
    .action(async (name: string, o) => (await load()).profileRemove(name, o, io));
}
