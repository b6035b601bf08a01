// The review screen against an in-memory source, driven by key presses through ink-testing-library.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { botBook, tokenBook } from "../../../src/cli/review/describe.ts";
import { ReviewApp } from "../../../src/cli/review/ui/app.ts";
import { projectRoot } from "../../../src/paths.ts";
import { BOT, CancellingSource, MemorySource, SPENDER, USDC, VAULT, heldApprove, heldPayment } from "./support/memory-source.ts";

const tokens = tokenBook({ USDC: { address: USDC, decimals: 6 } });
// The manifest's bots (name → address), as `relay review` reads them.
const bots = botBook({ reviewed: { address: BOT.toLowerCase() } });
const STRANGER = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";
const NOW = 1_700_000_000_000;
const ENTER = "\r";
const DOWN = "\u001b[B";
const ESC = "\u001b";

let instance: ReturnType<typeof render> | undefined;
afterEach(() => instance?.unmount());

function start(source: MemorySource, options: { refreshMs?: number; retryMs?: number } = {}) {
  instance = render(h(ReviewApp, { source, tokens, bots, now: () => NOW, refreshMs: options.refreshMs ?? 60_000, retryMs: options.retryMs ?? 20 }));
  return instance;
}

/** Wait until the last frame matches (the screen updates asynchronously). */
async function frame(app: ReturnType<typeof render>, pattern: RegExp, timeoutMs = 5000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = app.lastFrame() ?? "";
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`screen never matched ${pattern}; last frame:\n${text}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function press(app: ReturnType<typeof render>, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    app.stdin.write(key);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("relay review screen", () => {
  it("lists the held reviews with human amounts, USD value and time left", async () => {
    const app = start(new MemorySource([heldPayment("req_one", 5), heldPayment("req_two", 1250.5)]));
    const text = await frame(app, /req_two/);
    expect(text).toMatch(/2 pending/);
    expect(text).toMatch(/req_one .*pay 5 USDC to 0x7099…79C8.*\$5\.00.*24h 00m left/);
    expect(text).toMatch(/req_two .*pay 1250\.5 USDC.*\$1,250\.50/);
  });

  it("names the manifest's bots and shows each memo on its line, so two 7.25 USDC requests look different", async () => {
    const app = start(
      new MemorySource([
        heldPayment("req_one", 7.25, { memo: "invoice 1001" }),
        heldPayment("req_two", 7.25, { memo: "invoice 1002: a memo far too long to fit on the line in full" }),
        heldPayment("req_odd", 7.25, { bot: STRANGER, memo: "bell\u0007" }),
      ]),
    );
    const text = await frame(app, /req_odd/);
    const line = (id: string) => text.split("\n").find((l) => l.includes(id)) ?? "";
    expect(line("req_one")).toMatch(/req_one\s+payment pay 7\.25 USDC to 0x7099…79C8\s+\$7\.25\s+by reviewed\s+“invoice 1001”\s+24h 00m left/);
    // A long memo is cut to what the terminal's 100 columns leave, never the time left.
    expect(line("req_two")).toMatch(/by reviewed\s+“invoice 1002:[^”]*…”\s+24h 00m left$/);
    // A bot the manifest does not name is shown by its address; the bot's control characters are made visible.
    expect(line("req_odd")).toMatch(/req_odd\s+payment pay 7\.25 USDC.*by 0x976E…0aa9\s+“bell\\u0007”/);
    expect(line("req_one").replace("req_one", "")).not.toBe(line("req_two").replace("req_two", ""));
    await press(app, ENTER);
    expect(await frame(app, /Held because/)).toMatch(new RegExp(`Bot\\s+reviewed \\(${BOT}\\)`));
  });

  it("opens the detail pane with the reason for holding, the memo, metadata and each agent's verdict", async () => {
    const item = heldPayment("req_one", 5, {
      memo: "invoice 42",
      metadata: { customer: "acme" },
      agents: [
        { agent: "Safety", approve: true, reason: "known payee" },
        { agent: "Behavioral", approve: false, reason: "unusual hour" },
      ],
    });
    const app = start(new MemorySource([item]));
    await frame(app, /req_one/);
    await press(app, ENTER);
    const text = await frame(app, /Held because/);
    expect(text).toMatch(/5 USDC \(5000000\)/);
    expect(text).toMatch(/Recipient\s+0x70997970C51812dc3A010C7d01b50e0d17dc79C8/);
    expect(text).toMatch(/the owner requires human review for this bot/);
    expect(text).toMatch(/invoice 42/);
    expect(text).toMatch(/customer: acme/);
    expect(text).toMatch(/✔ approve Safety: known payee/);
    expect(text).toMatch(/✘ reject Behavioral: unusual hour/);
    await press(app, ESC);
    expect(await frame(app, /^(?![\s\S]*Held because)/)).toMatch(/req_one/);
  });

  it("shows the bot's off-chain fields in the detail pane: invoice, order, recipient label, resource URL and the x402 funding", async () => {
    const item = heldPayment("req_inv", 4, {
      invoiceId: "INV-2024-0042",
      orderId: "order_9f8e",
      recipientLabel: "Acme Data Ltd",
      resourceUrl: "https://api.example.com/reports/42",
      x402Funding: { network: "base-sepolia", amount: "4000000", extra: { name: "USDC" } },
    });
    const app = start(new MemorySource([item]));
    await frame(app, /req_inv/);
    await press(app, ENTER);
    const text = await frame(app, /Held because/);
    expect(text).toMatch(/Invoice\s+INV-2024-0042/);
    expect(text).toMatch(/Order\s+order_9f8e/);
    expect(text).toMatch(/Label\s+Acme Data Ltd \(the bot's label for the recipient, not verified\)/);
    expect(text).toMatch(/Resource\s+https:\/\/api\.example\.com\/reports\/42/);
    expect(text).toMatch(/x402 funding\s+network: base-sepolia/);
    expect(text).toMatch(/^\W*\s+amount: 4000000/m);
    expect(text).toMatch(/extra\.name: USDC/);
  });

  it("shows an execute's decoded call in the detail pane: the function, the spender, 20,000 USDC, and what leaves the vault", async () => {
    const item = heldApprove("req_appr", 20_000_000_000n, { outflows: [{ token: USDC, amount: "20000000000", usd: "20000000000" }] });
    const app = start(new MemorySource([item]));
    expect(await frame(app, /req_appr/)).toMatch(/approve\(spender 0x90F7…b906, amount 20,000 USDC\)/);
    await press(app, ENTER);
    const text = await frame(app, /Function/);
    expect(text).toMatch(/Function\s+approve\(address,uint256\)/);
    expect(text).toMatch(new RegExp(`spender\\s+${SPENDER}`));
    expect(text).toMatch(/amount\s+20,000 USDC \(20000000000 base units\)/);
    expect(text).toMatch(/Moves out of the vault: 20,000 USDC \(\$20,000\.00\)/);
    expect(text).toMatch(/Contract\s+0x036CbD53842c5426634e7929541eC2318f3dCF7e/);
  });

  it("shows a bot's memo, metadata and protocolName with their control characters visible: nothing erases, hides or reorders a line", async () => {
    const payment = heldPayment("req_pay", 5, {
      memo: "rent\u001b[2K\rAction: pay 1 USDC",
      metadata: { "note\u001b[8m": "\u001b[8mapprove unlimited USDC", "x\u009b2J": "a\u202eb", multi: "one\nAction: fake" },
    });
    const execute = { ...heldApprove("req_exe", 20_000_000_000n), protocolName: "Uni\u001b[2K\r\u001b[8m\u200b" };
    const app = start(new MemorySource([payment, execute]));
    const list = await frame(app, /req_exe/);
    // What the terminal receives: colours and layout from Ink, but none of the bot's sequences.
    const raw = app.frames.join("");
    for (const sequence of ["\u001b[2K", "\u001b[8m", "\u009b", "\u202e", "\u200b", "\r"]) expect(raw).not.toContain(sequence);
    expect(list).toMatch(/“rent\\u001b\[2K\\rAction: pay 1 USDC”|“rent\\u001b\[2K\\rAc[^”]*…”/);
    expect(list).toMatch(/req_exe .*\(Uni\\u001b\[2K\\r\\u001b\[8m\\u200b\)/);
    await press(app, ENTER);
    const detail = await frame(app, /Held because/);
    expect(detail).toMatch(/Memo\s+rent\\u001b\[2K\\rAction: pay 1 USDC/);
    expect(detail).toMatch(/note\\u001b\[8m: \\u001b\[8mapprove unlimited USDC/);
    expect(detail).toMatch(/x\\u009b2J: a\\u202eb/);
    expect(detail).toMatch(/multi: one\\nAction: fake/);
    // The bot's "Action:" text never begins a line of its own.
    expect(detail.split("\n").filter((line) => /^\W*Action\b/.test(line))).toHaveLength(1);
    const all = app.frames.join("");
    for (const sequence of ["\u001b[2K", "\u001b[8m", "\u009b", "\u202e", "\u200b", "\r"]) expect(all).not.toContain(sequence);
  });

  it("every component of the screen takes Text from ui/text.ts, which makes strings visible, never Ink's own", () => {
    const dir = path.join(projectRoot, "src", "cli", "review", "ui");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "text.ts")) {
      const source = readFileSync(path.join(dir, file), "utf8");
      expect(source, file).not.toMatch(/import\s*\{[^}]*\bText\b[^}]*\}\s*from\s*"ink"/);
    }
  });

  it("approves the selected review only after confirmation", async () => {
    const source = new MemorySource([heldPayment("req_one", 5), heldPayment("req_two", 7)]);
    const app = start(source);
    await frame(app, /req_two/);
    await press(app, "j", "a");
    expect(await frame(app, /Approve: req_two/)).toMatch(/\[y\/N\]/);
    await press(app, "n");
    await frame(app, /^(?![\s\S]*Approve:)/);
    expect(source.decisions).toEqual([]);
    await press(app, "a", "y");
    await frame(app, /req_two: approved, tx 0x1212/);
    expect(source.decisions).toEqual([{ id: "req_two", action: "approve" }]);
    expect(await frame(app, /1 pending/)).not.toMatch(/› req_two/);
  });

  it("rejects with a typed reason, and refuses an empty one", async () => {
    const source = new MemorySource([heldPayment("req_one", 5)]);
    const app = start(source);
    await frame(app, /req_one/);
    await press(app, "r");
    await frame(app, /Reason for rejecting/);
    await press(app, ENTER);
    expect(source.decisions).toEqual([]);
    await press(app, "not ", "ours", "x", "\u007f");
    await frame(app, /Reason for rejecting: not ours/);
    await press(app, ENTER);
    await frame(app, /req_one: rejected, reason: not ours/);
    expect(source.decisions).toEqual([{ id: "req_one", action: "reject", reason: "not ours" }]);
    await frame(app, /No reviews pending/);
  });

  it("keys that arrive before the screen redraws each act on the state the one before left: a reason typed and Enter at once rejects", async () => {
    const source = new MemorySource([heldPayment("req_one", 5)]);
    const app = start(source);
    await frame(app, /req_one/);
    // One write per key with no pause between them: a fast typist, or a terminal under load that
    // delivers several reads before React renders again.
    for (const key of ["r", "n", "o", "p", "e", ENTER]) app.stdin.write(key);
    await frame(app, /req_one: rejected, reason: nope/);
    expect(source.decisions).toEqual([{ id: "req_one", action: "reject", reason: "nope" }]);
  });

  it("a pasted reason that ends in a newline is the reason and Enter", async () => {
    const source = new MemorySource([heldPayment("req_one", 5)]);
    const app = start(source);
    await frame(app, /req_one/);
    await press(app, "r");
    await frame(app, /Reason for rejecting/);
    app.stdin.write("hostile memo\r");
    await frame(app, /req_one: rejected, reason: hostile memo/);
    expect(source.decisions).toEqual([{ id: "req_one", action: "reject", reason: "hostile memo" }]);
  });

  it("with an owner key, asks after the reason whether to cancel the intent on-chain too (yes by default) and shows both outcomes", async () => {
    const source = new CancellingSource([heldPayment("req_one", 5), heldPayment("req_two", 7, { intentHash: `0x${"cd".repeat(32)}` })]);
    const app = start(source);
    await frame(app, /req_two/);
    await press(app, "j", "r", "leaked");
    await press(app, ENTER);
    const asked = await frame(app, /Also cancel this signed intent on-chain/);
    expect(asked).toMatch(/Reject with reason: leaked/);
    expect(asked).toMatch(/\[Y\/n\]/);
    expect(source.decisions).toEqual([]);
    await press(app, ENTER);
    await frame(app, /req_two: rejected, reason: leaked; intent\s+0x(cd){32}\s+cancelled on-chain, tx\s+0x(ca){32}/);
    expect(source.decisions).toEqual([{ id: "req_two", action: "reject", reason: "leaked" }]);
    expect(source.cancels).toEqual([{ intentHash: `0x${"cd".repeat(32)}`, vault: VAULT, chainId: 84532 }]);
  });

  it("n rejects without the owner's own cancel, esc goes back to the reason, and a failed cancel says how to retry", async () => {
    const source = new CancellingSource([heldPayment("req_one", 5), heldPayment("req_two", 7)]);
    const app = start(source);
    await frame(app, /req_two/);
    await press(app, "r", "no");
    await press(app, ENTER);
    await frame(app, /Also cancel this signed intent on-chain/);
    await press(app, ESC);
    await frame(app, /Reason for rejecting: no/);
    await press(app, ENTER);
    await frame(app, /Also cancel this signed intent on-chain/);
    await press(app, "n");
    await frame(app, /req_one: rejected, reason: no$/m);
    expect(source.cancels).toEqual([]);

    source.cancelFails = true;
    await frame(app, /› req_two/);
    await press(app, "r", "late");
    await press(app, ENTER);
    await frame(app, /Also cancel this signed intent on-chain/);
    await press(app, "y");
    const failed = await frame(app, /retry with/);
    expect(failed.replace(/\s*\n\s*/g, " ")).toMatch(
      new RegExp(`req_two was rejected by the relayer, but cancelling its intent on-chain failed: cancelIntent would revert: NotOwnerOrOperator\\(\\); retry with \`relay owner cancel 0x(ab){32}\``),
    );
    expect(source.decisions).toEqual([
      { id: "req_one", action: "reject", reason: "no" },
      { id: "req_two", action: "reject", reason: "late" },
    ]);
    expect(source.cancels).toEqual([]);
  });

  it("moves the selection with arrows and j/k, and shows the keyboard help", async () => {
    const app = start(new MemorySource([heldPayment("req_one", 1), heldPayment("req_two", 2), heldPayment("req_three", 3)]));
    await frame(app, /› req_one/);
    await press(app, DOWN, "j");
    await frame(app, /› req_three/);
    await press(app, "j");
    await frame(app, /› req_three/);
    await press(app, "k");
    await frame(app, /› req_two/);
    await press(app, "?");
    const help = await frame(app, /Keys/);
    expect(help).toMatch(/approve \(asks to confirm\)/);
    expect(help).toMatch(/reject \(type a reason, then enter\)/);
    await press(app, "x");
    await frame(app, /› req_two/);
  });

  it("shows reconnecting while the relayer is down and recovers by itself", async () => {
    const source = new MemorySource([heldPayment("req_one", 5)]);
    source.down = true;
    const app = start(source, { retryMs: 20 });
    await frame(app, /reconnecting…/);
    expect(app.lastFrame()).toMatch(/ECONNREFUSED/);
    source.down = false;
    const text = await frame(app, /● online/);
    expect(text).toMatch(/req_one/);
    expect(text).not.toMatch(/ECONNREFUSED/);
  });

  it("refreshes on R, picking up new reviews", async () => {
    const source = new MemorySource([heldPayment("req_one", 5)]);
    const app = start(source);
    await frame(app, /1 pending/);
    source.reviews.push(heldPayment("req_new", 9));
    await press(app, "R");
    await frame(app, /2 pending[\s\S]*req_new/);
  });

  it("refreshes by itself", async () => {
    const source = new MemorySource([]);
    const app = start(source, { refreshMs: 30 });
    await frame(app, /No reviews pending/);
    source.reviews.push(heldPayment("req_late", 3));
    await frame(app, /req_late/);
  });
});
