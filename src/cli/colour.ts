// Colour in human output: only on a terminal, never with --json, and never when NO_COLOR is set to
// anything non-empty (https://no-color.org) or TERM is "dumb". Request statuses are the words
// coloured: green approved, yellow pending_review, red rejected.
import type { Output } from "./io.ts";

type Env = Readonly<Record<string, string | undefined>>;

const SGR = { green: 32, yellow: 33, red: 31 } as const;
export type Colour = keyof typeof SGR;

/** Whether text written to `out` may carry colour. */
export function colourOn(out: Output, env: Env, options: { json?: boolean } = {}): boolean {
  if (out.isTTY !== true || options.json === true) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.TERM !== "dumb";
}

/** `text` in `colour` when `on`, else as it is. */
export function paint(text: string, colour: Colour, on: boolean): string {
  return on ? `\u001b[${SGR[colour]}m${text}\u001b[39m` : text;
}

const STATUS_COLOUR: Readonly<Record<string, Colour>> = { approved: "green", pending_review: "yellow", rejected: "red" };

/** A request status word, coloured for its meaning when `on`. */
export function paintStatus(status: string, on: boolean): string {
  const colour = STATUS_COLOUR[status];
  return colour === undefined ? status : paint(status, colour, on);
}
