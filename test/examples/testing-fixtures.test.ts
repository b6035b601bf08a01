// The per-test isolation a bot author gets from relay/testing, as their own suite would use it: a
// fresh folder whose package.json depends on this repository (`"relay": "file:<repo>"`, linked) and
// on the packed client package with viem, holding examples/testing/'s three test files, each run by
// its own framework (vitest, jest, and node:test under a real Node 20). Each file starts one relay;
// its second test proves the first test's payment gone: the recipient's balance read on-chain is 0,
// the relayer answers NOT_FOUND for the request, and the same payment is made again.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { node20, nodeMajor } from "../support/node20.ts";
import { exec as execToEnd, lockedVersion } from "./support/programs.ts";

/** Each program of a bot's own run, given ten minutes at most (an npm install on a cold cache). */
const exec = (file: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) => execToEnd(file, args, { ...options, timeoutMs: 600_000 });

const examples = path.join(projectRoot, "examples", "testing");
const modules = path.join(projectRoot, "node_modules");

/** This environment without the variables vitest sets for its own workers: the bot's runner is a run of its own. */
function withoutVitest(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_ENV" && name !== "TEST"));
}

let work: string;
let app: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "relay-testing-fixtures-"));
  app = path.join(work, "my-bot");
  const pack = await exec("npm", ["pack", path.join(projectRoot, "packages", "client"), "--pack-destination", work, "--json"], { cwd: work });
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = path.join(work, (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]!.filename);
  await exec("mkdir", [app], { cwd: work });
  // jest runs the ES-module test file as it is: no transform.
  writeFileSync(path.join(app, "package.json"), `${JSON.stringify({ name: "my-bot", private: true, type: "module", jest: { transform: {} } }, null, 2)}\n`);
  const install = await exec(
    "npm",
    ["install", `relay@file:${projectRoot}`, tarball, `viem@${lockedVersion("viem")}`, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
    { cwd: app },
  );
  expect(install.code, install.stderr).toBe(0);
  for (const file of readdirSync(examples)) copyFileSync(path.join(examples, file), path.join(app, file));
}, 300_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("relay/testing's fixtures in a bot's own suite: a payment made in one test is absent in the next", () => {
  it("vitest (relay/testing/vitest)", async () => {
    const reportFile = path.join(work, "vitest.json");
    const args = [path.join(modules, "vitest", "vitest.mjs"), "run", "--root", app, "--reporter=json", "--outputFile", reportFile, "payments.vitest.test.mjs"];
    const result = await exec(process.execPath, args, { cwd: app, env: withoutVitest() });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as { numPassedTests: number; numFailedTests: number; numTotalTests: number };
    expect(report).toMatchObject({ numTotalTests: 2, numPassedTests: 2, numFailedTests: 0 });
  }, 600_000);

  it("jest (relay/testing/jest)", async () => {
    const jest = path.join(modules, "jest", "bin", "jest.js");
    const args = ["--experimental-vm-modules", "--disable-warning=ExperimentalWarning", jest, "--rootDir", app, "--json", "payments.jest.test.mjs"];
    const result = await exec(process.execPath, args, { cwd: app, env: withoutVitest() });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { numPassedTests: number; numFailedTests: number; numTotalTests: number };
    expect(report).toMatchObject({ numTotalTests: 2, numPassedTests: 2, numFailedTests: 0 });
  }, 600_000);

  it("node:test under Node 20 (relay/testing/node-test)", async () => {
    const node = node20();
    expect(nodeMajor(node)).toBe(20);
    const result = await exec(node, ["--test", "--test-reporter=tap", "payments.node-test.test.mjs"], { cwd: app, env: withoutVitest() });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^# pass 2$/m);
    expect(result.stdout).toMatch(/^# fail 0$/m);
  }, 600_000);
});
