// The launcher's contracts step (scripts/toolchain.sh relay_compile_contracts): a checkout whose
// contracts/ is what the shipped artifacts (compiled/) were compiled from gets them laid out in
// artifacts/ without solc; a changed contract is compiled, and going back lays the shipped ones out
// again. solc itself is stood in for by a recording `node` here (test/contracts/shipped-artifacts.test.ts
// compiles for real): what is tested is which way the launcher goes.
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";

const root = mkdtempSync(path.join(tmpdir(), "relay-shipped-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const entry of ["scripts", "contracts", "compiled", "hardhat.config.ts"]) cpSync(path.join(projectRoot, entry), path.join(root, entry), { recursive: true });
symlinkSync(path.join(projectRoot, "node_modules"), path.join(root, "node_modules"));
mkdirSync(path.join(root, ".toolchain"));

// The stand-in for node running Hardhat's build: it records its arguments and leaves a marker artifact.
const calls = path.join(root, "node-calls");
const fakeNode = path.join(root, "fake-node");
writeFileSync(fakeNode, `#!/usr/bin/env bash\necho "$*" >> "${calls}"\nmkdir -p artifacts/contracts && echo solc > artifacts/contracts/solc-ran\n`);
chmodSync(fakeNode, 0o755);

/** Runs relay_compile_contracts in the copy; its stderr. */
function compileStep(): string {
  return execFileSync("bash", ["-c", `. scripts/toolchain.sh && RELAY_NODE="${fakeNode}" relay_compile_contracts 2>&1`], {
    cwd: root,
    env: { ...process.env, RELAY_ROOT: root, RELAY_TOOLCHAIN_DIR: path.join(root, ".toolchain"), RELAY_QUIET_TOOLCHAIN: "" },
    encoding: "utf8",
  });
}
const nodeCalls = () => (existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n") : []);
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const vault = "contracts/ServiceVault.sol/ServiceVault.json";

describe("the launcher's contracts step", () => {
  it("lays the shipped artifacts out where relay reads them, without running solc, when contracts/ matches", () => {
    expect(compileStep()).toBe("");
    expect(nodeCalls()).toEqual([]);
    expect(read(`artifacts/${vault}`)).toBe(read("compiled/ServiceVault.json"));
    expect(read("artifacts/contracts/mocks/MockERC20.sol/MockERC20.json")).toBe(read("compiled/mocks/MockERC20.json"));
    expect(read("artifacts/.relay-build-stamp")).toBe(read("compiled/SOURCES"));
    // A second start finds the stamp and does nothing.
    expect(compileStep()).toBe("");
    expect(nodeCalls()).toEqual([]);
  });

  it("compiles a changed contract with solc, and says how to update the shipped ones", () => {
    appendFileSync(path.join(root, "contracts/mocks/MockNFT.sol"), "\n// a developer's change\n");
    const stderr = compileStep();
    expect(nodeCalls()).toEqual(["node_modules/hardhat/dist/src/cli.js build --quiet"]);
    expect(stderr).toContain("contracts/ differs from the shipped artifacts (compiled/): `npm run compile` updates them");
    expect(read("artifacts/contracts/solc-ran")).toBe("solc\n");
    expect(read("artifacts/.relay-build-stamp")).not.toBe(read("compiled/SOURCES"));
    // Compiled once: the next start reuses that build.
    compileStep();
    expect(nodeCalls()).toHaveLength(1);
  });

  it("lays the shipped artifacts out again when the change is undone, in place of the local build", () => {
    cpSync(path.join(projectRoot, "contracts/mocks/MockNFT.sol"), path.join(root, "contracts/mocks/MockNFT.sol"));
    expect(compileStep()).toBe("");
    expect(nodeCalls()).toHaveLength(1);
    expect(existsSync(path.join(root, "artifacts/contracts/solc-ran"))).toBe(false);
    expect(read(`artifacts/${vault}`)).toBe(read("compiled/ServiceVault.json"));
    expect(read("artifacts/.relay-build-stamp")).toBe(read("compiled/SOURCES"));
  });

  it("counts the compiler settings in the digest: a change to hardhat.config.ts compiles", () => {
    appendFileSync(path.join(root, "hardhat.config.ts"), "\n// settings changed\n");
    compileStep();
    expect(nodeCalls()).toHaveLength(2);
  });
});
