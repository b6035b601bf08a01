// The pages under test, read as a reader sees them: a page by its path, a `## ` section of it by its
// title (up to the next `## `), and the fenced code blocks of a text by language, in order.
import { readFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../../../src/paths.ts";

/** A page of the repository, by its path from the root (`README.md`, `docs/guides/ci.md`). */
export function page(file: string): string {
  return readFileSync(path.join(projectRoot, file), "utf8");
}

/** The text of the `## <title>` section of `file`, heading included. */
export function section(file: string, title: string): string {
  const text = page(file);
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`${file} has no '## ${title}' section`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start + 1, end === -1 ? undefined : end);
}

/** The fenced code blocks of `text`: language and body, in order. */
export function codeBlocks(text: string): Array<{ lang: string; body: string }> {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}
