// The README's "Write a bot" section shows the core of examples/bot.mjs: every piece of its code block
// (the pieces are separated by `// …` lines) must be in the file word for word, so what the README
// shows is what test/examples/bot.test.ts runs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";

const readme = readFileSync(path.join(projectRoot, "README.md"), "utf8");
const bot = readFileSync(path.join(projectRoot, "examples", "bot.mjs"), "utf8");

/** The text of the `## <title>` section, heading included. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`README.md has no '## ${title}' section`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start + 1, end === -1 ? undefined : end);
}

describe("README: Write a bot", () => {
  it("comes right after the five-minute walkthrough", () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings[headings.indexOf("Five-minute walkthrough") + 1]).toBe("Write a bot");
  });

  it("shows code that is literally in examples/bot.mjs", () => {
    // The section's own text, before its subsections (which show other code, e.g. relay/testing).
    const intro = section("Write a bot").split(/\n### /)[0]!;
    const blocks = [...intro.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(1);
    const pieces = blocks[0]!.split(/^\/\/ …\n/m).filter((piece) => piece !== "");
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) expect(bot).toContain(piece);
    expect(blocks[0]).toContain('from "relay-client"');
  });

  it("installs the package from its tarball, and no longer points bots at src/client", () => {
    expect(section("Write a bot")).toContain("npm pack ./packages/client");
    expect(section("Write a bot")).toMatch(/npm install \S*relay-client-0\.1\.0\.tgz viem/);
    expect(readme).not.toContain("src/client");
  });
});
