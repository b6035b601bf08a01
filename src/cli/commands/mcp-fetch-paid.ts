// `relay mcp`'s `fetch_paid` tool: get a URL, paying an x402 paywall (HTTP 402) from the vault, as
// `relay fetch` does (relay-client's payingFetch), with a maximum price the agent must state. The
// answer is the merchant's status, content type and body (parsed when JSON, cut at 100,000
// characters) and the payment; a refusal is a tool error with its code (X402_PRICE_ABOVE_MAX,
// X402_PAYMENT_HELD, the relayer's own, …), nothing paid.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Address } from "viem";
import { payingFetch } from "../../../packages/client/src/paying-fetch.ts";
import type { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { StillPendingError } from "../../../packages/client/src/errors.ts";
import { X402Error, X402PaymentHeldError } from "../../../packages/client/src/x402-errors.ts";
import { typedDataSigner } from "../../crypto/typed-data-signer.ts";
import { requireBotKey, type Settings } from "../settings.ts";
import { connectChain } from "./chain.ts";

/** The most of a body an agent is given, in characters. */
const MAX_BODY_CHARS = 100_000;
const MAX_WAIT_SECONDS = 600;

export interface FetchPaidDeps {
  settings: Settings;
  vault: Address;
  client: RelayClient;
  /** Runs the tool; what it throws becomes a tool error `{code, details?, retryable}`. */
  answer(run: () => Promise<CallToolResult>): Promise<CallToolResult>;
  result(structured: Record<string, unknown>, text: string): CallToolResult;
}

export function registerFetchPaid(server: McpServer, deps: FetchPaidDeps): void {
  server.registerTool(
    "fetch_paid",
    {
      title: "Get a URL, paying its x402 paywall from the vault",
      description:
        "GET an http(s) URL; if it answers HTTP 402 (x402), pay it from the vault under the vault's policy and return the paid response. `max` is the most you accept to pay, in the asset's units (e.g. \"0.05\" USDC), inclusive: a higher price is refused before anything is signed. " +
        "Mode `vault` (default) has the vault pay the merchant; `funding` funds this bot, which pays. A payment held for the owner's review is an error X402_PAYMENT_HELD with its requestId unless `wait` gives seconds to wait for the owner. Each call that pays is a new purchase.",
      inputSchema: {
        url: z.string().url().describe("The http(s) URL to get"),
        max: z.string().regex(/^\d+(\.\d+)?$/, "a decimal number, e.g. 0.05").describe("The most to pay, in the asset's units (decimal string), inclusive"),
        mode: z.enum(["vault", "funding"]).optional().describe("vault (default): the vault pays the merchant; funding: the vault funds the bot, which pays"),
        wait: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe(`Seconds to wait for the owner when the payment is held (at most ${MAX_WAIT_SECONDS})`),
      },
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ url, max, mode, wait }, extra) =>
      deps.answer(async () => {
        if (!["http:", "https:"].includes(new URL(url).protocol)) throw new X402Error("INVALID_REQUEST", `the URL must be http:// or https://, got "${url}"`);
        const chain = (await connectChain(deps.settings)).publicClient;
        const paid = payingFetch({
          relay: deps.client,
          bot: typedDataSigner(requireBotKey(deps.settings)),
          chain,
          vault: deps.vault,
          mode: mode ?? "vault",
          max,
          wait: wait !== undefined && wait > 0 ? { timeoutMs: wait * 1000, signal: extra.signal } : false,
        });
        let response;
        try {
          response = await paid(url, { signal: extra.signal });
        } catch (error) {
          // Waiting ran out with the payment still held: the same answer as not waiting.
          if (error instanceof StillPendingError) throw new X402PaymentHeldError(error.requestId, mode ?? "vault");
          throw error;
        }
        const type = response.headers.get("content-type") ?? "";
        const text = await response.text();
        const cut = text.length > MAX_BODY_CHARS;
        const shown = cut ? text.slice(0, MAX_BODY_CHARS) : text;
        const body = /[/+]json\b/i.test(type) && !cut ? parsedOr(shown) : shown;
        const payment = response.payment === undefined ? null : {
          requestId: response.payment.requestId,
          status: response.payment.status,
          mode: response.payment.mode,
          txHash: response.payment.txHash,
          settlementTx: response.payment.settlementTx ?? null,
        };
        const structured = { status: response.status, contentType: type, body, ...(cut ? { truncated: true } : {}), payment };
        const what = payment === null ? "no payment was asked" : `paid from the vault (${payment.mode} mode, request ${payment.requestId}, settled in ${payment.settlementTx ?? "an unknown transaction"})`;
        return deps.result(structured, `${url} answered ${response.status}; ${what}.\n${shown}`);
      }),
  );
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
