// Running a program the way a bot author's shell would, for the example tests: to its end, with its
// exit code and output (asynchronously: the relayer answering it may live in the test's process).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { projectRoot } from "../../../src/paths.ts";

const run = promisify(execFile);

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args` to its end; a non-zero exit is a Result, not a throw. */
export async function exec(file: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Result> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: options.cwd, env: options.env, encoding: "utf8", maxBuffer: 16 * 1024 * 1024, ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** The version of `name` the project's lockfile pins (what CI's npm cache holds). */
export function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(path.join(projectRoot, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };
  return lock.packages[`node_modules/${name}`]!.version;
}
