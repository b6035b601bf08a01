// The compiled contracts the repository ships (compiled/) are what the pinned solc makes of contracts/
// today: a fresh clone runs them without compiling (scripts/toolchain.sh), so a change to contracts/
// committed without `npm run compile` would otherwise run yesterday's vault.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { SHIPPED_FIELDS, SOURCES_STAMP, shippedFiles } from "../../scripts/ship-contracts.ts";

const compiledDir = path.join(projectRoot, "compiled");
const UPDATE = "contracts/ changed without the shipped artifacts: run `npm run compile` and commit compiled/";

/** compiled/'s contract files, as relative path → content. */
function shipped(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(compiledDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === SOURCES_STAMP) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(compiledDir, full).split(path.sep).join("/"), readFileSync(full, "utf8"));
  }
  return files;
}

describe("the shipped compiled contracts", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "relay-recompile-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("record the digest of today's contracts/ and compiler settings, which the toolchain compares", () => {
    const digest = execFileSync("bash", ["-c", '. scripts/toolchain.sh && relay_contracts_hash'], {
      cwd: projectRoot,
      env: { ...process.env, RELAY_ROOT: projectRoot },
      encoding: "utf8",
    }).trim();
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(path.join(compiledDir, SOURCES_STAMP), "utf8").trim(), UPDATE).toBe(digest);
  });

  it("hold only what relay reads of each contract", () => {
    const files = shipped();
    expect(files.size).toBeGreaterThan(10);
    for (const [name, text] of files) {
      const artifact = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(artifact), name).toEqual([...SHIPPED_FIELDS]);
      // mocks/MockERC20.json: contract MockERC20 of contracts/mocks/MockERC20.sol, as readArtifact names it.
      expect(`contracts/${name.replace(/\.json$/, ".sol")}`, name).toBe(artifact.sourceName);
      expect(path.basename(name, ".json"), name).toBe(artifact.contractName);
    }
    // The deployable ones carry code: the vault, and what the devnet deploys.
    for (const name of ["ServiceVault.json", "ServiceVaultFactory.json", "ServiceRegistry.json", "mocks/MockERC20.json"]) {
      const artifact = JSON.parse(files.get(name)!) as { bytecode: string; deployedBytecode: string };
      expect(artifact.bytecode, name).toMatch(/^0x[0-9a-f]{200,}$/);
      expect(artifact.deployedBytecode, name).toMatch(/^0x[0-9a-f]{200,}$/);
    }
  });

  it("are byte for byte what the pinned solc compiles contracts/ to", { timeout: 900_000 }, async () => {
    // A compile of its own, into a scratch directory with no cache: nothing of artifacts/ is reused.
    const [{ createHardhatRuntimeEnvironment }, { default: config }] = await Promise.all([import("hardhat/hre"), import("../../hardhat.config.ts")]);
    const artifacts = path.join(scratch, "artifacts");
    const hre = await createHardhatRuntimeEnvironment(
      { ...config, paths: { ...config.paths, artifacts, cache: path.join(scratch, "cache") } },
      {},
      projectRoot,
    );
    await hre.tasks.getTask("build").run({ quiet: true });

    const fresh = shippedFiles(artifacts);
    const files = shipped();
    expect([...files.keys()].sort(), UPDATE).toEqual([...fresh.keys()].sort());
    for (const [name, text] of fresh) expect(files.get(name) === text, `${name}: ${UPDATE}`).toBe(true);
  });
});
