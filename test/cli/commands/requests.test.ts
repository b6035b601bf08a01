// showRequest: a request's state on stdout, the exit code of its status, and the one-line reason on
// stderr when it is held or rejected.
import { describe, expect, it } from "vitest";
import { showRequest } from "../../../src/cli/commands/requests.ts";
import { CliError, type CliIO } from "../../../src/cli/io.ts";

function show(response: Parameters<typeof showRequest>[1]) {
  const out = { stdout: "", stderr: "" };
  const io: CliIO = {
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  let code = 0;
  try {
    showRequest("payment", response, {}, io);
  } catch (error) {
    code = (error as CliError).exitCode;
  }
  return { code, ...out };
}

describe("showRequest", () => {
  it("prints an approved request and exits 0 with nothing on stderr", () => {
    expect(show({ requestId: "req_a", status: "approved", txHash: "0xab" })).toEqual({
      code: 0,
      stdout: "status     approved\nrequestId  req_a\nkind       payment\ntxHash     0xab\n",
      stderr: "",
    });
  });

  it("ends a rejected request with its reason on one stderr line, exit 3", () => {
    const byOwner = show({ requestId: "req_b", status: "rejected", reason: "rejected by the owner: not ours" });
    expect(byOwner.code).toBe(3);
    expect(byOwner.stdout).toMatch(/^reason +rejected by the owner: not ours$/m);
    expect(byOwner.stderr).toBe("relay: payment req_b rejected by the owner: not ours\n");
    expect(show({ requestId: "req_c", status: "rejected", reason: "execution failed on-chain: paused" }).stderr).toBe(
      "relay: payment req_c was rejected: execution failed on-chain: paused\n",
    );
    expect(show({ requestId: "req_d", status: "rejected" }).stderr).toBe("relay: payment req_d was rejected\n");
  });

  it("says how to follow a held request, exit 4", () => {
    const held = show({ requestId: "req_e", status: "pending_review", pollUrl: "/v1/payments/req_e" });
    expect(held.code).toBe(4);
    expect(held.stderr).toBe("relay: held for review; follow it with `relay status req_e --wait`\n");
  });
});
