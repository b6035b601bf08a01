// The list of held requests, one line each, the selected one marked: what it does, its USD value,
// which bot asks (its manifest name), the bot's memo and the time left; in that order, as a narrow
// terminal cuts the end of the line. On a terminal too short for
// all of them, only a window of `rows` lines is drawn, scrolled so that the selection stays in it.
import { Box } from "ink";
import { Text } from "./text.ts";
import { createElement as h, type ReactElement } from "react";
import { botLabel, timeLeft, type ReviewView } from "../describe.ts";

/**
 * Longer memos are cut with "…", and shorter still when the line would not fit the terminal, so that
 * the time left stays on it (down to MIN_MEMO characters). The detail pane shows the memo whole.
 */
const MEMO_WIDTH = 32;
const MIN_MEMO = 8;

export interface ReviewListProps {
  views: readonly ReviewView[];
  selectedId: string | undefined;
  now: number;
  /** The first line drawn and how many (see `scrollWindow`); all of them when absent. */
  window?: ListWindow;
  /** The terminal's width in columns, when known. */
  columns?: number;
}

export interface ListWindow {
  offset: number;
  rows: number;
}

export function ReviewList({ views, selectedId, now, window, columns }: ReviewListProps): ReactElement {
  if (views.length === 0) return h(Text, { dimColor: true }, "No reviews pending.");
  const shown = window === undefined ? views : views.slice(window.offset, window.offset + window.rows);
  return h(
    Box,
    { flexDirection: "column", flexShrink: 0 },
    ...shown.map((v) => {
      const selected = v.requestId === selectedId;
      const head = `${selected ? "›" : " "} ${v.requestId}  ${v.kind.padEnd(7)} ${v.summary}  ${v.valueUsd ?? ""}  by ${botLabel(v, "line")}  `;
      const tail = `${timeLeft(v.expiresAt, now)} left`;
      // The quotes and the two spaces after them take 4 columns.
      const room = columns === undefined ? MEMO_WIDTH : Math.min(MEMO_WIDTH, Math.max(MIN_MEMO, columns - head.length - tail.length - 4));
      const line = `${head}${v.memo === undefined ? "" : `“${clip(v.memo, room)}”  `}${tail}`;
      return h(Text, { key: v.requestId, inverse: selected, wrap: "truncate-end" }, line);
    }),
  );
}

/**
 * The window of `rows` lines to draw out of `count`, moved as little as possible from `previous` so
 * that line `selected` is in it (the list scrolls only when the selection would leave the screen).
 */
export function scrollWindow(count: number, selected: number, rows: number, previous: number): ListWindow {
  const height = Math.max(1, rows);
  let offset = Math.min(previous, Math.max(0, count - height));
  if (selected >= 0 && selected < offset) offset = selected;
  if (selected >= offset + height) offset = selected - height + 1;
  return { offset: Math.max(0, offset), rows: height };
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}
