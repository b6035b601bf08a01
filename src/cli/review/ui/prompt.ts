// The two questions the review screen asks: "approve this?" and "why reject it?".
import { Box, Text } from "ink";
import { createElement as h, type ReactElement } from "react";

export function ConfirmPrompt({ summary }: { summary: string }): ReactElement {
  return h(Box, null, h(Text, { color: "yellow" }, `Approve: ${summary}? `), h(Text, { bold: true }, "[y/N]"));
}

export function ReasonPrompt({ value }: { value: string }): ReactElement {
  return h(
    Box,
    { flexDirection: "column" },
    h(Box, null, h(Text, { color: "yellow" }, "Reason for rejecting: "), h(Text, null, value), h(Text, { inverse: true }, " ")),
    h(Text, { dimColor: true }, "enter to reject, esc to cancel"),
  );
}
