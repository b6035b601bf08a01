// Running the CLI in tests: in-process through main(argv, io), or as a real process via bin/relay.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import type { CliIO } from "../../src/cli/io.ts";
import { projectRoot } from "../../src/paths.ts";

export interface Captured {
  stdout: string;
  stderr: string;
}

export interface InProcessRun {
  output: Captured;
  /** Resolves with the exit code once main returns. */
  done: Promise<number>;
  stop(): void;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export function runMain(argv: string[], env: Record<string, string | undefined> = {}): InProcessRun {
  const controller = new AbortController();
  const output: Captured = { stdout: "", stderr: "" };
  const io: CliIO = {
    stdout: { write: (t: string) => (output.stdout += t) },
    stderr: { write: (t: string) => (output.stderr += t) },
    env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
  const done = main(argv, io);
  return {
    output,
    done,
    stop: () => controller.abort(),
    waitFor: (pattern, timeoutMs = 60_000) => pollUntil(() => pattern.test(output.stderr), done, output, timeoutMs),
  };
}

export interface SpawnedRelay {
  child: ChildProcess;
  output: Captured;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export function spawnRelay(args: string[], env: Record<string, string> = {}): SpawnedRelay {
  const child = spawn(path.join(projectRoot, "bin", "relay"), args, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: Captured = { stdout: "", stderr: "" };
  child.stdout!.on("data", (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output,
    exited,
    waitFor: (pattern, timeoutMs = 120_000) =>
      pollUntil(() => pattern.test(output.stderr), exited.then(() => -1), output, timeoutMs),
  };
}

async function pollUntil(check: () => boolean, ended: Promise<unknown>, output: Captured, timeoutMs: number): Promise<void> {
  let finished = false;
  void ended.then(() => (finished = true));
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (finished) throw new Error(`process ended before the expected output; stderr:\n${output.stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting; stderr so far:\n${output.stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
