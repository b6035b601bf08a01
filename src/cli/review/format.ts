// Plain-text output of the non-interactive review commands (`relay review list|show|approve|reject`).
// Every cell and value is made visible (../safe-text.ts) where the line is built: a view's strings
// already are, and a value added here later cannot forget it.
import type { ReviewDecisionResponse } from "../../../packages/client/src/types.ts";
import { visible } from "../safe-text.ts";
import { botLabel, timeLeft, type ReviewView } from "./describe.ts";

/** One line per review: id, kind, what it does, USD value, time left; or a sentence when there are none. */
export function formatList(views: readonly ReviewView[], nowMs: number): string {
  if (views.length === 0) return "No reviews pending.\n";
  const rows = views.map((v) => [v.requestId, v.kind, v.summary, v.valueUsd ?? "", timeLeft(v.expiresAt, nowMs)].map(visible));
  const header = ["ID", "KIND", "REQUEST", "USD", "TIME LEFT"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/**
 * Every field of one review, one per line (an execute's decoded call and its arguments among them),
 * then what the relayer's simulation saw leave the vault, then the agents' verdicts.
 */
export function formatDetail(v: ReviewView, nowMs: number): string {
  const lines: Array<[string, string]> = [
    ["Request", `${v.requestId} (${v.kind}, ${v.status})`],
    ["Action", v.summary],
    ...(v.call === undefined ? [] : [["Function", v.call.function] as [string, string]]),
    ...(v.call?.arguments ?? []).map(([name, value]): [string, string] => [`  ${name}`, value]),
    ...v.amounts.map((a): [string, string] => ["Amount", a]),
    ["USD value", v.valueUsd ?? "unknown"],
    [v.kind === "execute" ? "Contract" : "Recipient", v.recipient ?? "unknown"],
    ["Bot", botLabel(v, "detail")],
    ["Vault", `${v.vault} on chain ${v.chainId}`],
    ["Held because", v.heldBecause],
    ["Memo", v.memo ?? "(none)"],
    ...v.metadata.map(([key, value]): [string, string] => [`  ${key}`, value]),
    ...offChainRows(v),
    ["Time left", v.status === "pending_review" ? timeLeft(v.expiresAt, nowMs) : "decided"],
    ["Intent hash", v.intentHash],
  ];
  const width = Math.max(...lines.map(([label]) => label.length));
  // An empty label continues the row above (x402Funding's further members).
  const text = lines.map(([label, value]) => `${visible(label === "" ? "" : `${label}:`).padEnd(width + 1)} ${visible(value)}`);
  if (v.outflows.length > 0) text.push(`Moves out of the vault: ${visible(v.outflows.join(", "))}`);
  text.push(v.agents.length === 0 ? "Agents:       (no verdicts)" : "Agents:");
  for (const a of v.agents) text.push(`  ${visible(a.agent)}: ${a.approve ? "approve" : "reject"}${a.reason === "" ? "" : ` (${visible(a.reason)})`}`);
  return text.join("\n") + "\n";
}

/**
 * The off-chain fields the bot sent, one `[label, value]` each, x402Funding one row per leaf (the
 * first labelled), then what an x402 purchase buys (resource, description, price and merchant);
 * nothing for a field not sent. The review screen shows the same rows.
 */
export function offChainRows(v: ReviewView): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  if (v.invoiceId !== undefined) rows.push(["Invoice", v.invoiceId]);
  if (v.orderId !== undefined) rows.push(["Order", v.orderId]);
  if (v.recipientLabel !== undefined) rows.push(["Label", `${v.recipientLabel} (the bot's label for the recipient, not verified)`]);
  if (v.resourceUrl !== undefined) rows.push(["Resource", v.resourceUrl]);
  v.x402Funding.forEach(([path, value], i) => rows.push([i === 0 ? "x402 funding" : "", path === "" ? value : `${path}: ${value}`]));
  const buys = v.x402;
  if (buys !== undefined) {
    rows.push(["Buys", buys.resource ?? "(resource not named)"]);
    if (buys.description) rows.push(["", buys.description]);
    rows.push(["", `${buys.price ?? "?"} to ${buys.payTo ?? "?"}${buys.scheme === undefined ? "" : ` (x402 ${buys.scheme})`}`]);
  }
  return rows;
}

/** The outcome of an approve or reject, in one line. */
export function formatDecision(response: ReviewDecisionResponse): string {
  const parts = [`${response.requestId}: ${response.status}`];
  if (response.txHash !== undefined) parts.push(`tx ${response.txHash}`);
  if (response.reason !== undefined) parts.push(`reason: ${response.reason}`);
  return visible(parts.join(", ")) + "\n";
}


/** The first line of an error's message: what the status line and a `relay: …` line show. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}
