// Text a bot or a stranger chose is printed with its control, bidi and invisible characters written
// as escapes (src/cli/safe-text.ts); main() writes every command's output through the same boundary.
import { describe, expect, it } from "vitest";
import { visible, visibleDeep, visibleOutput } from "../../src/cli/safe-text.ts";
import { paint } from "../../src/cli/colour.ts";

/** Every character that could drive a terminal or disguise text: none may be written raw. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;

describe("visible", () => {
  const cases: Array<[string, string, string]> = [
    ["an erase-line and carriage return", "Action: pay\u001b[2K\rAction: fake", "Action: pay\\u001b[2K\\rAction: fake"],
    ["a concealed span", "\u001b[8mapprove unlimited USDC\u001b[0m", "\\u001b[8mapprove unlimited USDC\\u001b[0m"],
    ["the 8-bit CSI", "x\u009b2Jy", "x\\u009b2Jy"],
    ["DEL and a bell", "a\u007fb\u0007", "a\\u007fb\\u0007"],
    ["a right-to-left override", "invoice \u202efdp.exe", "invoice \\u202efdp.exe"],
    ["bidi isolates", "\u2066a\u2069", "\\u2066a\\u2069"],
    ["zero-width characters", "0x12\u200b34\u200d\ufeff", "0x12\\u200b34\\u200d\\ufeff"],
    ["a newline and a tab", "line one\nAction: fake\tx", "line one\\nAction: fake\\tx"],
    ["the line separator", "a\u2028b", "a\\u2028b"],
    ["a tag character (past U+FFFF)", "a\u{e0041}b", "a\\udb40\\udc41b"],
  ];
  for (const [what, text, shown] of cases) {
    it(`writes ${what} as escapes`, () => {
      expect(visible(text)).toBe(shown);
      expect(visible(text)).not.toMatch(RAW);
      expect(visible(text)).not.toContain("\n");
      // Idempotent: a view made visible may be shown through another visible().
      expect(visible(visible(text))).toBe(visible(text));
    });
  }

  it("leaves ordinary text alone, accents, symbols and emoji included", () => {
    for (const text of ["pay 5 USDC to 0x7099…79C8", "café — 20 €", "✔ approve", "日本語", "🙂"]) expect(visible(text)).toBe(text);
  });

  it("the escapes are JSON's: a JSON text made visible parses to the original", () => {
    const original = { memo: "a\u009bb\u202ec\u2028d\u{e0041}" };
    const json = JSON.stringify(original);
    expect(json).toMatch(RAW); // JSON.stringify leaves C1, bidi and separators raw
    const shown = visibleOutput(json);
    expect(shown).not.toMatch(RAW);
    expect(JSON.parse(shown)).toEqual(original);
  });

  it("visibleDeep makes every string of an object visible", () => {
    expect(visibleDeep({ a: "x\u001b", b: ["\n", 3], c: { d: true } })).toEqual({ a: "x\\u001b", b: ["\\n", 3], c: { d: true } });
  });
});

describe("visibleOutput (main's boundary)", () => {
  it("keeps newlines, the colours of colour.ts and a spinner's redraw at the start of a write", () => {
    const colours = `${paint("approved", "green", true)} ${paint("rejected", "red", true)} ${paint("pending_review", "yellow", true)}\n`;
    expect(visibleOutput(colours)).toBe(colours);
    expect(visibleOutput("\r\u001b[2K⠋ waiting 3s")).toBe("\r\u001b[2K⠋ waiting 3s");
  });

  it("makes anything else visible: erase, conceal, cursor moves, OSC, the 8-bit CSI, bidi, and a redraw that is not at the start", () => {
    const text = "reason: \u001b[2K\rAction: fake\u001b[8mhidden\u001b[1A\u001b]0;title\u0007\u009b2J\u202eabc\r\u001b[2K\n";
    const shown = visibleOutput(text);
    expect(shown).not.toMatch(RAW);
    expect(shown).toBe("reason: \\u001b[2K\\rAction: fake\\u001b[8mhidden\\u001b[1A\\u001b]0;title\\u0007\\u009b2J\\u202eabc\\r\\u001b[2K\n");
  });
});
