// The CLI's bundle takes node:process, util, fs, http and child_process through require()
// (scripts/build-cli.ts): Node's ES facade of a built-in reads every export, lazy getters too, which
// loaded process.report, fs.promises and more on every call (and for node:http Node's own undici).
// Checked on the bundle bin/relay runs: no import statement of those five is left in it, and a
// `relay --version` never loads process.report's module, which only that facade's read of the getter
// loaded on that path.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const RELAY = path.join(projectRoot, "bin", "relay");
const DIST = path.join(projectRoot, "dist");

describe("the CLI's bundle", () => {
  it("imports none of the five built-ins whose ES facade loads more than they need, and --version loads no process.report", () => {
    // bin/relay rebuilds the bundle first when its sources changed.
    expect(execFileSync(RELAY, ["--version"], { encoding: "utf8" }).trim()).toMatch(/^\d+\.\d+\.\d+/);

    const chunks = readdirSync(DIST).filter((file) => file.endsWith(".mjs"));
    expect(chunks).toContain("relay.mjs");
    const facadeImports = chunks.flatMap((file) =>
      [...readFileSync(path.join(DIST, file), "utf8").matchAll(/\bimport\s*[^;"'()]*?from\s*["'](node:(?:process|util|fs|http|child_process))["']/g)].map((m) => `${file}: ${m[1]}`),
    );
    expect(facadeImports).toEqual([]);
    // The shims are there: each of those built-ins the bundle uses is required.
    const all = chunks.map((file) => readFileSync(path.join(DIST, file), "utf8")).join("\n");
    for (const name of ["node:process", "node:fs", "node:util"]) expect(all).toContain(`(import.meta.url)("${name}")`);

    const dir = tempDir("relay-bundle-builtins-");
    const list = path.join(dir, "modules.txt");
    const preload = path.join(dir, "list-modules.cjs");
    writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join("\\n")));\n`);
    const version = execFileSync(process.execPath, ["--require", preload, path.join(DIST, "relay.mjs"), "--version"], { cwd: projectRoot, encoding: "utf8" });
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const loaded = readFileSync(list, "utf8").split("\n");
    expect(loaded).toContain("NativeModule process"); // the list is Node's, and node:process was loaded
    expect(loaded).not.toContain("NativeModule internal/process/report");
  });
});
