// Turning a review item from the relayer into what an owner reads: amounts in human units with the
// token's symbol, the USD value, the recipient, the agents' verdicts and the time left to decide.
//
// The relayer guarantees only the fields of `ReviewItem`; the rest is read where the relayer puts it:
// the intent under `intent` (else on the item itself) with its own field names (payment `to, token,
// amount`; execute `protocol, tokens, amounts, value`; swap `fromToken, maxFromAmount, toToken,
// minToAmount`; x402 `token, payTo, amount, validBefore`, with `x402`, what it buys), `protocolName`, the relayer's token table in `amounts` (`[{token, symbol, decimals}]`),
// `usdValue` or `valueUsd` (dollars), `agents` or `verdicts` (`[{agent, approve, reason}]`, possibly as
// JSON text) and `reviewExpiresAt` or `expiresAt` (unix ms or seconds, or an ISO date). For an execute
// whose item carries its `callData`, the call is decoded here, from the calldata itself, by the same
// decoder the relayer uses (call-decode.ts): what the owner reads is what the calldata says, and the
// approval checks that calldata against the signed intent (verify-item.ts). Without `callData`, `call`
// is the relayer's decoding, shown as written; `outflows` (what its simulation saw leave the vault)
// is always the relayer's. Missing extras are simply not shown. Much of an item is the bot's words
// (memo, metadata, protocolName, the off-chain fields) or read from contracts the bot chose (token
// symbols in `amounts`, the decoded call, the outflows): every string of the view is made visible
// (../safe-text.ts), so whatever shows a view shows no control character raw.
import { isAddress, type Hex } from "viem";
import { formatUnits } from "../../../packages/client/src/units.ts";
import { decodeCall } from "../../relayer/chain/call-decode.ts";
import type { ReviewItem } from "../../../packages/client/src/types.ts";
import { visible, visibleDeep } from "../safe-text.ts";

export interface TokenInfo {
  symbol: string;
  decimals: number;
}

/** Known tokens by lower-case address. */
export type TokenBook = ReadonlyMap<string, TokenInfo>;

/** The owner's own names for bots (`default`, `reviewed`, …) by lower-case address: the devnet manifest's `accounts.bots`. */
export type BotBook = ReadonlyMap<string, string>;

/** A bot book from a manifest's `accounts.bots` (name → key pair); empty without a manifest. */
export function botBook(bots: Readonly<Record<string, { address: string }>> | undefined): BotBook {
  return new Map(Object.entries(bots ?? {}).map(([name, bot]) => [bot.address.toLowerCase(), name]));
}

/** A token book from the CLI settings' `tokens` (symbol → address and decimals). */
export function tokenBook(tokens: Readonly<Record<string, { address: string; decimals: number }>>): TokenBook {
  return new Map(Object.entries(tokens).map(([symbol, t]) => [t.address.toLowerCase(), { symbol, decimals: t.decimals }]));
}

export interface AgentVerdict {
  agent: string;
  approve: boolean;
  reason: string;
}

