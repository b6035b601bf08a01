// The header and footer of the review screen: how many reviews wait, whether the relayer answers,
// and the outcome of the last action.
import { Box } from "ink";
import { Text } from "./text.ts";
import { createElement as h, type ReactElement } from "react";
import type { Connection } from "./use-feed.ts";

const CONNECTION: Record<Connection, { text: string; color: string }> = {
  connecting: { text: "signing in…", color: "yellow" },
  online: { text: "● online", color: "green" },
  reconnecting: { text: "reconnecting…", color: "yellow" },
};

export interface HeaderProps {
  count: number;
  connection: Connection;
  /** Which lines of the list are on screen, when not all of them fit. */
  range?: { first: number; last: number } | undefined;
}

export function Header({ count, connection, range }: HeaderProps): ReactElement {
  const { text, color } = CONNECTION[connection];
  return h(
    Box,
    { justifyContent: "space-between", flexShrink: 0 },
    h(Text, { bold: true }, `relay review — ${count} pending${range === undefined ? "" : ` (${range.first}–${range.last} shown, ↑/↓ to scroll)`}`),
    h(Text, { color }, text),
  );
}

export interface Notice {
  text: string;
  tone: "info" | "success" | "error";
}

const TONE: Record<Notice["tone"], string> = { info: "cyan", success: "green", error: "red" };

export function Footer({ notice, error }: { notice: Notice | undefined; error: string | undefined }): ReactElement {
  return h(
    Box,
    { flexDirection: "column", flexShrink: 0 },
    notice === undefined ? null : h(Text, { color: TONE[notice.tone], wrap: "wrap" }, notice.text),
    error === undefined ? null : h(Text, { color: "red", wrap: "wrap" }, error),
    h(Text, { dimColor: true }, "? help  a approve  r reject  R refresh  q quit"),
  );
}
