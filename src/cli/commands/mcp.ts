// `relay mcp`: a Model Context Protocol server acting for one bot key, so that an LLM agent can pay,
// call protocols and swap from its vault, buy from x402 paywalls (fetch_paid, mcp-fetch-paid.ts),
// follow what it sent and read the vault. The settings are
// `relay pay`'s (flags, RELAY_* variables, the devnet manifest), and the intents are built and signed
// by the same code (intents.ts). The owner's key is dropped from the settings before anything runs:
// no tool can act as the owner. On stdio, stdout is the protocol channel; everything else goes to stderr.
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { privateKeyToAddress } from "viem/accounts";
import type { Address } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import { writePrivateFile } from "../../private-files.ts";
import type { BotConfigParams } from "../../chain/vault-config.ts";
import { RelayApiError, RelayUnreachableError, StillPendingError } from "../../../packages/client/src/errors.ts";
import type { RequestKind } from "../../../packages/client/src/types.ts";
import { formatUnits } from "../../../packages/client/src/units.ts";
import type { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { CliError, type CliIO } from "../io.ts";
import { requireBotKey, requireVault, resolveToken, type Settings } from "../settings.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import { ChainUnreachableError, connectChain, resolveAddress } from "./chain.ts";
import { buildExecute, buildPayment, buildSwap } from "./intents.ts";
import { describeConfig } from "./limits.ts";
import { relayClient, type AnyResponse } from "./requests.ts";
import { registerFetchPaid } from "./mcp-fetch-paid.ts";
import { X402Error } from "../../../packages/client/src/x402-errors.ts";

export interface McpOptions extends SettingsOptions {
  /** Serve streamable HTTP on 127.0.0.1 at this port (0 = a free one) instead of stdio. */
  http?: number;
}

/** The structured answer of a refused call (`isError`), with SPEC.md's code. */
interface Refusal {
  code: string;
  details?: string;
  retryable: boolean;
}

/** The deadline an agent may ask `request_status` to wait, in seconds. */
const MAX_WAIT_SECONDS = 600;

/**
 * The API's idempotency key for an agent's `idempotencyKey` text: a UUID drawn from a SHA-256 of the
 * bot's address and the text, so the same text from the same bot is always the same key and two bots
 * never share one. Version nibble 8 (RFC 9562's custom UUIDs), variant 10.
 */
export function idempotencyKeyFor(bot: Address, text: string): string {
  const digest = createHash("sha256").update(`relay mcp idempotency\n${bot.toLowerCase()}\n${text}`).digest();
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** What the server needs to answer tools: the settings without the owner's key, the bot, a client. */
interface Context {
  settings: Settings;
  vault: Address;
  bot: Address;
  client: RelayClient;
  io: CliIO;
  /** Requests sent by this server, by id: their kind, so that `request_status` asks the right route. */
  kinds: Map<string, RequestKind>;
  /**
   * Signed bodies by kind and idempotency key, with the tool arguments they were built from (also kept on disk:
   * `keep`). A retried call with the same `idempotencyKey` and arguments sends the very same body again
   * (the relayer answers with its first answer); re-signing would change the deadline and be a
   * different request.
   */
  signed: Map<string, SignedBody>;
}

/** A signed request body and the fingerprint of the tool call it was built for. */
interface SignedBody {
  args: string;
  body: unknown;
}

/** `relay mcp`. */
export async function mcp(options: McpOptions, io: CliIO): Promise<void> {
  const resolved = await settingsFor(options, io);
  // The owner's key never enters the server: only what the bot may do can be done.
  const settings: Settings = Object.freeze({ ...resolved, ownerKey: undefined });
  const vault = requireVault(settings);
  const bot = privateKeyToAddress(requireBotKey(settings));
  const context: Context = { settings, vault, bot, client: relayClient(settings, io), io, kinds: new Map(), signed: new Map() };
  if (options.http === undefined) await serveStdio(context, io);
  else await serveHttp(context, options.http, io);
}

async function serveStdio(context: Context, io: CliIO): Promise<void> {
  const server = buildServer(context);
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    io.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await server.connect(transport);
  io.stderr.write(`relay: mcp ready on stdio for bot ${context.bot}, vault ${context.vault} on chain ${context.settings.chainId}\n`);
  await closed;
  await server.close();
}

async function serveHttp(context: Context, port: number, io: CliIO): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  // Only this server's own host and origin: a web page the user visits can neither reach it under
  // another name (DNS rebinding) nor post to it from its own origin (a foreign Origin is refused).
  let guard: HttpGuard = { enableDnsRebindingProtection: true, allowedHosts: [], allowedOrigins: [] };
  const http = createServer((req, res) => {
    handleHttp(context, sessions, guard, req, res).catch((error: unknown) => {
      io.stderr.write(`relay: mcp http: ${(error as Error).message}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (error) => reject(new CliError(`cannot listen on 127.0.0.1:${port}: ${error.message}`)));
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = http.address() as AddressInfo;
  const hosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  guard = { enableDnsRebindingProtection: true, allowedHosts: hosts, allowedOrigins: hosts.map((host) => `http://${host}`) };
  io.stderr.write(`relay: mcp ready on http://127.0.0.1:${bound}/mcp for bot ${context.bot}, vault ${context.vault} on chain ${context.settings.chainId}\n`);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    io.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  for (const transport of sessions.values()) await transport.close();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}

interface HttpGuard {
  enableDnsRebindingProtection: true;
  allowedHosts: string[];
  allowedOrigins: string[];
}

// One transport (and one McpServer) per session; a session starts with the client's initialize.
async function handleHttp(context: Context, sessions: Map<string, StreamableHTTPServerTransport>, guard: HttpGuard, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found: the MCP endpoint is /mcp\n");
    return;
  }
  const id = req.headers["mcp-session-id"];
  const existing = typeof id === "string" ? sessions.get(id) : undefined;
  if (existing !== undefined) {
    await existing.handleRequest(req, res);
    return;
  }
  if (typeof id === "string") {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
    return;
  }
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    ...guard,
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await buildServer(context).connect(transport);
  await transport.handleRequest(req, res);
}

const idempotencyKeyInput = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe("Any text naming this request. The same text from this bot is the same request: a retried call with it never pays twice. Without it every call is a new request.");
/** A decimal amount in a token's units ("5", "0.25"): every amount a tool takes. */
const DECIMAL = /^\d+(\.\d+)?$/;
const memoInput = z.string().max(1000).optional().describe("A note for the vault owner's review (not signed, not on-chain)");

// No output schema is declared: a refusal's structured content is `{code, details?, retryable}`, not
// the `{status, requestId, txHash?, reason?}` of an answer, and clients check every result against it.

function buildServer(context: Context): McpServer {
  const server = new McpServer({ name: "relay", version: "0.1.0" }, { capabilities: { logging: {} } });
  const { settings } = context;

  server.registerTool(
    "pay",
    {
      title: "Pay from the vault",
      description:
        "Pay `amount` of `token` from the vault to `to`, signed as this bot. The relayer checks it against the vault's policy: it is approved and executed on-chain, held for the owner's review (pending_review; follow it with request_status), or refused (an error with its code). " +
        "Without `idempotencyKey` each call is a new payment, so retrying a call without one may pay twice; give an `idempotencyKey` to make retries safe.",
      inputSchema: {
        to: z.string().describe("Recipient address (0x…)"),
        amount: z.string().regex(DECIMAL, "a decimal number, e.g. 5 or 0.25").describe("Amount in token units as a decimal string, e.g. \"5\" or \"0.25\""),
        token: z.string().describe("Token symbol (USDC, WETH, …) or address"),
        memo: memoInput,
        idempotencyKey: idempotencyKeyInput,
      },
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      act(context, "payment", args, () => buildPayment(settings, { to: args.to, amount: args.amount, token: args.token, ...optional("memo", args.memo), ...keyOf(context, args.idempotencyKey) }), (r) =>
        sentence("Payment", r, `${args.amount} ${args.token} to ${args.to}`),
      ),
  );

  server.registerTool(
    "execute",
    {
      title: "Call a protocol from the vault",
      description:
        "Have the vault call a contract with the given calldata, signed as this bot, granting it at most the listed token amounts (and sending `value` ETH). Approved and executed, held for review, or refused like a payment. " +
        "Without `idempotencyKey` each call is a new request.",
      inputSchema: {
        protocol: z.string().describe("Contract address to call (0x…)"),
        calldata: z.string().regex(/^0x([0-9a-fA-F]{2})*$/, "0x-prefixed hex of whole bytes").describe("ABI-encoded call data, 0x…"),
        spend: z
          .array(z.object({ token: z.string().describe("Token symbol or address"), amount: z.string().regex(DECIMAL).describe("Decimal amount in token units") }))
          .optional()
          .describe("Tokens the call may spend, each with the most it may take"),
        value: z.string().regex(DECIMAL).optional().describe("ETH sent with the call, in ETH (decimal string)"),
        protocolName: z.string().max(100).optional().describe("Label shown to the owner"),
        memo: memoInput,
        idempotencyKey: idempotencyKeyInput,
      },
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      act(
        context,
        "execute",
        args,
        () =>
          buildExecute(settings, {
            protocol: args.protocol,
            calldata: args.calldata,
            token: (args.spend ?? []).map((s) => s.token),
            amount: (args.spend ?? []).map((s) => s.amount),
            ...optional("value", args.value),
            ...optional("protocolName", args.protocolName),
            ...optional("memo", args.memo),
            ...keyOf(context, args.idempotencyKey),
          }),
        (r) => sentence("Call", r, `of ${args.protocol}`),
      ),
  );

  server.registerTool(
    "swap",
    {
      title: "Swap tokens in the vault",
      description:
        "Swap at most `maxFromAmount` of `fromToken` for at least `minToAmount` of `toToken` inside the vault (the token received must be on its rebalance whitelist: see rebalance_tokens). " +
        "Without `idempotencyKey` each call is a new swap.",
      inputSchema: {
        fromToken: z.string().describe("Token the vault gives up (symbol or address)"),
        maxFromAmount: z.string().regex(DECIMAL).describe("Most of fromToken to spend, decimal in token units"),
        toToken: z.string().describe("Token the vault receives (symbol or address)"),
        minToAmount: z.string().regex(DECIMAL).describe("Least of toToken to accept, decimal in token units"),
        memo: memoInput,
        idempotencyKey: idempotencyKeyInput,
      },
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      act(
        context,
        "swap",
        args,
        () =>
          buildSwap(settings, {
            fromToken: args.fromToken,
            maxFromAmount: args.maxFromAmount,
            toToken: args.toToken,
            minToAmount: args.minToAmount,
            ...optional("memo", args.memo),
            ...keyOf(context, args.idempotencyKey),
          }),
        (r) => sentence("Swap", r, `of at most ${args.maxFromAmount} ${args.fromToken} for at least ${args.minToAmount} ${args.toToken}`),
      ),
  );

  server.registerTool(
    "request_status",
    {
      title: "A request's status",
      description:
        "The status of a payment, call or swap this bot sent: approved (with its transaction), pending_review, or rejected (with the reason). With `wait`, keeps checking while it is pending_review, for at most that many seconds (every 5 s while an AI scan may run, then every 30 s while the owner reviews); each check is sent as progress to a call that carries a progress token.",
      inputSchema: {
        requestId: z.string().min(1).max(200).describe("The requestId a pay, execute or swap call answered"),
        wait: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe(`Seconds to wait for a held request to resolve (at most ${MAX_WAIT_SECONDS})`),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ requestId, wait }, extra) =>
      answer(async () => {
        const found = await lookUp(context, requestId, extra.signal);
        let response = found.response;
        if (wait !== undefined && wait > 0 && response.status === "pending_review") {
          try {
            // Each check is reported as progress when the client asked for it (a progress token), so
            // that a client which times calls out can keep waiting for as long as `wait` says.
            const progressToken = extra._meta?.progressToken;
            response = await context.client.waitForResolution(found.kind, requestId, {
              timeoutMs: wait * 1000,
              signal: extra.signal,
              onPoll: (polled, poll) => {
                if (progressToken === undefined) return;
                void extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: poll, message: `${requestId} is ${polled.status}` } }).catch(() => undefined);
              },
            });
          } catch (error) {
            if (!(error instanceof StillPendingError)) throw error;
            response = error.lastResponse as AnyResponse;
          }
        }
        return statusResult(response, sentence({ payment: "Payment", execute: "Call", swap: "Swap", x402: "x402 authorization" }[found.kind], response, ""));
      }),
  );

  server.registerTool(
    "vault_value",
    {
      title: "The vault's value",
      description: "The vault's total value in USD, with each token's balance (in token units), price and value.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (_args, extra) =>
      answer(async () => {
        const value = await context.client.vaultValue(context.vault, settings.chainId, { signal: extra.signal });
        const tokens = value.tokens.map((t) => ({ symbol: t.symbol, address: t.token, balance: formatUnits(BigInt(t.balance), t.decimals), priceUsd: t.priceUsd, valueUsd: t.valueUsd }));
        const structured = { vault: value.vault, chainId: settings.chainId, totalValueUsd: value.totalValueUsd, tokens };
        const held = tokens.map((t) => `${t.balance} ${t.symbol}`).join(", ");
        return result(structured, `The vault ${value.vault} is worth $${value.totalValueUsd.toFixed(2)}${held === "" ? "" : `: ${held}`}.`);
      }),
  );

  server.registerTool(
    "vault_balances",
    {
      title: "The vault's token balances",
      description: "The vault's balance of each token asked for (symbols or addresses), in token units; without `tokens`, of every token this chain knows.",
      inputSchema: { tokens: z.array(z.string()).max(50).optional().describe("Token symbols or addresses (default: every known token)") },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ tokens }, extra) =>
      answer(async () => {
        const asked = tokens ?? Object.keys(settings.tokens);
        const resolved = asked.map((text) => resolveToken(settings, text));
        const read = await context.client.balances(context.vault, resolved.map((t) => t.address), settings.chainId, { signal: extra.signal });
        const byAddress = new Map(Object.entries(read.balances).map(([address, balance]) => [address.toLowerCase(), balance]));
        const balances = resolved.map((t) => {
          const raw = byAddress.get(t.address.toLowerCase()) ?? "0";
          return { token: t.symbol ?? t.address, address: t.address, balance: t.decimals === undefined ? raw : formatUnits(BigInt(raw), t.decimals), ...(t.decimals === undefined ? { unit: "base units" } : {}) };
        });
        return result({ vault: context.vault, balances }, `The vault holds ${balances.map((b) => `${b.balance} ${b.token}`).join(", ") || "nothing asked for"}.`);
      }),
  );

  server.registerTool(
    "rebalance_tokens",
    {
      title: "Tokens the vault may swap into",
      description: "The vault's effective rebalance whitelist: the tokens a swap may receive.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (_args, extra) =>
      answer(async () => {
        const list = await context.client.rebalanceTokens(context.vault, settings.chainId, { signal: extra.signal });
        const tokens = list.tokens.map((address) => ({ symbol: symbolOf(settings, address), address }));
        return result({ source: list.source, tokens }, `The vault may swap into ${tokens.map((t) => t.symbol ?? t.address).join(", ") || "no token"} (whitelist from ${list.source}).`);
      }),
  );

  server.registerTool(
    "destination_check",
    {
      title: "May this bot pay a recipient?",
      description: "Whether this bot may pay `to` from the vault (blacklist, vault and bot whitelists), and why not when it may not.",
      inputSchema: { to: z.string().describe("Recipient address (0x…)") },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ to }, extra) =>
      answer(async () => {
        const address = resolveAddress(settings, to, "to");
        const check = await context.client.destination(context.vault, context.bot, address, settings.chainId, { signal: extra.signal });
        return result({ to: address, allowed: check.allowed, reason: check.reason }, check.allowed ? `This bot may pay ${address}.` : `This bot may not pay ${address}: ${check.reason}.`);
      }),
  );

  registerFetchPaid(server, { settings, vault: context.vault, client: context.client, answer, result });

  server.registerResource(
    "policy",
    "relay://vault/policy",
    {
      title: "The vault's policy for this bot",
      description: "This bot's limits on the vault (per-transaction cap, spending windows, AI and review thresholds), whether it is active, and the vault's state, read from the chain.",
      mimeType: "application/json",
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(await readPolicy(context), null, 2) }] }),
  );

  return server;
}

/** The bot's configuration and the vault's state, with USD amounts as decimal strings. */
async function readPolicy(context: Context) {
  const clients = await connectChain(context.settings);
  const { abi } = readArtifact("ServiceVault");
  const read = (functionName: string, args: readonly unknown[]) => clients.publicClient.readContract({ address: context.vault, abi, functionName, args });
  const config = (await read("getBotPolicy", [context.bot])) as BotConfigParams;
  const active = (await read("isBotActive", [context.bot])) as boolean;
  const info = await context.client.vaultInfo(context.vault, context.settings.chainId);
  const usd = (amount: bigint) => (amount === 0n ? null : formatUnits(amount, 6));
  return {
    vault: context.vault,
    chainId: context.settings.chainId,
    bot: context.bot,
    botActive: active,
    vaultPaused: info.paused,
    limits: {
      maxPerTxUsd: usd(config.maxPerTxAmount),
      maxRebalanceUsd: usd(config.maxRebalanceAmount),
      aiThresholdUsd: usd(config.aiTriggerThreshold),
      requireAiVerification: config.requireAiVerification,
      requireHumanReview: config.requireHumanReview,
      spendingWindows: config.spendingLimits.map((l) => ({ amountUsd: formatUnits(l.amount, 6), windowSeconds: Number(l.windowSeconds), maxCount: l.maxCount === 0n ? null : Number(l.maxCount) })),
    },
    summary: describeConfig(config).map(([key, value]) => `${key}: ${value}`),
  };
}

/** Send a request built by `build`; with an idempotency key, a retry with the same arguments re-sends the first body. */
async function act<B>(context: Context, kind: RequestKind, args: { idempotencyKey?: string }, build: () => Promise<B>, describe: (r: AnyResponse) => string): Promise<CallToolResult> {
  return answer(async () => {
    const key = args.idempotencyKey === undefined ? undefined : idempotencyKeyFor(context.bot, args.idempotencyKey);
    // The same arguments for the same vault, chain and relayer: a body signed for another is never re-sent.
    const { vault, settings } = context;
    const fingerprint = JSON.stringify({ kind, args, vault, chainId: settings.chainId, relayerUrl: settings.relayerUrl });
    // The relayer keeps keys per kind (a payment and a swap may share one), and so does this server.
    const slot = key === undefined ? undefined : `${kind}-${key}`;
    const earlier = slot === undefined ? undefined : recall(context, slot);
    let body: B;
    if (earlier !== undefined && earlier.args === fingerprint) body = earlier.body as B;
    else {
      body = await build();
      if (slot !== undefined) keep(context, slot, { args: fingerprint, body });
    }
    const call = { signal: context.io.signal };
    const client = context.client;
    const response: AnyResponse =
      kind === "payment"
        ? await client.submitPayment(body as Parameters<RelayClient["submitPayment"]>[0], call)
        : kind === "execute"
          ? await client.submitExecute(body as Parameters<RelayClient["submitExecute"]>[0], call)
          : await client.submitSwap(body as Parameters<RelayClient["submitSwap"]>[0], call);
    context.kinds.set(response.requestId, kind);
    return statusResult(response, describe(response));
  });
}

/**
 * Signed bodies are also kept in `<state-dir>/mcp/<kind>-<key>.json` (0600; a signed intent holds no key), so
 * that a retry after the server restarted re-sends the same body and gets the first answer too.
 */
function signedFile(context: Context, slot: string): string {
  return path.join(context.settings.stateDir, "mcp", `${slot}.json`);
}

function recall(context: Context, slot: string): SignedBody | undefined {
  const known = context.signed.get(slot);
  if (known !== undefined) return known;
  let kept: unknown;
  try {
    kept = JSON.parse(readFileSync(signedFile(context, slot), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof kept !== "object" || kept === null || typeof (kept as SignedBody).args !== "string") return undefined;
  context.signed.set(slot, kept as SignedBody);
  return kept as SignedBody;
}

function keep(context: Context, slot: string, signed: SignedBody): void {
  context.signed.set(slot, signed);
  const file = signedFile(context, slot);
  try {
    writePrivateFile(file, JSON.stringify(signed));
  } catch (error) {
    // The request still goes out; only a retry after a restart is refused (IDEMPOTENCY_CONFLICT) instead of answered.
    context.io.stderr.write(`relay: cannot keep the signed request in ${file} (${(error as Error).message.split("\n")[0]}); a retry after a restart of this server is refused rather than answered\n`);
  }
}

/** A request's status, by the kind this server sent it as, else among payments, executions, swaps, x402 authorizations. */
async function lookUp(context: Context, requestId: string, signal: AbortSignal): Promise<{ kind: RequestKind; response: AnyResponse }> {
  const known = context.kinds.get(requestId);
  const kinds: RequestKind[] = known === undefined ? ["payment", "execute", "swap", "x402"] : [known];
  for (const kind of kinds) {
    try {
      return { kind, response: await context.client.getStatus(kind, requestId, { signal }) };
    } catch (error) {
      if (error instanceof RelayApiError && error.status === 404) continue;
      throw error;
    }
  }
  throw new RelayApiError({ status: 404, code: "NOT_FOUND", message: `no payment, execution, swap or x402 authorization ${requestId} at ${context.settings.relayerUrl}` });
}

function statusResult(response: AnyResponse, text: string): CallToolResult {
  const structured = {
    status: response.status,
    requestId: response.requestId,
    ...(response.txHash === undefined ? {} : { txHash: response.txHash }),
    ...(response.reason === undefined ? {} : { reason: response.reason }),
  };
  return result(structured, text);
}

/** One human sentence for a request's outcome. */
function sentence(what: string, response: AnyResponse, detail: string): string {
  const subject = `${what}${detail === "" ? "" : ` ${detail}`} (${response.requestId})`;
  switch (response.status) {
    case "approved":
      return `${subject} was approved and executed${response.txHash === undefined ? "" : ` in transaction ${response.txHash}`}.`;
    case "pending_review":
      return `${subject} is held for the owner's review; follow it with request_status.`;
    default:
      return `${subject} was rejected${response.reason === undefined ? "" : `: ${response.reason}`}.`;
  }
}

function result(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** Run a tool; what it throws becomes a tool error whose structured content is `{code, details?, retryable}`. */
async function answer(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    const refusal = refusalOf(error);
    const text = `Refused: ${refusal.code}${refusal.details === undefined ? "" : ` (${refusal.details})`}${refusal.retryable ? "; the same call may be retried." : "; the request must change before it is sent again."}`;
    return { isError: true, content: [{ type: "text", text }], structuredContent: { ...refusal } };
  }
}

/** SPEC.md's code for a failure: the relayer's own, or the code of the error class it matches. */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof RelayApiError) {
    return { code: error.code, details: error.details ?? error.message.replace(/^[A-Z_0-9]+: /, ""), retryable: error.retryable };
  }
  if (error instanceof RelayUnreachableError) return { code: "RELAYER_UNREACHABLE", details: error.message, retryable: true };
  // fetch_paid's own refusals (a price above the maximum, a held or rejected payment, …): nothing was paid.
  if (error instanceof X402Error) return { code: error.code, details: error.message, retryable: false };
  if (error instanceof ChainUnreachableError) return { code: "RPC_ERROR", details: error.message, retryable: true };
  if (error instanceof CliError) return { code: "INVALID_REQUEST", details: error.message, retryable: false };
  const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
  return { code: "INTERNAL_ERROR", details: message, retryable: false };
}

function symbolOf(settings: Settings, address: string): string | undefined {
  return Object.entries(settings.tokens).find(([, t]) => t.address.toLowerCase() === address.toLowerCase())?.[0];
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function keyOf(context: Context, text: string | undefined): { idempotencyKey?: string } {
  return text === undefined ? {} : { idempotencyKey: idempotencyKeyFor(context.bot, text) };
}

