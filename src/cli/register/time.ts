// Registers `relay time`, `relay time advance <duration>` and `relay time set <time>` (devnet only).
import type { Command } from "commander";
import type { CliIO } from "../io.ts";
import { examples, withSettingsOptions } from "./common.ts";

export function registerTimeCommands(program: Command, io: CliIO): void {
  const load = () => import("../commands/time.ts");
  const time = withSettingsOptions(program.command("time"))
    .description("Show the devnet's chain time; `advance` and `set` move it forward (devnet only)")
    .addHelpText("after", examples("relay time", "relay time advance 24h", "relay time set 2030-01-01T00:00:00Z"))
    .action(async (options) => (await load()).showTime(options, io));
  // The settings options belong to `relay time` and are accepted after the subcommand too
  // (commander reads a parent's options anywhere): the subcommands take them from there.
  time
    .command("advance")
    .argument("<duration>", "how far: 30s, 90m, 24h, 2d, or plain seconds")
    .description("Move the devnet's time forward by <duration> and mine a block (options: see `relay time --help`)")
    .action(async (duration: string, _options, command: Command) => (await load()).advanceTime(duration, command.optsWithGlobals(), io));
  time
    .command("set")
    .argument("<time>", "an ISO-8601 date and time, or unix seconds; after the chain's current time")
    .description("Move the devnet's time forward to <time> and mine a block (options: see `relay time --help`)")
    .action(async (instant: string, _options, command: Command) => (await load()).setTime(instant, command.optsWithGlobals(), io));
}
