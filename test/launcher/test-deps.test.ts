// scripts/test-deps.sh, the first half of `npm test`, run for real: where tmux, PostgreSQL, nginx,
// curl and a Python with venv are all present it says and changes nothing; where they are missing and cannot be installed (a user
// who is not root, no apt-get), it stops the run naming the command that installs each, and installs
// nothing. (Its installing paths, Debian's apt as root and PostgreSQL from the npm registry, change the
// machine: they are shown once in a throwaway root, see the report of issue 31; the tests below must
// leave the machine as they found it.)
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { postgresBinDir } from "../support/postgres.ts";
import { python3 } from "../support/python.ts";

const SCRIPT = path.join(projectRoot, "scripts", "test-deps.sh");

const temps: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A bin directory holding only the named programs (links to the machine's): a PATH without tmux. */
function binWith(programs: string[]): string {
  const dir = tempDir("relay-bin-");
  for (const name of programs) {
    const found = spawnSync("/bin/sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
    if (found === "") throw new Error(`${name} is not on this machine's PATH`);
    symlinkSync(found, path.join(dir, name));
  }
  chmodSync(dir, 0o755);
  return dir;
}

/** As root, the command runs as `nobody` (a user who cannot install); otherwise as the current user. */
function unprivileged(): string[] {
  if (process.getuid?.() !== 0) return [];
  const setpriv = spawnSync("/bin/sh", ["-c", "command -v setpriv"], { encoding: "utf8" }).stdout.trim();
  return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"];
}

/**
 * The script copied into a directory any user may read: run as `nobody`, the checkout itself may sit
 * where that user cannot reach (a clone under a 0700 temporary directory, as `mktemp -d` makes). It
 * reads nothing beside itself: every run below names its RELAY_TOOLCHAIN_DIR.
 */
function readableScript(): string {
  const dir = tempDir("relay-script-");
  chmodSync(dir, 0o755);
  const copy = path.join(dir, "test-deps.sh");
  copyFileSync(SCRIPT, copy);
  chmodSync(copy, 0o755);
  return copy;
}

function runScript(env: NodeJS.ProcessEnv, prefix: string[] = []) {
  const [program, ...args] = [...prefix, "/bin/bash", prefix.length > 0 ? readableScript() : SCRIPT];
  const run = spawnSync(program!, args, { encoding: "utf8", env, timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("scripts/test-deps.sh", () => {
  it("says and installs nothing where tmux, PostgreSQL, nginx, curl and Python are all present", () => {
    // `npm test` ran it before this file: whatever was missing is installed by now.
    const toolchain = tempDir("relay-toolchain-");
    const run = runScript({ ...process.env, RELAY_TOOLCHAIN_DIR: toolchain });
    expect(run, run.stderr).toMatchObject({ status: 0, stdout: "", stderr: "" });
    expect(readdirSync(toolchain).filter((name) => !name.startsWith("."))).toEqual([]);
  });

  it("where it cannot install them, fails naming the command that does, and installs nothing", () => {
    const toolchain = tempDir("relay-toolchain-");
    chmodSync(toolchain, 0o777); // the lock file, written by the unprivileged user
    // No tmux, curl or apt-get on PATH; PostgreSQL and nginx sent where there is none.
    const bin = binWith(["id", "mkdir", "flock", "dirname"]);
    const nowhere = path.join(tempDir("relay-nowhere-"), "none");
    const run = runScript(
      { PATH: bin, HOME: toolchain, RELAY_TOOLCHAIN_DIR: toolchain, RELAY_PG_BIN: nowhere, RELAY_NGINX: path.join(nowhere, "nginx"), RELAY_PYTHON: path.join(nowhere, "python3") },
      unprivileged(),
    );
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("the tests need tmux postgresql nginx curl python3 python3-venv, which could not be installed here");
    expect(run.stderr).toContain(`RELAY_PG_BIN=${nowhere} holds no postgres and initdb`);
    expect(run.stderr).toContain(`RELAY_NGINX=${nowhere}/nginx is not an executable`);
    expect(run.stderr).toContain(`RELAY_PYTHON=${nowhere}/python3 is not a Python >= 3.10 with venv and ensurepip`);
    expect(run.stderr).toContain("sudo apt-get update && sudo apt-get install -y tmux postgresql nginx curl python3 python3-venv");
    expect(run.stderr).not.toMatch(/installing/);
    expect(existsSync(path.join(toolchain, "postgres"))).toBe(false);
  });

  it("where only tmux is missing, names only tmux", () => {
    const toolchain = tempDir("relay-toolchain-");
    chmodSync(toolchain, 0o777);
    // PostgreSQL, nginx and curl where the tests find them; no tmux and no apt-get on PATH.
    const bin = binWith(["id", "mkdir", "flock", "dirname", "curl"]);
    const nginx = existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : spawnSync("/bin/sh", ["-c", "command -v nginx"], { encoding: "utf8" }).stdout.trim();
    const env = { PATH: bin, HOME: toolchain, RELAY_TOOLCHAIN_DIR: toolchain, RELAY_PG_BIN: postgresBinDir(), RELAY_NGINX: process.env.RELAY_NGINX ?? nginx, RELAY_PYTHON: python3().path };
    const run = runScript(env, unprivileged());
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain("the tests need tmux, which could not be installed here");
    expect(run.stderr).toMatch(/sudo apt-get install -y tmux\n/);
    expect(run.stderr).not.toMatch(/RELAY_PG_BIN|RELAY_NGINX|RELAY_PYTHON/);
    expect(existsSync(path.join(toolchain, "postgres"))).toBe(false);
  });

  it("where only Python is unfit (RELAY_PYTHON names none), names python3 python3-venv and the setting", () => {
    const toolchain = tempDir("relay-toolchain-");
    chmodSync(toolchain, 0o777);
    // tmux, PostgreSQL, nginx and curl where the tests find them; no apt-get on PATH; RELAY_PYTHON is
    // the interpreter the Python client's tests would use (test/support/python.ts), and it is not there.
    const bin = binWith(["id", "mkdir", "flock", "dirname", "curl", "tmux"]);
    const nginx = existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : spawnSync("/bin/sh", ["-c", "command -v nginx"], { encoding: "utf8" }).stdout.trim();
    const python = path.join(tempDir("relay-nowhere-"), "python3");
    const env = { PATH: bin, HOME: toolchain, RELAY_TOOLCHAIN_DIR: toolchain, RELAY_PG_BIN: postgresBinDir(), RELAY_NGINX: process.env.RELAY_NGINX ?? nginx, RELAY_PYTHON: python };
    const run = runScript(env, unprivileged());
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain("the tests need python3 python3-venv, which could not be installed here");
    expect(run.stderr).toContain(`RELAY_PYTHON=${python} is not a Python >= 3.10 with venv and ensurepip`);
    expect(run.stderr).toMatch(/sudo apt-get install -y python3 python3-venv\n/);
    expect(run.stderr).not.toMatch(/installing|RELAY_PG_BIN|RELAY_NGINX/);
  });
});
