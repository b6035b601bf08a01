// `relay review` and its subcommands, added to the program by one line in main.ts. Actions are imported
// only when they run, so `relay --help` never loads Ink or viem's account code.
import { Command, Option } from "commander";
import type { CliIO } from "../io.ts";
import { withOwnerOptions, withSettingsOptions } from "../register/common.ts";

export function registerReview(program: Command, io: CliIO): void {
  const review = withOwnerOptions(
    withSettingsOptions(
      program
        .command("review")
        .description("Decide the requests held for the vault owner: an interactive screen, or the subcommands below"),
    ),
  )
    .addHelpText(
      "after",
      [
        "",
        "Keys on the screen: ↑/↓ or j/k select, enter/→ details, esc/← back, a approve (confirm with y),",
        "r reject (type the reason, enter; then y/n: also cancel the signed intent on-chain, default yes),",
        "R or ctrl-r refresh, ? help, q quit.",
        "",
        "Without a terminal, use the subcommands:",
        "  relay review list --json",
        "  relay review show req_…",
        "  relay review approve req_…",
        '  relay review reject req_… --reason "not an invoice of ours"',
        "",
      ].join("\n"),
    )
    .action(async (_options, command: Command) => (await actions()).reviewInteractive(command.optsWithGlobals(), io));

  review
    .command("list")
    .description("List the requests waiting for the owner's decision")
    .action(async (_options, command: Command) => (await actions()).reviewList(command.optsWithGlobals(), io));

  review
    .command("show")
    .argument("<requestId>", "the held request")
    .description("Show one held request: amounts, USD value, recipient, why it was held, the agents' verdicts")
    .action(async (id: string, _options, command: Command) => (await actions()).reviewShow(id, command.optsWithGlobals(), io));

  review
    .command("approve")
    .argument("<requestId>", "the held request")
    .description("Approve a held request: signs the owner's ReviewApproval and sends it; the relayer then executes it")
    .action(async (id: string, _options, command: Command) => (await actions()).reviewApprove(id, command.optsWithGlobals(), io));

  review
    .command("reject")
    .argument("<requestId>", "the held request")
    .addOption(new Option("--reason <text>", "why it is rejected (the bot sees it)").makeOptionMandatory())
    .option("--no-cancel", "do not also cancel the intent with the owner key (the relayer still cancels it on-chain)")
    .description("Reject a held request with a reason, and cancel its signed intent on the vault")
    .addHelpText(
      "after",
      [
        "",
        "Every rejection is made final on-chain: the relayer cancels the request's intents on the vault",
        "with its own key once it records the rejection. By default this command also sends the vault's",
        "cancelIntent(intentHash) with the owner key (it costs gas), so the cancel does not depend on the",
        "relayer. The node at --rpc-url must answer before the rejection is sent. --no-cancel leaves the",
        "cancel to the relayer. If the owner's cancel fails after the rejection, the command exits 1;",
        "retry it with `relay owner cancel <intentHash>`.",
        "",
      ].join("\n"),
    )
    .action(async (id: string, _options, command: Command) => (await actions()).reviewReject(id, command.optsWithGlobals(), io));
}

function actions() {
  return import("./commands.ts");
}
