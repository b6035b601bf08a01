// The keyboard help of the review screen.
import { Box } from "ink";
import { Text } from "./text.ts";
import { createElement as h, type ReactElement } from "react";

export const KEYS: ReadonlyArray<[string, string]> = [
  ["↑/↓  j/k", "select a review"],
  ["enter  →", "show its details"],
  ["esc  ←", "back to the list"],
  ["a", "approve (asks to confirm)"],
  ["r", "reject (type a reason, then enter), then y/n: also cancel it on-chain"],
  ["R  ctrl-r", "refresh now"],
  ["?", "this help"],
  ["q", "quit"],
];

export function Help(): ReactElement {
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", paddingX: 1 },
    h(Text, { bold: true }, "Keys"),
    ...KEYS.map(([keys, what]) => h(Box, { key: keys }, h(Box, { width: 12 }, h(Text, { color: "cyan" }, keys)), h(Text, null, what))),
    h(Text, { dimColor: true }, "Press any key to close."),
  );
}
