// `npm run docs`: writes the generated references under docs/reference/ (the HTTP API from the
// OpenAPI document, the CLI from its help, the client from its sources). `npm run docs -- --check`
// writes nothing and exits 1 naming every page that differs; test/docs/references.test.ts makes the
// same comparison on every `npm test`, so the committed pages cannot drift from the code.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../src/paths.ts";
import { generatedReferences } from "./docs/references.ts";

const check = process.argv.includes("--check");
const stale: string[] = [];
for (const [file, text] of await generatedReferences()) {
  const target = path.join(projectRoot, file);
  let current: string | undefined;
  try {
    current = readFileSync(target, "utf8");
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  stale.push(file);
  if (!check) writeFileSync(target, text);
}
if (check && stale.length > 0) {
  process.stderr.write(`docs: out of date: ${stale.join(", ")} (run npm run docs)\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(stale.length === 0 ? "docs: up to date\n" : `docs: wrote ${stale.join(", ")}\n`);
}
