// Colour in human output: request statuses green/yellow/red on a terminal; none when stdout is not
// a terminal, when NO_COLOR is set, with TERM=dumb, or with --json.
import { describe, expect, it } from "vitest";
import { showRequest } from "../../src/cli/commands/requests.ts";
import type { CliIO } from "../../src/cli/io.ts";

const ESC = "\u001b[";

function show(status: "approved" | "pending_review" | "rejected", options: { tty: boolean; env?: Record<string, string>; json?: boolean }) {
  let stdout = "";
  const io: CliIO = {
    stdout: { write: (t: string) => (stdout += t), isTTY: options.tty },
    stderr: { write: () => true, isTTY: options.tty },
    env: options.env ?? {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  try {
    showRequest("payment", { requestId: "req_a", status }, { json: options.json }, io);
  } catch {
    // held and rejected end with their exit code; the output is what is checked here
  }
  return stdout;
}

describe("status colours", () => {
  it("on a terminal: approved green, pending_review yellow, rejected red, the rest plain", () => {
    expect(show("approved", { tty: true })).toBe(`status     ${ESC}32mapproved${ESC}39m\nrequestId  req_a\nkind       payment\n`);
    expect(show("pending_review", { tty: true })).toContain(`${ESC}33mpending_review${ESC}39m`);
    expect(show("rejected", { tty: true })).toContain(`${ESC}31mrejected${ESC}39m`);
  });

  it("no colour when stdout is not a terminal", () => {
    expect(show("approved", { tty: false })).not.toContain(ESC);
  });

  it("no colour when NO_COLOR is set (to anything but the empty string), or TERM is dumb", () => {
    expect(show("approved", { tty: true, env: { NO_COLOR: "1" } })).not.toContain(ESC);
    expect(show("approved", { tty: true, env: { TERM: "dumb" } })).not.toContain(ESC);
    expect(show("approved", { tty: true, env: { NO_COLOR: "" } })).toContain(ESC);
  });

  it("no colour in --json output, even on a terminal", () => {
    const out = show("approved", { tty: true, json: true });
    expect(out).not.toContain(ESC);
    expect(JSON.parse(out)).toMatchObject({ status: "approved" });
  });
});
