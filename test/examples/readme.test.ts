// The bot authors' guide (docs/guides/bot-authors.md, linked from the README right after its
// walkthrough) shows the core of examples/bot.mjs: every piece of its code block (the pieces are
// separated by `// …` lines) must be in the file word for word, so what the guide shows is what
// test/examples/bot.test.ts runs. That test also runs the guide's shell commands as written.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { codeBlocks, page, section } from "../docs/support/markdown.ts";

const GUIDE = "docs/guides/bot-authors.md";
const bot = readFileSync(path.join(projectRoot, "examples", "bot.mjs"), "utf8");

describe("the guide's 'Write a bot'", () => {
  it("is the README's first pointer after the five-minute walkthrough", () => {
    const readme = page("README.md");
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    const next = headings[headings.indexOf("Five-minute walkthrough") + 1]!;
    expect(section("README.md", next)).toMatch(/^- \*\*You write a bot\.\*\* \[Writing a bot\]\(docs\/guides\/bot-authors\.md\)/m);
    expect(section(GUIDE, "Write a bot")).toBeTruthy();
  });

  it("shows code that is literally in examples/bot.mjs", () => {
    const blocks = codeBlocks(section(GUIDE, "Write a bot")).filter((block) => block.lang === "js");
    expect(blocks).toHaveLength(1);
    const pieces = blocks[0]!.body.split(/^\/\/ …\n/m).filter((piece) => piece !== "");
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) expect(bot).toContain(piece);
    expect(blocks[0]!.body).toContain('from "relay-client"');
  });

  it("starts from an empty folder: packs the clone's client, installs the tarball and viem, copies the bot", () => {
    const [install] = codeBlocks(section(GUIDE, "Write a bot")).filter((block) => block.lang === "sh");
    const commands = install!.body.split("\n").map((line) => line.replace(/\s+#.*$/, "")).filter((line) => line !== "");
    expect(commands).toEqual([
      "relay=$PWD/relay",
      "mkdir my-bot && cd my-bot",
      "npm init -y",
      'npm pack "$relay/packages/client"',
      "npm install ./relay-client-0.1.0.tgz viem",
      'cp "$relay/examples/bot.mjs" .',
    ]);
  });

  it("no longer points bots at src/client, nor at files a clone lacks", () => {
    for (const file of ["README.md", GUIDE]) {
      expect(page(file)).not.toContain("src/client");
      expect(page(file)).not.toContain("../shared");
    }
  });
});