/** A review as the screens and the text output show it. */
export interface ReviewView {
  requestId: string;
  kind: string;
  status: string;
  chainId: number;
  vault: string;
  bot: string;
  /** The bot's name in the owner's manifest (e.g. "reviewed"); undefined for a bot it does not name. */
  botName: string | undefined;
  intentHash: string;
  /** One line saying what the request would do, e.g. "pay 5 USDC to 0x1234…abcd". */
  summary: string;
  /** Each amount involved, human units then base units, e.g. "5 USDC (5000000)". */
  amounts: string[];
  /** Who receives the money or the call: the payee, the protocol, or the vault itself for a swap. */
  recipient: string | undefined;
  /** e.g. "$5.00". */
  valueUsd: string | undefined;
  memo: string | undefined;
  metadata: Array<[string, string]>;
  /** The off-chain fields the bot sent, control characters made visible; undefined or empty when not sent. */
  invoiceId: string | undefined;
  orderId: string | undefined;
  /** The bot's own name for the recipient: never checked against the address. */
  recipientLabel: string | undefined;
  resourceUrl: string | undefined;
  /** x402Funding flattened to one `[path, value]` per leaf, e.g. ["extra.name", "USDC"], ["amount", "1000"]. */
  x402Funding: Array<[string, string]>;
  /**
   * What an x402 request, or a funding payment naming its requirement, buys (the item's `x402`): the
   * resource and its description, the merchant, the price in human units, the scheme.
   */
  x402: X402Purchase | undefined;
  /** An execute's call as the relayer decoded it; undefined when the item carries none. */
  call: CallView | undefined;
  /** What the relayer's simulation saw leave the vault, e.g. "20,000 USDC ($20,000.00)"; empty when not given. */
  outflows: string[];
  heldBecause: string;
  agents: AgentVerdict[];
  /** Unix ms. */
  createdAt: number | undefined;
  /** When the review lapses into `rejected`, unix ms. */
  expiresAt: number | undefined;
  /** The bot's intent deadline, unix ms. */
  deadline: number | undefined;
}

export interface X402Purchase {
  resource: string | undefined;
  description: string | undefined;
  payTo: string | undefined;
  /** e.g. "0.01 USDC (10000)". */
  price: string | undefined;
  scheme: string | undefined;
}

export interface CallView {
  decoded: boolean;
  /** "approve(address,uint256)", or why it was not decoded: "not decoded: unknown function 0x… (68 bytes of calldata)". */
  function: string;
  /** Each argument's name and value, e.g. ["amount", "20,000 USDC (20000000000 base units)"]. */
  arguments: Array<[string, string]>;
  /** One line, e.g. "approve(spender 0x7099…79C8, amount 20,000 USDC)". */
  summary: string;
}

type Fields = Record<string, unknown>;

export function describeReview(item: ReviewItem, tokens: TokenBook = new Map(), bots: BotBook = new Map()): ReviewView {
  const intent: Fields = isRecord(item.intent) ? { ...item, ...item.intent } : item;
  const book = withRelayerTokens(tokens, item.amounts);
  const call = ownDecoding(item, intent, book) ?? callView(item.call);
  const does = whatItDoes(item.kind, intent, book, call);
  const { summary, amounts, recipient } = withSwap(does, (item as Fields).swap, book);
  return visibleDeep<ReviewView>({
    requestId: item.requestId,
    kind: item.kind,
    status: item.status,
    chainId: item.chainId,
    vault: item.vault,
    bot: item.bot,
    botName: bots.get(item.bot.toLowerCase()),
    intentHash: item.intentHash,
    summary,
    amounts,
    recipient,
    valueUsd: usdText(item),
    memo: str(item.memo),
    metadata: Object.entries(item.metadata ?? {}).map(([key, value]) => [key, String(value)]),
    invoiceId: str(item.invoiceId),
    orderId: str(item.orderId),
    recipientLabel: str(item.recipientLabel),
    resourceUrl: str(item.resourceUrl),
    x402Funding: isRecord(item.x402Funding) ? leaves(item.x402Funding, "") : item.x402Funding === true ? [["", "true"]] : [],
    x402: purchaseOf(item.x402, book),
    call,
    outflows: Array.isArray(item.outflows) ? item.outflows.filter(isRecord).map((o) => str(o.text) ?? "?") : [],
    heldBecause: item.heldBecause,
    agents: verdicts(item.agents ?? item.verdicts),
    createdAt: toMs(item.createdAt),
    expiresAt: toMs(item.reviewExpiresAt ?? item.expiresAt),
    deadline: toMs(item.deadline),
  });
}

