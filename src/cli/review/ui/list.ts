// The list of held requests, one line each, the selected one marked.
import { Box, Text } from "ink";
import { createElement as h, type ReactElement } from "react";
import { timeLeft, type ReviewView } from "../describe.ts";

export interface ReviewListProps {
  views: readonly ReviewView[];
  selectedId: string | undefined;
  now: number;
}

export function ReviewList({ views, selectedId, now }: ReviewListProps): ReactElement {
  if (views.length === 0) return h(Text, { dimColor: true }, "No reviews pending.");
  return h(
    Box,
    { flexDirection: "column" },
    ...views.map((v) => {
      const selected = v.requestId === selectedId;
      const line = `${selected ? "›" : " "} ${v.requestId}  ${v.kind.padEnd(7)} ${v.summary}  ${v.valueUsd ?? ""}  ${timeLeft(v.expiresAt, now)} left`;
      return h(Text, { key: v.requestId, inverse: selected, wrap: "truncate-end" }, line);
    }),
  );
}
