// The README and docs/ as a reader finds them: a README short enough to read, with the two commands
// and no pointer to a file a clone lacks; every page reachable from the contents page; every link
// between them landing on a file that exists and, with a #fragment, on one of its headings.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { codeBlocks, page } from "./support/markdown.ts";

/** Every page: the README and each Markdown file under docs/. */
const pages = ["README.md", ...readdirSync(path.join(projectRoot, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)].sort();

/** The page's links to local files: `[text](target)`, outside code blocks and inline code. */
function localLinks(file: string): string[] {
  let text = page(file);
  for (const block of codeBlocks(text)) text = text.replace(block.body, "");
  text = text.replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  return new Set([...page(file).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));
}

/** A link's target as a path from the root, and its fragment. */
function resolve(from: string, target: string): { file: string; fragment?: string } {
  const [where, fragment] = target.split("#") as [string, string | undefined];
  const file = where === "" ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), where));
  return { file, fragment };
}

describe("README.md", () => {
  const readme = page("README.md");

  it("is at most 250 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  });

  it("gives the two commands of a fresh clone first", () => {
    const [first] = codeBlocks(readme);
    expect(first!.body).toMatch(/^\.\/bin\/relay serve .*\nnpm test .*\n$/);
  });

  it("points at no file a clone lacks", () => {
    expect(readme).not.toMatch(/\.\.\/shared|SPEC\.md|DESIGN\.md/);
    for (const target of localLinks("README.md")) expect(existsSync(path.join(projectRoot, resolve("README.md", target).file)), target).toBe(true);
  });

  it("gives each reader a path into docs/: bot authors, vault owners, operators and CI, contributors", () => {
    const paths = [...readme.matchAll(/^- \*\*(You [^*]+)\*\* (.*)$/gm)].map((m) => [m[1], /\]\((docs\/[^)#]+)/.exec(m[2]!)?.[1]]);
    expect(paths).toEqual([
      ["You write a bot.", "docs/guides/bot-authors.md"],
      ["You own a vault.", "docs/guides/vault-owners.md"],
      ["You run relay, or its CI.", "docs/guides/operators.md"],
      ["You work on relay.", "docs/contributing.md"],
    ]);
  });
});

describe("docs/", () => {
  it("has a contents page that links every other page", () => {
    const linked = new Set(localLinks("docs/README.md").map((target) => resolve("docs/README.md", target).file));
    const unlinked = pages.filter((file) => file.startsWith("docs/") && file !== "docs/README.md" && !linked.has(file));
    expect(unlinked).toEqual([]);
  });

  it("names no file a clone lacks", () => {
    for (const file of pages) expect({ file, shared: page(file).includes("../shared") }).toEqual({ file, shared: false });
  });

  for (const file of pages) {
    it(`${file}: every link lands on a file, and on a heading of it`, () => {
      for (const target of localLinks(file)) {
        const { file: linked, fragment } = resolve(file, target);
        expect({ target, exists: existsSync(path.join(projectRoot, linked)) }).toEqual({ target, exists: true });
        if (fragment !== undefined && linked.endsWith(".md")) expect([...anchorsOf(linked)], `${file} → ${target}`).toContain(fragment);
      }
    });
  }
});