function whatItDoes(kind: string, f: Fields, tokens: TokenBook, call: CallView | undefined): { summary: string; amounts: string[]; recipient: string | undefined } {
  if (kind === "x402") {
    const amount = tokenAmount(f.amount, f.token, tokens);
    const payTo = str(f.payTo);
    return { summary: `let ${payTo === undefined ? "?" : shortAddress(payTo)} collect ${amount?.human ?? "?"} from the vault (x402)`, amounts: listed(amount), recipient: payTo };
  }
  if (kind === "payment") {
    const amount = tokenAmount(f.amount, f.token, tokens);
    const to = str(f.to);
    return { summary: `pay ${amount?.human ?? "?"} to ${to === undefined ? "?" : shortAddress(to)}`, amounts: listed(amount), recipient: to };
  }
  if (kind === "swap") {
    const from = tokenAmount(f.maxFromAmount, f.fromToken, tokens);
    const to = tokenAmount(f.minToAmount, f.toToken, tokens);
    return {
      summary: `swap up to ${from?.human ?? "?"} for at least ${to?.human ?? "?"}`,
      amounts: [...listed(from), ...listed(to)],
      recipient: "the vault itself",
    };
  }
  const protocol = str(f.protocol);
  const name = str(f.protocolName) ?? (isRecord(f.call) ? str(f.call.targetSymbol) : undefined);
  const list = Array.isArray(f.tokens) ? f.tokens : [];
  const spent = list.map((token, i) => tokenAmount(Array.isArray(f.amounts) ? f.amounts[i] : undefined, token, tokens));
  const amounts = spent.flatMap(listed);
  const value = bigintOf(f.value);
  if (value !== undefined && value > 0n) amounts.push(`${formatUnits(value, 18)} ETH (${value} wei)`);
  const target = protocol === undefined ? "?" : `${shortAddress(protocol)}${name === undefined ? "" : ` (${name})`}`;
  const spending = spent.length === 0 ? "" : ` spending ${spent.map((a) => a?.human ?? "?").join(", ")}`;
  const decoded = call?.decoded ? `: ${call.summary}` : "";
  return { summary: `call ${target}${decoded}${spending}`, amounts, recipient: protocol };
}

// The relayer's decoding of an execute's calldata (see ReviewCall in the API's schemas).
/** An execute's call decoded from the calldata the item carries; undefined when it carries none. */
function ownDecoding(item: ReviewItem, intent: Fields, tokens: TokenBook): CallView | undefined {
  const callData = item.callData;
  const protocol = str(intent.protocol);
  if (item.kind !== "execute" || typeof callData !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(callData) || protocol === undefined || !isAddress(protocol)) return undefined;
  return callView(decodeCall(protocol, callData as Hex, { tokens, vault: isAddress(item.vault) ? item.vault : undefined }));
}

function callView(raw: unknown): CallView | undefined {
  if (!isRecord(raw)) return undefined;
  const summary = str(raw.summary) ?? "not decoded";
  if (raw.decoded !== true) return { decoded: false, function: summary.startsWith("not decoded") ? summary : `not decoded: ${summary}`, arguments: [], summary };
  const args = Array.isArray(raw.arguments) ? raw.arguments.filter(isRecord) : [];
  return {
    decoded: true,
    function: str(raw.signature) ?? str(raw.function) ?? "?",
    arguments: args.map((a): [string, string] => [str(a.name) ?? "?", str(a.text) ?? String(a.value)]),
    summary,
  };
}

/** The item's `x402`, the price in human units where the token is known. */
function purchaseOf(raw: unknown, tokens: TokenBook): X402Purchase | undefined {
  if (!isRecord(raw)) return undefined;
  const price = tokenAmount(raw.amount, raw.asset, tokens);
  return { resource: str(raw.resource), description: str(raw.description), payTo: str(raw.payTo), price: price?.line ?? str(raw.amount), scheme: str(raw.scheme) };
}

/** A swap-and-pay (the item's `swap`): the summary and amounts say what the swap may spend too. */
function withSwap(does: ReturnType<typeof whatItDoes>, swap: unknown, tokens: TokenBook): ReturnType<typeof whatItDoes> {
  if (!isRecord(swap) || !isRecord(swap.intent)) return does;
  const spends = tokenAmount(swap.intent.maxFromAmount, swap.intent.fromToken, tokens);
  return {
    ...does,
    summary: `${does.summary}, swapping at most ${spends?.human ?? "?"} for it`,
    amounts: [...does.amounts, ...(spends === undefined ? [] : [`${spends.line} at most, swapped`])],
  };
}

