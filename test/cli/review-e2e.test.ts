// Held requests end to end against `relay serve`: `relay pay --wait` of the `reviewed` bot while the
// owner approves it with `relay review approve`, `relay status --wait` through `relay review reject`,
// and `relay review list|show` (text and --json) and a second decision, on a live relayer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { field, startLiveRelay, type LiveRelay } from "./support/live.ts";

const PAYEE = "0x00000000000000000000000000000000000000e1" as Address;
let live: LiveRelay;

beforeAll(async () => {
  live = await startLiveRelay("relay-cli-review-");
});
afterAll(() => live?.stop());

/** The request id in a waiting command's progress line on stderr. */
const waitingId = (stderr: string) => /relay: \w+ (req_\w+) pending review; checking every \d+s/.exec(stderr)![1]!;

describe("waiting through the owner's decision", () => {
  it("relay pay --wait of the reviewed bot exits 0 with approved once the owner approves it", async () => {
    const before = await live.balanceOf("USDC", PAYEE);
    const paying = live.start(["pay", "--bot", "reviewed", "--to", PAYEE, "--amount", "3", "--token", "USDC", "--memo", "invoice 7", "--wait"]);
    await paying.waitFor(/pending review; checking every/);
    const requestId = waitingId(paying.output.stderr);

    const listed = await live.relay(["review", "list", "--json"]);
    expect(listed.code).toBe(0);
    const { reviews } = JSON.parse(listed.stdout) as { reviews: Array<{ requestId: string; kind: string; status: string }> };
    expect(reviews).toContainEqual(expect.objectContaining({ requestId, kind: "payment", status: "pending_review" }));

    const approved = await live.relay(["review", "approve", requestId, "--json"]);
    expect(approved.code).toBe(0);
    const decision = JSON.parse(approved.stdout) as { requestId: string; status: string; txHash: string };
    expect(decision).toMatchObject({ requestId, status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    expect(await paying.done).toBe(0);
    expect(paying.output.stdout).toBe(`status     approved\nrequestId  ${requestId}\nkind       payment\ntxHash     ${decision.txHash}\n`);
    expect(paying.output.stderr).toBe(`relay: payment ${requestId} pending review; checking every 5s\n`);
    expect(await live.balanceOf("USDC", PAYEE)).toBe(before + 3_000_000n);

    const again = await live.relay(["review", "approve", requestId]);
    expect(again.code).toBe(3);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/^relay: relayer refused: REVIEW_ALREADY_DECIDED: .*\n$/);
  });

  it("relay status --wait exits 3 with the owner's reason once the owner rejects", async () => {
    const before = await live.balanceOf("USDC", PAYEE);
    const held = await live.relay(["pay", "--bot", "reviewed", "--to", PAYEE, "--amount", "4", "--token", "USDC"]);
    expect(held.code).toBe(4);
    const requestId = field(held.stdout, "requestId")!;

    const waiting = live.start(["status", requestId, "--wait"]);
    await waiting.waitFor(/pending review; checking every/);
    const shown = await live.relay(["review", "show", requestId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Held because: +the owner requires human review for this bot$/m);
    expect(shown.stdout).toMatch(/^Amount: +4 USDC \(4000000\)$/m);

    const rejected = await live.relay(["review", "reject", requestId, "--reason", "not an invoice of ours"]);
    // A rejection also cancels the signed intent on-chain (the default; --no-cancel rejects here only).
    expect(rejected).toMatchObject({ code: 0, stderr: "" });
    expect(rejected.stdout).toMatch(new RegExp(`^${requestId}: rejected, reason: not an invoice of ours\nintent 0x[0-9a-f]{64} cancelled on-chain, tx 0x[0-9a-f]{64}\n$`));

    expect(await waiting.done).toBe(3);
    expect(field(waiting.output.stdout, "status")).toBe("rejected");
    expect(field(waiting.output.stdout, "reason")).toBe("not an invoice of ours");
    expect(waiting.output.stderr.trimEnd().split("\n").at(-1)).toBe(`relay: payment ${requestId} was rejected: not an invoice of ours`);
    expect(await live.balanceOf("USDC", PAYEE)).toBe(before);

    const after = await live.relay(["status", requestId, "--json"]);
    expect(after.code).toBe(3);
    expect(JSON.parse(after.stdout)).toEqual({ requestId, status: "rejected", reason: "not an invoice of ours", errorCode: "OWNER_REJECTED" });
  });

  it("relay review list says when nothing is pending", async () => {
    const { code, stdout } = await live.relay(["review", "list"]);
    expect(code).toBe(0);
    expect(stdout).toBe("No reviews pending.\n");
  });
});
