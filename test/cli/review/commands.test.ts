// `relay review` through main(): the refusal without a terminal, and the non-interactive twin against
// a scripted relayer that answers the sign-in and the owner routes in order.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../../src/cli/io.ts";
import { runMain } from "../../helpers/cli.ts";
import { startScriptedServer, type ScriptedServer, type Step } from "../../client/support/scripted-server.ts";
import { SPENDER, USDC, heldApprove, heldPayment } from "./support/memory-source.ts";

const OWNER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const OWNER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

let server: ScriptedServer;
let stateDir: string;
beforeAll(async () => {
  server = await startScriptedServer();
  stateDir = mkdtempSync(path.join(tmpdir(), "relay-review-"));
});
afterAll(async () => {
  await server.close();
  rmSync(stateDir, { recursive: true, force: true });
});

const signIn: Step[] = [
  { status: 200, body: { nonce: "abcdefgh12345678", expiresAt: "2099-01-01T00:00:00Z" } },
  { status: 200, body: { token: "session-1", address: OWNER, expiresAt: "2099-01-01T00:00:00Z" } },
];

async function review(args: string[], ...steps: Step[]) {
  server.script(...signIn, ...steps);
  server.received.length = 0;
  const run = runMain(["review", ...args, "--relayer-url", server.url, "--owner-key", OWNER_KEY, "--chain-id", "84532", "--state-dir", stateDir]);
  const code = await run.done;
  return { code, ...run.output };
}

