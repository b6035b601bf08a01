// Progress while waiting on a request. On a TTY: a spinner with the elapsed time and when the next
// status check happens, redrawn in place on stderr. Without a TTY: one plain line, no animation.
import type { Output } from "./io.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface Progress {
  /** Replace the label (e.g. after each status check). */
  update(label: string): void;
  /** Stop and clear the spinner line. */
  stop(): void;
}

/** Seconds as "42s" or "3m05s". */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

export function startProgress(stderr: Output, label: string, now: () => number = Date.now): Progress {
  if (!stderr.isTTY) {
    stderr.write(`relay: ${label}\n`);
    return { update: () => {}, stop: () => {} };
  }
  const started = now();
  let current = label;
  let frame = 0;
  const draw = () => {
    frame = (frame + 1) % FRAMES.length;
    stderr.write(`\r\x1b[2K${FRAMES[frame]} ${current} ${formatElapsed(now() - started)}`);
  };
  draw();
  const timer = setInterval(draw, 100);
  timer.unref?.();
  return {
    update(next) {
      current = next;
      draw();
    },
    stop() {
      clearInterval(timer);
      stderr.write("\r\x1b[2K");
    },
  };
}
