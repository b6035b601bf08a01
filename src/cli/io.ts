// What a command may touch: its output streams, environment and working directory, and a signal
// that asks long-running commands to stop. Tests pass their own.
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIO {
  stdout: Output;
  stderr: Output;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM (or by a test) to stop `serve` and `devnet`. */
  signal: AbortSignal;
}

/** A failure the user can act on: printed as one line, "relay: <message>", with this exit code. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.FAILURE) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/** Exit codes of every command (README "CLI"). */
/** End the command with `code` and print nothing more (the result is already on stdout). */
export function exitWith(code: number): never {
  throw new CliError("", code);
}

export const EXIT = {
  OK: 0,
  /** Any failure not listed below. */
  FAILURE: 1,
  /** Bad flags, arguments or settings. */
  USAGE: 2,
  /** The relayer refused the request (an API error) or it was `rejected`. */
  REJECTED: 3,
  /** `--wait` timed out while the request was still `pending_review` (also: submitted without --wait and held). */
  PENDING: 4,
  /** No answer from the relayer. */
  UNREACHABLE: 5,
  /** Stopped by Ctrl-C (SIGINT) before it was done: 128 + 2, as shells report it. */
  INTERRUPTED: 130,
  /** Stopped by SIGTERM before it was done: 128 + 15. */
  TERMINATED: 143,
} as const;

/**
 * The reason bin.ts aborts the signal with on SIGINT/SIGTERM: a command stopped by it before it was
 * done ends with the shell's code for that signal (128 + its number: 130 for Ctrl-C, 143 for
 * SIGTERM). A long-running command that was *ready* (serve, devnet) instead shuts down and exits 0.
 */
export class Interrupted extends CliError {
  readonly signalName: "SIGINT" | "SIGTERM";
  constructor(signalName: "SIGINT" | "SIGTERM") {
    super(`interrupted (${signalName})`, signalName === "SIGINT" ? EXIT.INTERRUPTED : EXIT.TERMINATED);
    this.signalName = signalName;
    this.name = "Interrupted";
  }
}

/**
 * Throw when the command was asked to stop: between the steps of a start-up, so that nothing more is
 * started and no "ready" is printed. A signal aborted without an `Interrupted` reason (a test's
 * AbortController) counts as Ctrl-C.
 */
export function throwIfInterrupted(signal: AbortSignal, during: string): void {
  if (!signal.aborted) return;
  const name = signal.reason instanceof Interrupted ? signal.reason.signalName : "SIGINT";
  throw new CliError(`interrupted (${name}) during ${during}; stopped`, new Interrupted(name).exitCode);
}

export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
