// Builds the package into dist/ (npm runs it before `npm pack`): the ES module build with its .d.ts,
// then the CommonJS build in dist/cjs/, marked `"type": "commonjs"` by its own package.json.
// tsc rewrites the sources' `.ts` import paths to `.js` in the JavaScript it writes but not in the
// .d.ts files, so those are rewritten here: a consumer's tsc must find `./units.js` → `units.d.ts`.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const dist = join(here, "dist");

rmSync(dist, { recursive: true, force: true });
for (const config of ["tsconfig.build.json", "tsconfig.cjs.json"]) {
  execFileSync(process.execPath, [tsc, "-p", join(here, config)], { stdio: "inherit" });
}
writeFileSync(join(dist, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);

const tsSpecifier = /((?:from\s+|import\()(["']))(\.{1,2}\/[^"']+)\.ts\2/g;
for (const file of readdirSync(dist, { recursive: true, encoding: "utf8" })) {
  if (!file.endsWith(".d.ts")) continue;
  const path = join(dist, file);
  const text = readFileSync(path, "utf8");
  writeFileSync(path, text.replace(tsSpecifier, "$1$3.js$2"));
}
