// A real Node.js 20 binary for the tests that must prove something runs (or is refused) on the
// oldest Node a bot author may have: the machine's own `node` when it is a 20.x (as on CI), else
// Node 20 fetched once from the npm registry's per-platform package into .toolchain/node20/.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { tmpdir } from "node:os";

const ROOT = resolve(import.meta.dirname, "../..");
const CACHED = join(ROOT, ".toolchain", "node20");

/** The major version of the node binary at `path`, or undefined when it does not run. */
export function nodeMajor(path: string): number | undefined {
  try {
    const version = execFileSync(path, ["-p", "process.versions.node"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return Number(version.split(".")[0]);
  } catch {
    return undefined;
  }
}

/** Absolute path of a Node 20 binary: the machine's when it is 20.x, else a provisioned one. */
export function node20(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "" || dir.startsWith(join(ROOT, ".toolchain"))) continue;
    const candidate = join(dir, "node");
    if (existsSync(candidate) && nodeMajor(candidate) === 20) return candidate;
  }
  const cached = join(CACHED, "bin", "node");
  if (existsSync(cached) && nodeMajor(cached) === 20) return cached;
  return fetchNode20(cached);
}

function fetchNode20(target: string): string {
  const os = process.platform === "darwin" ? "darwin" : "linux";
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  const work = mkdtempSync(join(tmpdir(), "relay-node20-"));
  try {
    execFileSync("npm", ["pack", `node-${os}-${arch}@20`, "--silent"], { cwd: work, stdio: ["ignore", "ignore", "inherit"] });
    const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
    if (tarball === undefined) throw new Error("npm pack produced no tarball for Node 20");
    execFileSync("tar", ["-xzf", tarball], { cwd: work });
    mkdirSync(join(ROOT, ".toolchain"), { recursive: true });
    rmSync(CACHED, { recursive: true, force: true });
    renameSync(join(work, "package"), CACHED);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (nodeMajor(target) !== 20) throw new Error(`the Node 20 fetched into ${CACHED} does not run here`);
  return target;
}
