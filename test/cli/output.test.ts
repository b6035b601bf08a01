// Output formatting, exit codes, client errors as one-line CliErrors, and the waiting progress.
import { describe, expect, it } from "vitest";
import { RelayApiError, RelayUnreachableError, StillPendingError } from "../../packages/client/src/errors.ts";
import { CliError, EXIT } from "../../src/cli/io.ts";
import { cliErrorFromClient, exitCodeForStatus, formatFields } from "../../src/cli/output.ts";
import { formatElapsed, startProgress } from "../../src/cli/progress.ts";

describe("formatFields", () => {
  it("aligns values and leaves out undefined fields", () => {
    expect(formatFields([["status", "approved"], ["reason", undefined], ["txHash", "0xab"]])).toBe("status  approved\ntxHash  0xab\n");
  });
});

describe("exit codes", () => {
  it("are 0 approved, 3 rejected, 4 pending", () => {
    expect([exitCodeForStatus("approved"), exitCodeForStatus("rejected"), exitCodeForStatus("pending_review")]).toEqual([0, 3, 4]);
    expect(EXIT).toEqual({ OK: 0, FAILURE: 1, USAGE: 2, REJECTED: 3, PENDING: 4, UNREACHABLE: 5, INTERRUPTED: 130, TERMINATED: 143 });
  });

  it("map the client's errors to one-line CliErrors", () => {
    const refused = cliErrorFromClient(new RelayApiError({ status: 403, code: "BOT_NOT_ACTIVE", message: "Bot not active" }));
    expect(refused).toBeInstanceOf(CliError);
    expect(refused).toMatchObject({ exitCode: 3, message: "relayer refused: BOT_NOT_ACTIVE: Bot not active" });

    const down = cliErrorFromClient(new RelayUnreachableError("connect ECONNREFUSED", { url: "http://127.0.0.1:9/v1/payments" }));
    expect(down?.exitCode).toBe(5);
    expect(down?.message).toMatch(/^relayer unreachable at http:\/\/127\.0\.0\.1:9 \(connection failed\)/);

    const pending = cliErrorFromClient(new StillPendingError("payment", "abc", { status: "pending_review" }, 3));
    expect(pending).toMatchObject({ exitCode: 4 });
    expect(pending?.message).toMatch(/payment abc is still pending review; check later with `relay status abc`/);

    expect(cliErrorFromClient(new Error("other"))).toBeUndefined();
  });
});

describe("progress", () => {
  it("formats elapsed time", () => {
    expect(formatElapsed(4_999)).toBe("4s");
    expect(formatElapsed(185_000)).toBe("3m05s");
  });

  it("prints one plain line without a TTY, and no spinner frames", () => {
    let written = "";
    const progress = startProgress({ write: (t: string) => (written += t) }, "waiting");
    progress.update("still waiting");
    progress.stop();
    expect(written).toBe("relay: waiting\n");
  });

  it("draws a spinner with the elapsed time in place on a TTY and clears it when stopped", () => {
    let written = "";
    let now = 1_000;
    const progress = startProgress({ write: (t: string) => (written += t), isTTY: true }, "pending review", () => now);
    now += 12_000;
    progress.update("pending review; checking every 30s");
    progress.stop();
    expect(written).toMatch(/^\r\x1b\[2K. pending review 0s/);
    expect(written).toContain("pending review; checking every 30s 12s");
    expect(written.endsWith("\r\x1b[2K")).toBe(true);
    expect(written).not.toContain("\n");
  });
});
