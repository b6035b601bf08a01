// The launcher's warm path (scripts/toolchain.sh relay_toolchain_ready): every `relay` call asks it
// whether the last full toolchain check still holds, instead of starting Node to probe features and
// hashing every source. It must say no whenever that check could now answer differently: a source,
// contract or lockfile edited, a file added or removed, a step's stamp gone, the Node it chose
// replaced, another `node` first on PATH. Run on a made-up checkout in a temporary directory, so that
// nothing here touches this repository's files.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";

const TOOLCHAIN = path.join(projectRoot, "scripts", "toolchain.sh");
const INPUTS = [
  "package.json",
  "package-lock.json",
  "hardhat.config.ts",
  "contracts/ServiceVault.sol",
  "src/cli/main.ts",
  "packages/client/src/http.ts",
  "scripts/build-cli.ts",
  "scripts/toolchain.sh",
];
const STAMPS = ["node_modules/.relay-install-stamp", "artifacts/.relay-build-stamp", "dist/.relay-build-stamp"];

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout whose files are a minute old, a fake Node, and a toolchain directory marked ready. */
function warmCheckout() {
  const base = mkdtempSync(path.join(tmpdir(), "relay-warm-"));
  temps.push(base);
  const root = path.join(base, "checkout");
  const toolchain = path.join(base, "toolchain");
  const nodeDir = path.join(base, "bin");
  const node = path.join(nodeDir, "node");
  mkdirSync(toolchain, { recursive: true });
  mkdirSync(nodeDir, { recursive: true });
  writeFileSync(node, "#!/bin/sh\necho v24.0.0\n");
  chmodSync(node, 0o755);
  const aMinuteAgo = new Date(Date.now() - 60_000);
  for (const file of [...INPUTS, ...STAMPS]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), `${file}\n`);
  }
  for (const file of [...INPUTS, "contracts", "src", "src/cli", "packages/client/src", "scripts"]) utimesSync(path.join(root, file), aMinuteAgo, aMinuteAgo);
  const env = { ...process.env, PATH: `${nodeDir}:/usr/bin:/bin`, RELAY_ROOT: root, RELAY_TOOLCHAIN_DIR: toolchain };
  // The stamp a passing full check leaves (relay_ensure_toolchain), written by the launcher's own function.
  execFileSync("bash", ["-c", `. "${TOOLCHAIN}"; : >"${toolchain}/began"; relay_write_ready "${node}" "${toolchain}/began"`], { env });
  return { root, toolchain, node, nodeDir, env };
}

/** The Node the warm path would run, or undefined when it sends the call through the full check. */
function warmNode(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return execFileSync("bash", ["-c", `. "${TOOLCHAIN}"; relay_toolchain_ready && echo "$RELAY_NODE"`], { env, encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

describe("relay_toolchain_ready", () => {
  it("a checkout unchanged since the last full check runs at once, with the Node that check chose", () => {
    const c = warmCheckout();
    expect(warmNode(c.env)).toBe(c.node);
  });

  it.each(INPUTS)("an edit of %s sends the call through the full check", (file) => {
    const c = warmCheckout();
    writeFileSync(path.join(c.root, file), "changed\n");
    expect(warmNode(c.env)).toBeUndefined();
  });

  it("a source file added or removed sends the call through the full check", () => {
    const added = warmCheckout();
    writeFileSync(path.join(added.root, "src/cli/new-command.ts"), "export {};\n");
    expect(warmNode(added.env)).toBeUndefined();
    const removed = warmCheckout();
    unlinkSync(path.join(removed.root, "src/cli/main.ts"));
    expect(warmNode(removed.env)).toBeUndefined();
  });

  it.each(STAMPS)("without %s (a step never done or undone) the full check runs", (stamp) => {
    const c = warmCheckout();
    unlinkSync(path.join(c.root, stamp));
    expect(warmNode(c.env)).toBeUndefined();
  });

  it("a Node replaced in place, or another node first on PATH, is looked at afresh", () => {
    const replaced = warmCheckout();
    writeFileSync(replaced.node, "#!/bin/sh\necho v20.0.0 # another build\n");
    expect(warmNode(replaced.env)).toBeUndefined();

    const other = warmCheckout();
    const otherDir = path.join(path.dirname(other.nodeDir), "other-bin");
    mkdirSync(otherDir);
    writeFileSync(path.join(otherDir, "node"), "#!/bin/sh\n");
    chmodSync(path.join(otherDir, "node"), 0o755);
    expect(warmNode({ ...other.env, PATH: `${otherDir}:${other.env.PATH}` })).toBeUndefined();
  });

  it("a stamp of another checkout, or no stamp, is not taken", () => {
    const c = warmCheckout();
    const elsewhere = warmCheckout();
    expect(warmNode({ ...c.env, RELAY_TOOLCHAIN_DIR: elsewhere.toolchain })).toBeUndefined();
    rmSync(path.join(c.toolchain, "ready"));
    expect(warmNode(c.env)).toBeUndefined();
  });
});
