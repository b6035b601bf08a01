// Raw HTTP for the hostile-input tests: requests written byte by byte to a socket (slow bodies,
// slow headers, bytes no HTTP client would send), and the strict check that an answer is exactly
// the `{error, code, details?}` envelope with the status its code has in errors.ts.
import { connect } from "node:net";
import { expect } from "vitest";
import { errorTable, isErrorCode } from "../../../src/errors.ts";

/** What came back on a raw connection before the server closed it (or the client gave up). */
export interface RawAnswer {
  /** The HTTP status, or undefined when nothing parseable came back. */
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  /** True when the server closed the connection; false when the client gave up first. */
  closedByServer: boolean;
  /** Bytes of `trickle` written before the connection ended. */
  trickled: number;
  elapsedMs: number;
}

export interface RawOptions {
  /** Sent at once on connect. */
  head: string | Buffer;
  /** Then sent one byte every `everyMs`, as long as the connection is open. */
  trickle?: string;
  everyMs?: number;
  /** The client gives up (and destroys the socket) after this long. */
  giveUpMs: number;
}

/** Opens a connection to `url`'s host and port, writes `head`, trickles, and collects the answer. */
export function rawExchange(url: string, options: RawOptions): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let trickled = 0;
    let closedByServer = true;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, options.giveUpMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(giveUp);
      if (timer) clearInterval(timer);
      resolve({ ...parseRaw(Buffer.concat(chunks).toString("utf8")), closedByServer, trickled, elapsedMs: Date.now() - started });
    });
    socket.write(options.head);
    const trickle = options.trickle;
    if (trickle !== undefined) {
      timer = setInterval(() => {
        if (socket.destroyed || trickled >= trickle.length) return clearInterval(timer);
        socket.write(trickle[trickled]!);
        trickled++;
      }, options.everyMs ?? 1_000);
    }
  });
}

function parseRaw(text: string): Pick<RawAnswer, "status" | "headers" | "body"> {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return { status: undefined, headers: {}, body: text };
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  return { status: Number.isInteger(status) ? status : undefined, headers, body: text.slice(end + 4) };
}

/**
 * Why `text` (answered with `status`) is not exactly an error envelope, or undefined when it is:
 * a JSON object with exactly `error`, `code` and optionally `details` (all non-empty strings),
 * a known code whose status in errors.ts is `status`, and nothing that looks like a stack trace or
 * a URL. Returned as a reason rather than asserted, so a fuzzer can report the failing case.
 */
export function envelopeProblem(status: number, text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `body is not JSON: ${text.slice(0, 120)}`;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body is not a JSON object";
  const record = body as Record<string, unknown>;
  const keys = Object.keys(record).sort().join(",");
  if (keys !== "code,error" && keys !== "code,details,error") return `body keys are ${keys}`;
  for (const key of Object.keys(record)) {
    if (typeof record[key] !== "string" || record[key] === "") return `${key} is not a non-empty string`;
  }
  if (!isErrorCode(record.code)) return `unknown code ${String(record.code)}`;
  if (errorTable[record.code].status !== status) return `code ${record.code} answered with status ${status}`;
  if (/https?:\/\//i.test(text)) return "body contains a URL";
  if (/\bat .+:\d+:\d+|node:internal|\.ts:\d+/.test(text)) return "body contains a stack trace";
  return undefined;
}

/** Asserts `text` is exactly an envelope (see `envelopeProblem`) with `code` when given. */
export function expectEnvelope(status: number, text: string, code?: string): void {
  expect(envelopeProblem(status, text), text).toBeUndefined();
  if (code !== undefined) expect(JSON.parse(text).code).toBe(code);
}
