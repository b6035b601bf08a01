// The detail pane of one review: what it does (for an execute, the relayer's decoding of the call and
// what its simulation saw leave the vault), for how much, to whom, why it was held, the bot's
// off-chain fields (invoice, order, recipient label, resource URL, x402 funding), what each agent
// said, and how long is left to decide.
import { Box } from "ink";
import { Text } from "./text.ts";
import { createElement as h, type ReactElement } from "react";
import { botLabel, timeLeft, type ReviewView } from "../describe.ts";
import { offChainRows } from "../format.ts";

export interface ReviewDetailProps {
  view: ReviewView;
  now: number;
}

export function ReviewDetail({ view: v, now }: ReviewDetailProps): ReactElement {
  const row = (label: string, value: string, key = label) =>
    h(Box, { key }, h(Box, { width: 14, flexShrink: 0 }, h(Text, { bold: true }, label)), h(Text, { wrap: "wrap" }, value));
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", paddingX: 1 },
    row("Request", `${v.requestId} (${v.kind}, ${v.status})`),
    row("Action", v.summary),
    v.call === undefined ? null : row("Function", v.call.function),
    ...(v.call?.arguments ?? []).map(([name, value], i) => row(`  ${name}`, value, `arg-${i}`)),
    ...v.amounts.map((a, i) => row(i === 0 ? "Amount" : "", a, `amount-${i}`)),
    v.outflows.length === 0
      ? null
      : h(Text, { key: "outflows", wrap: "wrap" }, h(Text, { bold: true }, "Moves out of the vault: "), v.outflows.join(", ")),
    row("USD value", v.valueUsd ?? "unknown"),
    // An execute's target is the contract called, not who gains: for an approve that is the spender above.
    row(v.kind === "execute" ? "Contract" : "Recipient", v.recipient ?? "unknown"),
    row("Bot", botLabel(v, "detail")),
    row("Held because", v.heldBecause),
    row("Memo", v.memo ?? "(none)"),
    ...v.metadata.map(([key, value], i) => row(i === 0 ? "Metadata" : "", `${key}: ${value}`, `meta-${key}`)),
    ...offChainRows(v).map(([label, value], i) => row(label, value, `off-chain-${i}`)),
    row("Time left", v.status === "pending_review" ? timeLeft(v.expiresAt, now) : "decided"),
    v.agents.length === 0
      ? row("Agents", "(no verdicts)")
      : h(
          Box,
          { flexDirection: "column", key: "agents" },
          h(Text, { bold: true }, "Agents"),
          ...v.agents.map((a) =>
            h(
              Text,
              { key: a.agent, wrap: "wrap" },
              "  ",
              h(Text, { color: a.approve ? "green" : "red" }, a.approve ? "✔ approve" : "✘ reject"),
              ` ${a.agent}${a.reason === "" ? "" : `: ${a.reason}`}`,
            ),
          ),
        ),
  );
}
