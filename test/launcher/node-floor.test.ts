// The launcher's Node floor, run for real: bin/relay started with a Node below the floor first on
// PATH provisions Node 24 from the npm registry (into a temporary RELAY_TOOLCHAIN_DIR, never the
// repository's .toolchain/) and then runs the command; with a Node at or above the floor first on
// PATH it uses that Node and fetches nothing.
//
// Neither run may reinstall the repository's node_modules: the deps stamp names the Node version, so
// the provisioned Node is pinned (RELAY_NODE_VERSION) to the version the stamp was written under, and
// the stamp is checked unchanged afterwards. The Node at or above the floor is the one running these
// tests (scripts/run.sh's choice, the stamp's Node): the provisioned .toolchain/node, or the machine's.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { node20 } from "../support/node20.ts";

const run = promisify(execFile);
const RELAY = join(projectRoot, "bin", "relay");
const STAMP = join(projectRoot, "node_modules", ".relay-install-stamp");
const REPO_NODE = join(projectRoot, ".toolchain", "node", "bin", "node");
/** The Node the repository's dependencies were installed under, that runs this test. */
const CURRENT_NODE = process.execPath;
const VERSION = (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { version: string }).version;

/** The Node version the repository's dependencies were installed under ("v24.21.0-<hash>" → "24.21.0"). */
function stampedNodeVersion(): string {
  return readFileSync(STAMP, "utf8").trim().split("-")[0]!.slice(1);
}

/** PATH with `nodeDir` first and nothing of this checkout's toolchain (scripts/run.sh puts it first). */
function pathWith(nodeDir: string): string {
  const rest = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && !dir.startsWith(join(projectRoot, ".toolchain")) && !dir.startsWith(join(projectRoot, "node_modules")));
  return [nodeDir, ...rest].join(delimiter);
}

const temps: string[] = [];
function freshToolchainDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "relay-toolchain-"));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function launch(nodeDir: string, toolchainDir: string) {
  const stampBefore = readFileSync(STAMP, "utf8");
  const { stdout, stderr } = await run(RELAY, ["--version"], {
    encoding: "utf8",
    timeout: 240_000,
    env: {
      ...process.env,
      PATH: pathWith(nodeDir),
      RELAY_TOOLCHAIN_DIR: toolchainDir,
      RELAY_NODE_VERSION: stampedNodeVersion(),
      RELAY_QUIET_TOOLCHAIN: "",
    },
  });
  // Same Node version, same lockfile: the repository's dependencies were not reinstalled.
  expect(readFileSync(STAMP, "utf8")).toBe(stampBefore);
  return { stdout, stderr };
}

describe("bin/relay's Node floor", () => {
  it("the repository is installed under the Node running this test (so neither run reinstalls it)", () => {
    expect(process.versions.node).toBe(stampedNodeVersion());
  });

  // Provisioning fetches the stamp's Node: a 24.x unless this checkout runs on the machine's own Node.
  it.skipIf(!stampedNodeVersion().startsWith("24."))("with Node 20 first on PATH, provisions Node 24 into RELAY_TOOLCHAIN_DIR and then runs the command", async () => {
    const old = node20();
    const toolchain = freshToolchainDir();
    const repoToolchain = () => (existsSync(REPO_NODE) ? statSync(REPO_NODE).mtimeMs : "absent");
    const repoToolchainBefore = repoToolchain();
    const { stdout, stderr } = await launch(dirname(old), toolchain);

    expect(stderr).toMatch(/relay: Node v20\.\d+\.\d+ cannot run relay \(older than 22; relay needs >= 22\.18\); provisioning Node 24/);
    expect(stderr).toMatch(/relay: fetching node-\w+-\w+@24\.\d+\.\d+ from the npm registry/);
    const provisioned = join(toolchain, "node", "bin", "node");
    expect(existsSync(provisioned)).toBe(true);
    const { stdout: version } = await run(provisioned, ["-v"], { encoding: "utf8" });
    expect(version.trim()).toMatch(/^v24\.\d+\.\d+$/);
    expect(stderr).toContain(`relay: Node ${version.trim()} installed in ${toolchain}/node`);
    expect(stdout.trim()).toBe(VERSION);
    // The repository's own toolchain is untouched.
    expect(repoToolchain()).toBe(repoToolchainBefore);
  }, 300_000);

  it("with a Node at or above the floor first on PATH, uses it and fetches nothing", async () => {
    const toolchain = freshToolchainDir();
    const { stdout, stderr } = await launch(dirname(CURRENT_NODE), toolchain);

    expect(stderr).not.toMatch(/fetching|provisioning|installing|compiling/);
    expect(existsSync(join(toolchain, "node"))).toBe(false);
    expect(stdout.trim()).toBe(VERSION);
  }, 120_000);
});