describe("relay review", () => {
  it("without a terminal, names the non-interactive commands and exits non-zero", async () => {
    const { code, stdout, stderr } = await review([]);
    expect(code).toBe(EXIT.USAGE);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^relay: relay review needs an interactive terminal; use `relay review list`.*reject <id> --reason <text>`.*--json\)\n$/);
    expect(server.received).toEqual([]);
  });

  it("list signs in with SIWE and prints one line per review", async () => {
    const { code, stdout } = await review(["list"], { status: 200, body: { reviews: [heldPayment("req_a", 5), heldPayment("req_b", 7)] } });
    expect(code).toBe(EXIT.OK);
    expect(stdout.split("\n")[0]).toMatch(/^ID\s+KIND/);
    expect(stdout).toMatch(/^req_b\s+payment/m);
    const [nonce, login, list] = server.received;
    expect(nonce!.url).toBe("/v1/auth/nonce");
    const { message } = JSON.parse(login!.body) as { message: string };
    expect(message).toContain(OWNER);
    expect(message).toContain("Chain ID: 84532");
    expect(list!.url).toBe("/v1/reviews?chainId=84532");
    expect(list!.headers.authorization).toBe("Bearer session-1");
  });

  it("list --json prints the relayer's list", async () => {
    const reviews = [heldPayment("req_a", 5)];
    const { code, stdout } = await review(["list", "--json"], { status: 200, body: { reviews } });
    expect(code).toBe(EXIT.OK);
    expect(JSON.parse(stdout)).toEqual({ reviews });
  });

  it("show prints the detail of one review", async () => {
    const { code, stdout } = await review(["show", "req_a"], { status: 200, body: heldPayment("req_a", 5, { memo: "invoice 9" }) });
    expect(code).toBe(EXIT.OK);
    expect(stdout).toMatch(/^Memo: +invoice 9$/m);
    expect(server.received.at(-1)!.url).toBe("/v1/reviews/req_a");
  });

  it("show prints the bot's off-chain fields, with terminal control characters made visible", async () => {
    const item = heldPayment("req_i", 4, {
      invoiceId: "INV-2024-0042",
      orderId: "order_9f8e",
      recipientLabel: "Acme\u001b[2J Data",
      resourceUrl: "https://api.example.com/reports/42",
      x402Funding: { network: "base-sepolia", amount: "4000000", maxTimeoutSeconds: 60, extra: { name: "USDC" }, tags: ["a"] },
    });
    const { code, stdout } = await review(["show", "req_i"], { status: 200, body: item });
    expect(code).toBe(EXIT.OK);
    expect(stdout).toMatch(/^Invoice: +INV-2024-0042$/m);
    expect(stdout).toMatch(/^Order: +order_9f8e$/m);
    expect(stdout).toMatch(/^Label: +Acme\\u001b\[2J Data \(the bot's label for the recipient, not verified\)$/m);
    expect(stdout).not.toContain("\u001b");
    expect(stdout).toMatch(/^Resource: +https:\/\/api\.example\.com\/reports\/42$/m);
    expect(stdout).toMatch(/^x402 funding: +network: base-sepolia\n +amount: 4000000\n +maxTimeoutSeconds: 60\n +extra\.name: USDC\n +tags\[0\]: a$/m);
  });

  describe("a bot's words that try to drive the owner's terminal", () => {
    // An erase-line that would redraw the "Action:" line, a concealed span hiding the real action, the
    // 8-bit CSI, a right-to-left override and a newline that would start a fake line.
    const hostile = {
      memo: "rent\u001b[2K\rAction: pay 1 USDC",
      metadata: { "note\u001b[8m": "\u001b[8mapprove unlimited USDC", "x\u009b2J": "a\u202eb", multi: "one\nAction: pay 1 USDC" },
    };
    // No raw control, bidi or invisible character (a line's own newline excepted).
    // eslint-disable-next-line no-control-regex
    const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;

    it("show prints the memo, metadata and an execute's protocolName with every control character visible, one line each", async () => {
      const { code, stdout } = await review(["show", "req_h"], { status: 200, body: heldPayment("req_h", 5, hostile) });
      expect(code).toBe(EXIT.OK);
      expect(stdout).not.toMatch(RAW);
      expect(stdout).toMatch(/^Memo: +rent\\u001b\[2K\\rAction: pay 1 USDC$/m);
      expect(stdout).toMatch(/^ {2}note\\u001b\[8m: +\\u001b\[8mapprove unlimited USDC$/m);
      expect(stdout).toMatch(/^ {2}x\\u009b2J: +a\\u202eb$/m);
      expect(stdout).toMatch(/^ {2}multi: +one\\nAction: pay 1 USDC$/m);
      // The only Action line is the relayer's own.
      expect(stdout.match(/^Action:/gm)).toEqual(["Action:"]);
      expect(stdout).toMatch(/^Action: +pay 5 USDC to 0x7099…79C8$/m);

      const execute = { ...heldApprove("req_x", 20_000_000_000n), protocolName: "Uniswap\u001b[2K\r\u001b[8m\u202e" };
      const shown = await review(["show", "req_x"], { status: 200, body: execute });
      expect(shown.code).toBe(EXIT.OK);
      expect(shown.stdout).not.toMatch(RAW);
      expect(shown.stdout).toMatch(/^Action: +call 0x036C…CF7e \(Uniswap\\u001b\[2K\\r\\u001b\[8m\\u202e\): approve\(spender 0x90F7…b906, amount 20,000 USDC\)$/m);
    });

    it("list prints them visibly too, one line per review; --json keeps the original text", async () => {
      const execute = { ...heldApprove("req_x", 20_000_000_000n), protocolName: "Uni\u001b[2K\nreq_fake" };
      const reviews = [heldPayment("req_h", 5, hostile), execute];
      const { code, stdout } = await review(["list"], { status: 200, body: { reviews } });
      expect(code).toBe(EXIT.OK);
      expect(stdout).not.toMatch(RAW);
      expect(stdout.trimEnd().split("\n")).toHaveLength(3);
      expect(stdout).toMatch(/^req_x +execute +call 0x036C…CF7e \(Uni\\u001b\[2K\\nreq_fake\)/m);

      const json = await review(["list", "--json"], { status: 200, body: { reviews } });
      expect(json.stdout).not.toMatch(RAW);
      expect(JSON.parse(json.stdout)).toEqual({ reviews });
    });

    it("the relayer's error details are one visible line", async () => {
      const { code, stderr } = await review(["show", "req_h"], {
        status: 404,
        body: { error: "not found", code: "NOT_FOUND", details: "no review req_h\u001b[2K\r\u009b1A" },
      });
      expect(code).toBe(EXIT.REJECTED);
      expect(stderr).not.toMatch(RAW);
      expect(stderr).toBe("relay: relayer refused: NOT_FOUND: not found (no review req_h\\u001b[2K\\r\\u009b1A)\n");
    });
  });

  it("show prints an execute's decoded call: the function, the spender, the amount in human units, and what leaves the vault", async () => {
    const item = heldApprove("req_e", 20_000_000_000n, { outflows: [{ token: USDC, amount: "20000000000", usd: "20000000000" }] });
    const { code, stdout } = await review(["show", "req_e"], { status: 200, body: item });
    expect(code).toBe(EXIT.OK);
    expect(stdout).toMatch(/^Action: +call 0x036C…CF7e \(USDC\): approve\(spender 0x90F7…b906, amount 20,000 USDC\)$/m);
    expect(stdout).toMatch(/^Function: +approve\(address,uint256\)$/m);
    expect(stdout).toMatch(new RegExp(`^  spender: +${SPENDER}$`, "m"));
    expect(stdout).toMatch(/^  amount: +20,000 USDC \(20000000000 base units\)$/m);
    expect(stdout).toMatch(/^Moves out of the vault: 20,000 USDC \(\$20,000\.00\)$/m);
    expect(stdout).toMatch(/^Contract: +0x036CbD53842c5426634e7929541eC2318f3dCF7e$/m);
  });

  it("show says nothing about outflows when the relayer gives none, and 'unlimited' for a 2^256−1 approval", async () => {
    const { code, stdout } = await review(["show", "req_e"], { status: 200, body: heldApprove("req_e", 2n ** 256n - 1n) });
    expect(code).toBe(EXIT.OK);
    expect(stdout).toMatch(/^  amount: +unlimited USDC \(2\^256−1: no limit at all\)$/m);
    expect(stdout).not.toMatch(/Moves out/);
  });

  it("reject --no-cancel sends the reason and prints the outcome", async () => {
    const { code, stdout } = await review(["reject", "req_a", "--reason", "not ours", "--no-cancel", "--json"], {
      status: 200,
      body: { requestId: "req_a", status: "rejected", reason: "not ours" },
    });
    expect(code).toBe(EXIT.OK);
    expect(JSON.parse(stdout)).toEqual({ requestId: "req_a", status: "rejected", reason: "not ours" });
    expect(JSON.parse(server.received.at(-1)!.body)).toEqual({ reason: "not ours" });
  });

  it("reject (which cancels on-chain by default) with no node at the RPC URL fails before the relayer is told anything", async () => {
    const { code, stdout, stderr } = await review(["reject", "req_a", "--reason", "not ours", "--rpc-url", "http://127.0.0.1:9"], {
      status: 200,
      body: { requestId: "req_a", status: "rejected", reason: "not ours" },
    });
    expect(code).toBe(EXIT.FAILURE);
    expect(stdout).toBe("");
    expect(stderr).toBe("relay: cannot reach a JSON-RPC node at http://127.0.0.1:9 (--rpc-url, RELAY_RPC_URL)\n");
    expect(server.received).toEqual([]);
  });

  it("reject without a reason is a usage error", async () => {
    const { code, stderr } = await review(["reject", "req_a"]);
    expect(code).toBe(EXIT.USAGE);
    expect(stderr).toMatch(/--reason/);
    const blank = await review(["reject", "req_a", "--reason", "  "]);
    expect(blank.code).toBe(EXIT.USAGE);
    expect(blank.stderr).toBe("relay: --reason must not be empty: say why the request is rejected\n");
  });

  it("a decided review is refused with the relayer's reason in one line", async () => {
    const { code, stderr } = await review(["reject", "req_a", "--reason", "late", "--no-cancel"], {
      status: 409,
      body: { error: "review already decided", code: "REVIEW_ALREADY_DECIDED", details: "req_a is approved" },
    });
    expect(code).toBe(EXIT.REJECTED);
    expect(stderr).toBe("relay: relayer refused: REVIEW_ALREADY_DECIDED: review already decided (req_a is approved)\n");
  });

  it("an unreachable relayer exits 5 with one line", async () => {
    const run = runMain(["review", "list", "--relayer-url", "http://127.0.0.1:9", "--owner-key", OWNER_KEY, "--state-dir", stateDir]);
    expect(await run.done).toBe(EXIT.UNREACHABLE);
    expect(run.output.stderr).toMatch(/^relay: relayer unreachable at http:\/\/127\.0\.0\.1:9 \(connection failed\); is `relay serve` running\?.*\n$/);
    expect(run.output.stderr.split("\n")).toHaveLength(2);
  });
});
