// The commands the docs show, run as written from where they say, beside the README's walkthrough
// (test/cli/walkthrough.test.ts) and the bot authors' install and run (test/examples/bot.test.ts):
// every relay command line in a code block uses only flags its command has (the time-travel session of
// the bot authors' guide is run by test/cli/time-travel.test.ts); the CI guide's "by hand"
// script starts relay, waits for it, reads the manifest and stops it with exit 0.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { codeBlocks, page, section } from "./support/markdown.ts";

const run = promisify(execFile);
const pages = ["README.md", ...readdirSync(path.join(projectRoot, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md") && !f.startsWith("reference")).map((f) => `docs/${f}`)];

/** Shell words of a command line: spaces split, double quotes group. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** The help of each command, by its words (`owner bot add`), from the generated CLI reference. */
const helpOf = new Map<string, string>(
  page("docs/reference/cli.md")
    .split(/^## relay/m)
    .slice(1)
    .map((part) => [part.slice(0, part.indexOf("\n")).trim(), part]),
);

describe("every relay command in the docs' code blocks", () => {
  const lines = pages.flatMap((file) =>
    codeBlocks(page(file))
      .filter((block) => ["sh", "console", ""].includes(block.lang))
      .flatMap((block) => block.body.split("\n"))
      .map((line) => line.replace(/^\$ /, "").replace(/\s+#.*$/, "").trim())
      .filter((line) => /^(\.\/bin\/)?relay /.test(line))
      .map((line) => ({ file, line })),
  );

  it("are found (the walkthrough, time travel, CI, several relayers, reviews)", () => {
    expect(lines.length).toBeGreaterThan(15);
  });

  it("use only flags their command's --help lists", () => {
    for (const { file, line } of lines) {
      const argv = words(line).slice(1);
      let command = "";
      for (let i = 1; i <= argv.length && helpOf.has(argv.slice(0, i).join(" ")); i++) command = argv.slice(0, i).join(" ");
      expect({ file, line, known: helpOf.has(command) && command !== "" }).toEqual({ file, line, known: true });
      for (const flag of argv.filter((word) => word.startsWith("--")).map((word) => word.split("=")[0]!)) {
        expect({ file, line, flag, listed: new RegExp(`\\s${flag}[\\s,]`).test(helpOf.get(command)!) }).toEqual({ file, line, flag, listed: true });
      }
    }
  });
});

// The bot authors' guide's time-travel session is run as written, by bash, on a devnet already used,
// by test/cli/time-travel.test.ts (it reads it from the page).

describe("the CI guide: relay in the background, by hand", () => {
  let temp: string;
  beforeAll(() => {
    temp = mkdtempSync(path.join(tmpdir(), "relay-docs-ci-"));
  });
  afterAll(() => {
    if (temp === undefined) return;
    // Only if the script did not stop it (a failure midway): the relay it started, by the pid its
    // state directory's claim holds.
    const stateDir = path.join(temp, "relay");
    for (const file of existsSync(stateDir) ? readdirSync(stateDir).filter((name) => name.includes(".lock.")) : []) {
      const { pid } = JSON.parse(readFileSync(path.join(stateDir, file), "utf8")) as { pid?: number };
      if (pid !== undefined && pid !== process.pid) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    rmSync(temp, { recursive: true, force: true });
  });

  it("starts relay serve, waits until it is ready, reads the devnet's vault, stops it with exit 0", { timeout: 300_000 }, async () => {
    const [script] = codeBlocks(section("docs/guides/ci.md", "A bot's CI: relay in a pipeline")).filter((b) => b.lang === "sh");
    // As written from the clone's root; only its /tmp/ files are in a temporary folder of their own.
    const block = script!.body.replaceAll("/tmp/", `${temp}/`);
    expect(block).not.toBe(script!.body);
    const { stdout } = await run("bash", ["--norc", "-e", "-c", block], { cwd: projectRoot, encoding: "utf8", timeout: 280_000 });
    expect(stdout).toMatch(/^0x[0-9a-fA-F]{40}\n$/);
  });
});
