// The questions the review screen asks: "approve this?", "why reject it?" and "cancel it on-chain too?".
import { Box } from "ink";
import { Text } from "./text.ts";
import { createElement as h, type ReactElement } from "react";

export function ConfirmPrompt({ summary }: { summary: string }): ReactElement {
  return h(Box, { flexShrink: 0 }, h(Text, { color: "yellow" }, `Approve: ${summary}? `), h(Text, { bold: true }, "[y/N]"));
}

export function ReasonPrompt({ value }: { value: string }): ReactElement {
  return h(
    Box,
    { flexDirection: "column", flexShrink: 0 },
    h(Box, null, h(Text, { color: "yellow" }, "Reason for rejecting: "), h(Text, null, value), h(Text, { inverse: true }, " ")),
    h(Text, { dimColor: true }, "enter to reject, esc to cancel"),
  );
}

export function CancelPrompt({ reason }: { reason: string }): ReactElement {
  return h(
    Box,
    { flexDirection: "column", flexShrink: 0 },
    h(Text, null, `Reject with reason: ${reason}`),
    h(Box, null, h(Text, { color: "yellow" }, "Also cancel this signed intent on-chain with your own key now (the relayer cancels it too)? "), h(Text, { bold: true }, "[Y/n]")),
    h(Text, { dimColor: true }, "y or enter: reject and cancel with the owner key (costs gas); n: reject, the relayer cancels it; esc: edit the reason"),
  );
}
