// Text that a bot or a stranger chose (a memo, metadata, a protocol name, a label, a reason, a token's
// symbol read from a contract the bot picked, an error echoed by the API) must never drive the
// terminal that prints it: an erase-line code could fake the "Action:" line, `ESC[8m` could hide
// "approve unlimited USDC", a bidi override could reorder what the owner reads, a zero-width character
// could disguise one address as another, a newline could start a fake line. Such characters are
// written as escapes instead, in the notation JSON uses (`\u001b`, `\u009b`, `\u202e`, `\n`): the
// reader sees that they are there and which they are, and JSON output stays valid JSON that decodes
// to the original text.
//
// Two layers use it. Every value a command or the review screen shows goes through `visible` (the
// formatters in output.ts and review/format.ts, review/describe.ts, the review screen's Text). And
// main() writes everything through `visibleOutput`, which lets through only the CLI's own sequences
// (the colours of colour.ts, the spinner's redraw of progress.ts, the lines' newlines), so a value a
// command forgot still cannot move the cursor, erase, hide or reorder anything.
import type { Output } from "./io.ts";

// C0 controls, DEL and C1 controls (the 8-bit CSI 0x9b among them); the soft hyphen; the Arabic
// letter mark; the Mongolian vowel separator; zero-width spaces and joiners, left-to-right and
// right-to-left marks; the line and paragraph separators; the bidi embeddings, overrides and
// isolates; the word joiner and invisible operators; the bidi deprecated format characters; the
// byte order mark; the interlinear annotation marks; the Unicode tag characters (invisible).
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;
const HAS_HIDDEN = new RegExp(HIDDEN.source);

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escape(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  // A tag character is a surrogate pair: each half is written, as JSON writes characters past U+FFFF.
  return char.split("").map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
}

/** `text` with every control, bidi and invisible character written as an escape; no newline survives. */
export function visible(text: string): string {
  return HAS_HIDDEN.test(text) ? text.replace(HIDDEN, escape) : text;
}

// The CLI's own sequences: the colours paint() writes (a foreground colour and its reset: they
// cannot hide or move anything), and the spinner's "back to the line's start, erase it" that begins
// each of its writes.
// eslint-disable-next-line no-control-regex
const COLOUR = /\u001b\[(?:3[123]|39)m/g;
const REDRAW = "\r\u001b[2K";

/**
 * What main() lets reach the terminal: `visible`, except for newlines, the colours of colour.ts and
 * a spinner's redraw at the start of a write.
 */
export function visibleOutput(text: string): string {
  if (!HAS_HIDDEN.test(text)) return text;
  const redraw = text.startsWith(REDRAW);
  const rest = redraw ? text.slice(REDRAW.length) : text;
  const kept = rest.split(COLOUR);
  const colours = rest.match(COLOUR) ?? [];
  const shown = kept.map((part) => part.split("\n").map(visible).join("\n"));
  return (redraw ? REDRAW : "") + shown.map((part, i) => part + (colours[i] ?? "")).join("");
}

/** `out`, with everything written through `visibleOutput`. */
export function visibleStream(out: Output): Output {
  const guarded: Output = { write: (text: string) => out.write(visibleOutput(String(text))) };
  if (out.isTTY !== undefined) guarded.isTTY = out.isTTY;
  return guarded;
}

/** Every string in `value` (an object or array, deeply) through `visible`; other values as they are. */
export function visibleDeep<T>(value: T): T {
  if (typeof value === "string") return visible(value) as T;
  if (Array.isArray(value)) return value.map(visibleDeep) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visibleDeep(item)])) as T;
  }
  return value;
}
