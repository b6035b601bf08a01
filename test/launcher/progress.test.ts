// First-run progress of the launcher (scripts/toolchain.sh relay_progress): in a CI log a line when
// a phase starts and one when it is done; on a terminal one line that counts the seconds in place
// and is cleared at the end. The phase's own output goes to its log file, not to the screen.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";

const dir = mkdtempSync(path.join(tmpdir(), "relay-progress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const phase = (log: string) =>
  `. "${path.join(projectRoot, "scripts", "toolchain.sh")}"; relay_progress "compiling contracts" "${log}" bash -c 'echo solc says hi; sleep 1.5'`;

describe("relay_progress", () => {
  it("off a terminal: one line as the phase starts, one when it is done, its output in the log", () => {
    const log = path.join(dir, "plain.log");
    const stderr = execFileSync("bash", ["-c", `${phase(log)} 2>&1 >/dev/null`], { encoding: "utf8", env: { ...process.env, RELAY_QUIET_TOOLCHAIN: "" } });
    expect(stderr).toMatch(/^relay: compiling contracts …\nrelay: compiling contracts: done in \d+s\n$/);
    expect(readFileSync(log, "utf8")).toBe("solc says hi\n");
  });

  it("on a terminal: the elapsed seconds counted in place on one line, cleared when done", () => {
    const log = path.join(dir, "tty.log");
    // `script` gives the command a pseudo-terminal; its output is what the terminal received.
    const screen = execFileSync("script", ["-qec", `bash -c '${phase(log).replace(/'/g, "'\\''")}'`, "/dev/null"], { encoding: "utf8", env: { ...process.env, RELAY_QUIET_TOOLCHAIN: "" } });
    expect(screen).toContain("\rrelay: compiling contracts … 0s");
    expect(screen).toContain("\rrelay: compiling contracts … 1s");
    expect(screen).toContain("\r\u001b[K");
    expect(screen).toMatch(/relay: compiling contracts: done in \d+s/);
    expect(screen).not.toContain("solc says hi");
  });

  it("on a terminal, stopping the launcher (Ctrl-C, SIGTERM) stops the phase's command too", async () => {
    const pids = path.join(dir, "pids");
    const script = `echo $$ > ${pids}.launcher; . "${path.join(projectRoot, "scripts", "toolchain.sh")}"; relay_progress "installing" "${path.join(dir, "stop.log")}" bash -c 'echo $$ > ${pids}.phase; exec sleep 60'; echo went on`;
    const child = spawn("script", ["-qec", `bash -c '${script.replace(/'/g, "'\\''")}'`, "/dev/null"], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RELAY_QUIET_TOOLCHAIN: "" } });
    let screen = "";
    child.stdout.on("data", (d: Buffer) => (screen += d.toString()));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const phasePid = await until(() => (existsSync(`${pids}.phase`) ? Number(readFileSync(`${pids}.phase`, "utf8")) : undefined));
    const launcherPid = Number(readFileSync(`${pids}.launcher`, "utf8"));
    process.kill(launcherPid, "SIGTERM");
    await exited;
    expect(alive(phasePid)).toBe(false);
    expect(screen).not.toContain("went on");
  });

  it("RELAY_QUIET_TOOLCHAIN silences it", () => {
    const stderr = execFileSync("bash", ["-c", `${phase(path.join(dir, "quiet.log"))} 2>&1`], { encoding: "utf8", env: { ...process.env, RELAY_QUIET_TOOLCHAIN: "1" } });
    expect(stderr).toBe("");
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined && !Number.isNaN(value)) return value;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
