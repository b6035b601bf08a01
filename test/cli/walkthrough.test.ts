// The README's five-minute walkthrough, run as written: its `./bin/relay serve` is started on free
// ports with a temporary state directory, then every `$ ./bin/relay …` line of its console blocks runs
// in order through main(argv, io), and what it prints (stdout, then stderr) must match the README's
// sample, where `…` stands for an id or a hash. A request id the README writes as `req_…` in a command
// is the one the previous commands printed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { field, startLiveRelay, type LiveRelay } from "./support/live.ts";

interface Step {
  command: string;
  expected: string;
}

/** The walkthrough section of the README: its code blocks by language, in order. */
function walkthroughBlocks(): Array<{ lang: string; body: string }> {
  const readme = readFileSync(path.join(projectRoot, "README.md"), "utf8");
  const start = readme.indexOf("## Five-minute walkthrough");
  if (start === -1) throw new Error("README.md has no '## Five-minute walkthrough' section");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** `$ command` lines of the console blocks, each with the output lines below it. */
function stepsOf(blocks: Array<{ lang: string; body: string }>): Step[] {
  const steps: Step[] = [];
  for (const block of blocks.filter((b) => b.lang === "console")) {
    for (const line of block.body.split("\n")) {
      if (line.startsWith("$ ")) steps.push({ command: line.slice(2), expected: "" });
      else if (line !== "") steps.at(-1)!.expected += `${line}\n`;
    }
  }
  return steps;
}

/** Shell words of a command line: spaces split, double quotes group (all the README uses). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** The README's sample as a whole-output pattern: literal text, `…` for any id or hash. */
function samplePattern(expected: string): RegExp {
  const literal = expected.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${literal.join("[0-9A-Za-z_]+")}$`);
}

const blocks = walkthroughBlocks();
const steps = stepsOf(blocks);
let live: LiveRelay;

beforeAll(async () => {
  live = await startLiveRelay("relay-walkthrough-");
});
afterAll(() => live?.stop());

describe("the README's five-minute walkthrough", () => {
  it("starts with `./bin/relay serve` in its own terminal, and drives everything else with ./bin/relay", () => {
    expect(blocks[0]).toEqual({ lang: "sh", body: "./bin/relay serve\n" });
    expect(steps.map((s) => words(s.command).slice(0, 3).join(" "))).toEqual([
      "./bin/relay pay --to",
      "./bin/relay pay --to",
      "./bin/relay review approve",
      "./bin/relay status",
      "./bin/relay vault value",
    ]);
  });

  it("prints what the README shows, command after command, with the exit codes it names", async () => {
    let requestId: string | undefined;
    for (const step of steps) {
      const argv = words(step.command.replaceAll("req_…", requestId ?? "req_…")).slice(1);
      const { code, stdout, stderr } = await live.relay(argv);
      const expectedCode = /^status +pending_review$/m.test(step.expected) ? 4 : 0;
      expect({ command: step.command, code }).toEqual({ command: step.command, code: expectedCode });
      expect(stdout + stderr).toMatch(samplePattern(step.expected));
      const printed = field(stdout, "requestId") ?? /^(req_\w+): /.exec(stdout)?.[1];
      if (requestId !== undefined && printed !== undefined && step.command.includes("req_…")) expect(printed).toBe(requestId);
      requestId = printed ?? requestId;
    }
    // The sample's vault is the devnet's: the same address on every fresh start.
    expect(steps.at(-1)!.expected).toContain(`vault          ${live.manifest.contracts.vault}\n`);
  });
});
