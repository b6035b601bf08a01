// What commands print and which exit code they end with: results on stdout (text or `--json`),
// request statuses mapped to exit codes, and the relay client's errors turned into one-line CliErrors.
import { RelayApiError, RelayUnreachableError, StillPendingError } from "../../packages/client/src/errors.ts";
import type { RequestStatus } from "../../packages/client/src/types.ts";
import { CliError, EXIT, type CliIO } from "./io.ts";
import { visible } from "./safe-text.ts";

/**
 * One line of text output: a key, its value (left out when undefined), and optionally a style applied
 * to the value once it is made visible (a colour: the style's escape codes are the only ones printed).
 */
export type Field = readonly [key: string, value: string | undefined, style?: (shown: string) => string];

/**
 * Print a result: `value` as one line of JSON with `--json` (JSON escapes control characters itself;
 * main's boundary escapes the rest), else the text lines (aligned `key  value`).
 */
export function printResult(io: CliIO, options: { json?: boolean }, value: unknown, lines: readonly Field[]): void {
  if (options.json) {
    io.stdout.write(`${JSON.stringify(value, jsonReplacer)}\n`);
    return;
  }
  io.stdout.write(formatFields(lines));
}

/**
 * `key  value` lines with the values aligned; fields whose value is undefined are left out. Values are
 * made visible (safe-text.ts): a value may be a bot's or the relayer's words, and one value is one line.
 */
export function formatFields(lines: readonly Field[]): string {
  const shown = lines.filter((line): line is readonly [string, string, ((shown: string) => string)?] => line[1] !== undefined);
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  return shown.map(([key, value, style]) => `${key.padEnd(width)}  ${style === undefined ? visible(value) : style(visible(value))}\n`).join("");
}

/** bigints as decimal strings. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** 0 approved, 3 rejected, 4 still pending review. */
export function exitCodeForStatus(status: RequestStatus): number {
  if (status === "approved") return EXIT.OK;
  if (status === "rejected") return EXIT.REJECTED;
  return EXIT.PENDING;
}

/**
 * A one-line CliError for an error of the relay client (API error → 3, unreachable → 5, still
 * pending → 4); undefined for anything else.
 */
export function cliErrorFromClient(error: unknown): CliError | undefined {
  if (error instanceof RelayApiError) {
    return new CliError(`relayer refused: ${visible(error.message.split("\n")[0] ?? "")}`, EXIT.REJECTED);
  }
  if (error instanceof RelayUnreachableError) return relayerUnreachable(error);
  if (error instanceof StillPendingError) {
    return new CliError(`${error.kind} ${error.requestId} is still pending review; check later with \`relay status ${error.requestId}\``, EXIT.PENDING);
  }
  return undefined;
}

/**
 * The relayer did not answer: exit 5 with the README's question. `chainToo` names a chain that did not
 * answer either (`relay pay` reads the chain first: with nothing running, both are down).
 */
export function relayerUnreachable(error: RelayUnreachableError, chainToo?: string): CliError {
  const why = error.timedOut ? "no answer in time" : "connection failed";
  const also = chainToo === undefined ? "" : `, nor ${chainToo}`;
  const flags = chainToo === undefined ? "--relayer-url, RELAY_URL" : "--relayer-url, RELAY_URL; --rpc-url, RELAY_RPC_URL";
  return new CliError(`relayer unreachable at ${origin(error.url)} (${why})${also}; is \`relay serve\` running? (${flags})`, EXIT.UNREACHABLE);
}

function origin(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}
