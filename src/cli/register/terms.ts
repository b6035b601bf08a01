// Registers `relay terms status` and `relay terms accept`.
import type { Command } from "commander";
import type { CliIO } from "../io.ts";
import { examples, withOwnerOptions, withSettingsOptions } from "./common.ts";

export function registerTermsCommands(program: Command, io: CliIO): void {
  const load = () => import("../commands/terms.ts");
  const terms = program
    .command("terms")
    .description("The relayer's terms of service, which a vault's owner accepts before its intents run")
    .addHelpText("after", examples("relay terms status", "relay terms status 0x…", "relay terms accept"));
  withOwnerOptions(withSettingsOptions(terms.command("status")))
    .argument("[wallet]", "the wallet to ask about (default: the owner key's)")
    .description("Whether the wallet has accepted the relayer's terms")
    .action(async (wallet: string | undefined, o) => (await load()).termsStatus(wallet, o, io));
  withOwnerOptions(withSettingsOptions(terms.command("accept")))
    .description("Sign the relayer's current terms with the owner key and send the acceptance")
    .action(async (o) => (await load()).termsAccept(o, io));
}
