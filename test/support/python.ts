// Python for the tests of the Python client (packages/python): the interpreter, and a virtual
// environment with the package and pytest installed, as a bot author would (`pip install
// ./packages/python`).
//
// The interpreter is RELAY_PYTHON when set, else Debian's /usr/bin/python3, else `python3` on PATH: a
// Python >= 3.10 with its venv module and ensurepip (Debian: `apt-get install python3 python3-venv`;
// scripts/test-deps.sh installs them). A missing or unfit one fails the test with that command; it is
// never skipped. The environment lives in .toolchain/python-venv and is reused while its inputs (the
// interpreter, the package's pyproject.toml and sources, the pytest requirement) are unchanged; pip
// reaches only the package registry (PyPI) for the dependencies.
import { createHash } from "node:crypto";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../../src/paths.ts";

export const pythonPackageDir = path.join(projectRoot, "packages", "python");
const toolchain = process.env.RELAY_TOOLCHAIN_DIR ?? path.join(projectRoot, ".toolchain");
const venvDir = path.join(toolchain, "python-venv");
/** What the test environment installs besides the package. */
export const PYTEST_REQUIREMENT = "pytest>=7";
const execFileAsync = promisify(execFile);
const INSTALL_HINT = "on Debian or Ubuntu: sudo apt-get update && sudo apt-get install -y python3 python3-venv (or run scripts/test-deps.sh as root)";

function candidates(): string[] {
  if (process.env.RELAY_PYTHON) return [process.env.RELAY_PYTHON];
  const onPath = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "").map((dir) => path.join(dir, "python3"));
  return ["/usr/bin/python3", ...onPath];
}

/** `major.minor` of a Python that has venv and ensurepip, or why not. */
function fitness(python: string): { ok: true; version: string } | { ok: false; why: string } {
  try {
    const out = execFileSync(python, ["-c", "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
    const [major, minor] = out.split(".").map(Number);
    if (major! < 3 || (major === 3 && minor! < 10)) return { ok: false, why: `${python} is Python ${out}; the client needs >= 3.10` };
    return { ok: true, version: out };
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "");
    return { ok: false, why: /ensurepip|venv/.test(stderr) ? `${python} has no venv/ensurepip module (Debian ships it in python3-venv)` : `${python} does not run` };
  }
}

/** The interpreter the tests use: its absolute path and version. Throws with the fixing command. */
export function python3(): { path: string; version: string } {
  const reasons: string[] = [];
  for (const candidate of candidates()) {
    if (!existsSync(candidate)) continue;
    const fit = fitness(candidate);
    if (fit.ok) return { path: candidate, version: fit.version };
    reasons.push(fit.why);
  }
  throw new Error(`no Python >= 3.10 with venv for the Python client's tests (${reasons.join("; ") || "no python3 found"}); ${INSTALL_HINT}`);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((entry) => !entry.split(path.sep).includes("__pycache__") && statSync(path.join(dir, entry)).isFile())
    .sort();
}

/** A digest of what the environment is built from. */
function inputsDigest(python: { path: string; version: string }): string {
  const hash = createHash("sha256");
  hash.update(`${realpathSync(python.path)} ${python.version}\n${PYTEST_REQUIREMENT}\n`);
  hash.update(readFileSync(path.join(pythonPackageDir, "pyproject.toml")));
  const src = path.join(pythonPackageDir, "src");
  for (const file of filesUnder(src)) hash.update(`\n${file}\n`).update(readFileSync(path.join(src, file)));
  return hash.digest("hex");
}

/**
 * The environment's python, with relay-client (from packages/python) and pytest installed: reused
 * when built from the same inputs, else built in a fresh folder and moved into place.
 */
export async function pythonVenv(): Promise<{ python: string; reused: boolean }> {
  const interpreter = python3();
  const digest = inputsDigest(interpreter);
  const marker = path.join(venvDir, ".relay-inputs");
  const python = path.join(venvDir, "bin", "python");
  if (existsSync(marker) && readFileSync(marker, "utf8") === digest && existsSync(python)) return { python, reused: true };

  mkdirSync(toolchain, { recursive: true });
  const building = `${venvDir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  try {
    // Asynchronously: the relayer a test starts in its own process keeps answering meanwhile.
    const run = async (file: string, args: string[]): Promise<void> => {
      try {
        await execFileAsync(file, args, { cwd: projectRoot, encoding: "utf8", maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1" } });
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string };
        throw new Error(`${path.basename(file)} ${args.join(" ")} failed:\n${(failed.stderr ?? "").slice(-3000)}${(failed.stdout ?? "").slice(-2000)}`);
      }
    };
    await run(interpreter.path, ["-m", "venv", building]);
    const venvPython = path.join(building, "bin", "python");
    // As the guide says, from the repository's root: pip install ./packages/python (and pytest).
    await run(venvPython, ["-m", "pip", "install", "--quiet", "./packages/python", PYTEST_REQUIREMENT]);
    writeFileSync(path.join(building, ".relay-inputs"), digest);
    rmSync(venvDir, { recursive: true, force: true });
    renameSync(building, venvDir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return { python, reused: false };
}
