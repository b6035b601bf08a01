// Driving a real terminal for the review screen's acceptance test: a tmux server on its own socket
// (so it never touches the user's sessions), keys sent by name or as literal text, the screen read
// back with capture-pane.
import { execFileSync, spawnSync } from "node:child_process";

/** Fails (does not skip) when tmux is missing: `npm test` installs it (scripts/test-deps.sh). */
export function requireTmux(env: NodeJS.ProcessEnv = process.env): void {
  const found = spawnSync("/bin/sh", ["-c", "command -v tmux"], { encoding: "utf8", env });
  if (found.status !== 0) {
    throw new Error("tmux is not installed, and the relay review terminal test needs it (bash scripts/test-deps.sh installs it; on Debian: apt-get install -y tmux)");
  }
}

export interface Terminal {
  /** Send keys by tmux name ("Enter", "Down", "C-r") or single characters. */
  keys(...keys: string[]): void;
  /** Type text literally. */
  type(text: string): void;
  screen(): string;
  /** Wait until the screen matches; the error shows the last screen. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

/** Start `command` in a detached tmux session of `width`×`height` on a private socket. */
export function openTerminal(command: string[], options: { env: Record<string, string>; cwd: string; width?: number; height?: number }): Terminal {
  const socket = `relay-review-test-${process.pid}-${Date.now()}`;
  // The tmux server (private socket) inherits this environment: without CI, so that Ink renders as
  // it does for a person in a terminal (Ink prints only the last frame when CI is set).
  const { CI: _ci, ...env } = process.env;
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8", cwd: options.cwd, env });
  const envArgs = Object.entries(options.env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
  tmux("-f", "/dev/null", "new-session", "-d", "-s", "review", "-x", String(options.width ?? 180), "-y", String(options.height ?? 50), ...envArgs, "--", ...command);
  // Keep the pane after the program ends, so a crash stays readable.
  tmux("set-option", "-t", "review", "remain-on-exit", "on");
  const screen = (): string => tmux("capture-pane", "-p", "-t", "review");
  return {
    keys: (...keys) => void tmux("send-keys", "-t", "review", ...keys),
    type: (text) => void tmux("send-keys", "-t", "review", "-l", text),
    screen,
    async waitFor(pattern, timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const text = screen();
        if (pattern.test(text)) return text;
        if (Date.now() > end) throw new Error(`the terminal never showed ${pattern}; it shows:\n${text}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close() {
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    },
  };
}