interface Amount {
  human: string;
  line: string;
}

function tokenAmount(rawAmount: unknown, rawToken: unknown, tokens: TokenBook): Amount | undefined {
  const amount = bigintOf(rawAmount);
  const token = str(rawToken);
  if (amount === undefined || token === undefined) return undefined;
  const known = tokens.get(token.toLowerCase());
  if (known === undefined) {
    const human = `${amount} base units of ${shortAddress(token)}`;
    return { human, line: human };
  }
  const human = `${formatUnits(amount, known.decimals)} ${known.symbol}`;
  return { human, line: `${human} (${amount})` };
}

function listed(amount: Amount | undefined): string[] {
  return amount === undefined ? [] : [amount.line];
}

// The tokens the relayer described in the item's `amounts`, added to those the CLI knows.
function withRelayerTokens(tokens: TokenBook, amounts: unknown): TokenBook {
  if (!Array.isArray(amounts)) return tokens;
  const book = new Map(tokens);
  for (const entry of amounts.filter(isRecord)) {
    const token = str(entry.token);
    const symbol = str(entry.symbol);
    if (token !== undefined && symbol !== undefined && typeof entry.decimals === "number" && !book.has(token.toLowerCase())) {
      book.set(token.toLowerCase(), { symbol, decimals: entry.decimals });
    }
  }
  return book;
}

function usdText(item: ReviewItem): string | undefined {
  for (const value of [item.usdValue, item.valueUsd]) {
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number === "number" && Number.isFinite(number)) return dollars(number);
  }
  return undefined;
}

function dollars(value: number): string {
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

function verdicts(raw: unknown): AgentVerdict[] {
  let value = raw;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [];
    }
  }
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((v) => ({
    agent: str(v.agent) ?? str(v.name) ?? "agent",
    approve: v.approve === true || v.approved === true || v.verdict === "approve",
    reason: str(v.reason) ?? "",
  }));
}

/** One `[path, value]` per leaf of a JSON value: strings as they are, other values as JSON. */
function leaves(value: unknown, path: string): Array<[string, string]> {
  if (Array.isArray(value)) {
    if (value.length === 0) return [[path, "[]"]];
    return value.flatMap((item, i) => leaves(item, `${path}[${i}]`));
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [[path, "{}"]];
    return entries.flatMap(([key, item]) => leaves(item, path === "" ? visible(key) : `${path}.${visible(key)}`));
  }
  return [[path, typeof value === "string" ? value : String(JSON.stringify(value))]];
}

/** A time as unix ms: numbers below 1e12 are taken as seconds; strings as integers or ISO dates. */
export function toMs(value: unknown): number | undefined {
  if (typeof value === "string" && /^\d+$/.test(value)) value = Number(value);
  if (typeof value === "number" && Number.isFinite(value)) return value < 1e12 ? value * 1000 : value;
  if (typeof value === "string") {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
}

/** "2h 05m", "4m 10s", "12s", or "expired". */
export function timeLeft(untilMs: number | undefined, nowMs: number): string {
  if (untilMs === undefined) return "unknown";
  const seconds = Math.floor((untilMs - nowMs) / 1000);
  if (seconds <= 0) return "expired";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/**
 * The bot as the owner knows it: on a list line its manifest name, else its short address; in a
 * detail, the name with the full address beside it, else the address.
 */
export function botLabel(v: Pick<ReviewView, "bot" | "botName">, form: "line" | "detail"): string {
  if (v.botName === undefined) return form === "line" ? shortAddress(v.bot) : v.bot;
  return form === "line" ? v.botName : `${v.botName} (${v.bot})`;
}

/** 0x1234…abcd */
export function shortAddress(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function bigintOf(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  return undefined;
}

