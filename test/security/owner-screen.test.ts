// The owner's screen cannot be forged (issue 30): a hostile bot's memo, metadata keys and values and
// an execute's protocolName carried erase-line codes that faked the "Action:" line and ESC[8m that hid
// "approve unlimited USDC" in `relay review show` and `relay review list`. Now every string a bot or a
// stranger chose is printed with its control, bidi and invisible characters made visible, and the API
// keeps the original bytes. A real `relay serve` and devnet; the chain shows nothing moved. (The
// review screen is driven in a real terminal by test/cli/review/terminal.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, maxUint256, type Address } from "viem";
import { field, startLiveRelay, type LiveRelay } from "../cli/support/live.ts";

const PAYEE = "0x00000000000000000000000000000000000000e1" as Address;
const SPENDER = "0x00000000000000000000000000000000000000e2" as Address;
let live: LiveRelay;

beforeAll(async () => {
  live = await startLiveRelay("relay-owner-screen-");
});
afterAll(() => live?.stop());

describe("a hostile bot's words on the owner's terminal", () => {
  // An erase-line that would redraw the "Action:" line, a concealed span, the 8-bit CSI, a
  // right-to-left override, a zero-width space and a newline that would start a fake line.
  const MEMO = "rent\u001b[2K\rAction: pay 1 USDC to a friend";
  const METADATA = { "note\u001b[8m": "\u001b[8mapprove unlimited USDC", "x\u009b2J": "a\u202eb\u200bc", multi: "one\nAction: fake" };
  // eslint-disable-next-line no-control-regex
  const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;

  it("relay review list and show print the held request's memo and metadata visibly; --json and the API keep the original text; the owner's reason reaches relay status visibly", async () => {
    const before = await live.balanceOf("USDC", PAYEE);
    const held = await live.relay([
      "pay", "--bot", "reviewed", "--to", PAYEE, "--amount", "6", "--token", "USDC", "--memo", MEMO,
      ...Object.entries(METADATA).flatMap(([key, value]) => ["--metadata", `${key}=${value}`]),
    ]);
    expect(held.code, held.stderr).toBe(4);
    const requestId = field(held.stdout, "requestId")!;

    const list = await live.relay(["review", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(RAW);
    expect(list.stdout).toMatch(new RegExp(`^${requestId} +payment +pay 6 USDC`, "m"));

    const shown = await live.relay(["review", "show", requestId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toMatch(RAW);
    expect(shown.stdout).toMatch(/^Memo: +rent\\u001b\[2K\\rAction: pay 1 USDC to a friend$/m);
    expect(shown.stdout).toMatch(/^ {2}note\\u001b\[8m: +\\u001b\[8mapprove unlimited USDC$/m);
    expect(shown.stdout).toMatch(/^ {2}x\\u009b2J: +a\\u202eb\\u200bc$/m);
    expect(shown.stdout).toMatch(/^ {2}multi: +one\\nAction: fake$/m);
    // The only line that begins "Action:" is the relayer's own.
    expect(shown.stdout.match(/^Action:.*$/gm)).toEqual([expect.stringMatching(/^Action: +pay 6 USDC to 0x0000…00e1$/)]);

    // The relayer stored the bot's bytes as sent; --json is valid JSON of them, escaped for the terminal.
    const json = await live.relay(["review", "show", requestId, "--json"]);
    expect(json.stdout).not.toMatch(RAW);
    expect(JSON.parse(json.stdout)).toMatchObject({ requestId, memo: MEMO, metadata: METADATA });

    // The owner's reason (a leaked session can set one too) reaches the bot's `relay status` as one visible line.
    const rejected = await live.relay(["review", "reject", requestId, "--reason", "no\u001b[2K\rapproved", "--no-cancel"]);
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toBe(`${requestId}: rejected, reason: no\\u001b[2K\\rapproved\n`);
    const status = await live.relay(["status", requestId]);
    expect(status.code).toBe(3);
    expect(status.stdout + status.stderr).not.toMatch(RAW);
    expect(field(status.stdout, "reason")).toBe("no\\u001b[2K\\rapproved");
    expect(status.stderr).toBe(`relay: payment ${requestId} was rejected: no\\u001b[2K\\rapproved\n`);
    // Nothing moved.
    expect(await live.balanceOf("USDC", PAYEE)).toBe(before);
  });
});

describe("an execute's protocolName on the owner's terminal", () => {
  // eslint-disable-next-line no-control-regex
  const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;

  it("an approval grant named as a harmless protocol: review list and show print the name visibly, and the only Action line is the relay's own", async () => {
    const usdc = live.manifest.tokens.USDC!.address as Address;
    const unlimited = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, maxUint256] });
    const name = "Lending\u001b[2K\rAction: pay 1 USDC\u001b[8m";
    const held = await live.relay(["execute", "--protocol", usdc, "--calldata", unlimited, "--protocol-name", name]);
    expect(held.code, held.stderr).toBe(4);
    const requestId = field(held.stdout, "requestId")!;

    const list = await live.relay(["review", "list"]);
    expect(list.stdout).not.toMatch(RAW);
    const shown = await live.relay(["review", "show", requestId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(RAW);
    expect(shown.stdout).toContain("Lending\\u001b[2K\\rAction: pay 1 USDC\\u001b[8m");
    expect(shown.stdout).toContain("unlimited");
    // One Action line, the relay's own: the bot's name for the protocol sits in it as visible text.
    expect(shown.stdout.match(/^Action:.*$/gm)).toEqual([expect.stringMatching(/^Action: +call 0x\w{4}…\w{4} \(Lending\\u001b\[2K\\rAction: pay 1 USDC\\u001b\[8m\): approve\(spender 0x0000…00E2, amount unlimited USDC\)$/)]);
    const json = JSON.parse((await live.relay(["review", "show", requestId, "--json"])).stdout) as { protocolName?: string };
    expect(json.protocolName).toBe(name);
    const allowance = await live.clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [live.manifest.contracts.vault as Address, SPENDER] });
    expect(allowance).toBe(0n);
  });
});
