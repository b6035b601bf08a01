// `relay completion bash|zsh`: the bash script, sourced in a real bash, completes subcommands and
// options from the commander program (so a new command or flag is completed without editing it),
// and skips an option's value when it walks the words typed so far.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.ts";
import { runMain } from "../helpers/cli.ts";

async function relay(argv: string[]) {
  const run = runMain(argv);
  const code = await run.done;
  return { code, ...run.output };
}

let dir: string;
let script: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-completion-"));
  const { code, stdout } = await relay(["completion", "bash"]);
  expect(code).toBe(EXIT.OK);
  script = path.join(dir, "relay.bash");
  writeFileSync(script, stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash completes for the words typed so far (the last one being completed). */
function complete(...words: string[]): string[] {
  const array = words.map((w) => `'${w}'`).join(" ");
  const out = execFileSync("bash", ["--norc", "--noprofile", "-c", `source "$0"; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _relay_complete; printf '%s\\n' "\${COMPREPLY[@]}"`, script], { encoding: "utf8" });
  return out.split("\n").filter((line) => line !== "");
}

describe("relay completion bash", () => {
  it("registers itself for `relay` with complete -F", () => {
    const out = execFileSync("bash", ["--norc", "--noprofile", "-c", 'source "$0"; complete -p relay', script], { encoding: "utf8" });
    expect(out.trim()).toBe("complete -o default -F _relay_complete relay");
  });

  it("completes the top-level commands, and a subcommand from its prefix", () => {
    expect(complete("relay", "")).toEqual(expect.arrayContaining(["serve", "devnet", "pay", "owner", "review", "completion", "keys"]));
    expect(complete("relay", "ow")).toEqual(["owner"]);
    expect(complete("relay", "owner", "b")).toEqual(["bot", "blacklist"]);
    expect(complete("relay", "owner", "bot", "")).toEqual(["add", "update", "remove", "show", "help"]);
  });

  it("completes a command's options, after other options and their values", () => {
    expect(complete("relay", "pay", "--am")).toEqual(["--amount"]);
    expect(complete("relay", "pay", "--to", "0x976EA74026E726554dB657fA54763abd0C3a0aa9", "--tok")).toEqual(["--token"]);
    expect(complete("relay", "serve", "--rpc-")).toEqual(["--rpc-port", "--rpc-url"]);
    expect(complete("relay", "--ver")).toEqual(["--version"]);
  });

  it("a subcommand also completes its parents' options (read with optsWithGlobals), not the root's", () => {
    expect(complete("relay", "review", "list", "--state")).toEqual(["--state-dir"]);
    expect(complete("relay", "review", "reject", "--rea")).toEqual(["--reason"]);
    expect(complete("relay", "pay", "--vers")).toEqual([]);
  });

  it("an option's value is not taken for a command: `relay pay --memo owner --w` completes pay's options", () => {
    expect(complete("relay", "pay", "--memo", "owner", "--wa")).toEqual(["--wait"]);
  });

  it("the value of an option is left to the shell (no command names offered)", () => {
    expect(complete("relay", "pay", "--token", "")).toEqual([]);
  });
});

describe("relay completion zsh", () => {
  it("is the same functions loaded through zsh's bashcompinit", async () => {
    const { code, stdout } = await relay(["completion", "zsh"]);
    expect(code).toBe(EXIT.OK);
    expect(stdout.split("\n")[0]).toBe("#compdef relay");
    expect(stdout).toContain("autoload -U +X bashcompinit && bashcompinit");
    expect(stdout).toContain("complete -o default -F _relay_complete relay");
    // The shell-neutral part parses as a shell script (zsh is not installed here to run it).
    writeFileSync(path.join(dir, "relay.zsh"), stdout);
    execFileSync("bash", ["-n", path.join(dir, "relay.zsh")]);
  });
});

describe("relay completion <other>", () => {
  it("is a usage error naming the shells", async () => {
    const { code, stderr } = await relay(["completion", "fish"]);
    expect(code).toBe(EXIT.USAGE);
    expect(stderr).toBe("relay: command-argument value 'fish' is invalid for argument 'shell'. Allowed choices are bash, zsh.\n");
  });
});
