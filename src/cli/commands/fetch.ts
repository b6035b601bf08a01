// `relay fetch <url>`: get a URL, paying an x402 paywall (HTTP 402) from the vault (DESIGN.md §11).
// The body goes to stdout (`--json`: {status, headers, body, payment}); what was paid goes to stderr.
// Exit codes as `relay pay`: 3 refused (a price above --max, the relayer's or the owner's refusal,
// nothing payable), 4 held for review (without --wait), 0 otherwise, also for a URL that needs no payment.
import { formatUnits } from "../../../packages/client/src/units.ts";
import { payingFetch, type PaidResponse, type X402Event, type X402Payment } from "../../../packages/client/src/paying-fetch.ts";
import {
  X402Error,
  X402NoPayableRequirementError,
  X402PaymentHeldError,
  X402PaymentRejectedError,
  X402PriceAboveMaxError,
  type X402Mode,
} from "../../../packages/client/src/x402-errors.ts";
import type { PaymentResponse } from "../../../packages/client/src/types.ts";
import { DEFAULT_POLL_OPTIONS } from "../../../packages/client/src/poll.ts";
import type { Address } from "viem";
import { typedDataSigner } from "../../crypto/typed-data-signer.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { jsonReplacer } from "../output.ts";
import { startProgress, type Progress } from "../progress.ts";
import { visible } from "../safe-text.ts";
import { requireBotKey, requireVault, type Settings } from "../settings.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import { rememberRequest, updateRequestStatus } from "../state.ts";
import { clientsFor } from "../../chain/clients.ts";
import { connectChain } from "./chain.ts";
import { relayClient, timeoutMsFrom, type WaitFlags } from "./requests.ts";

export interface FetchOptions extends SettingsOptions, WaitFlags {
  max?: string;
  mode?: X402Mode;
  memo?: string;
}

const usage = (message: string) => new CliError(message, EXIT.USAGE);

export async function fetchPaid(url: string, options: FetchOptions, io: CliIO): Promise<void> {
  if (!URL.canParse(url) || !["http:", "https:"].includes(new URL(url).protocol)) throw usage(`the URL must be http:// or https://, got "${url}"`);
  if (options.max !== undefined && !/^(\d+(\.\d*)?|\.\d+)$/.test(options.max)) throw usage(`--max is the most to pay in the asset's units, e.g. 0.05; got "${options.max}"`);
  const timeoutMs = timeoutMsFrom(options.timeout);
  const settings = await settingsFor(options, io);
  const vault = requireVault(settings);
  const bot = typedDataSigner(requireBotKey(settings));
  // The chain is asked (and checked to be the settings' chain) only once a paywall asks for payment:
  // a URL that answers without a 402 needs no chain.
  let connected: Promise<unknown> | undefined;
  const merchantFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 402) await (connected ??= connectChain(settings));
    return response;
  };
  const chain = clientsFor(settings.rpcUrl, settings.chainId, { transport: "node:http" }).publicClient;
  const relay = relayClient(settings, io);
  let progress: Progress | undefined;
  const paid = payingFetch({
    relay,
    bot,
    chain,
    vault,
    fetch: merchantFetch,
    mode: options.mode ?? "vault",
    ...(options.max === undefined ? {} : { max: options.max }),
    ...(options.memo === undefined ? {} : { memo: options.memo }),
    wait: options.wait
      ? {
          timeoutMs,
          signal: io.signal,
          onPoll: (response: PaymentResponse) => progress?.update(`payment ${response.requestId} pending review; checking every ${DEFAULT_POLL_OPTIONS.reviewIntervalMs / 1000}s`),
        }
      : false,
    onEvent: (event) => {
      progress = report(event, settings, io, progress);
      void remember(event, settings, vault);
    },
  });
  let response: PaidResponse;
  try {
    response = await paid(url, { signal: io.signal });
  } catch (error) {
    throw cliErrorOf(error, url, settings, options, io);
  } finally {
    progress?.stop();
  }
  if (response.payment !== undefined) await updateRequestStatus(settings.stateDir, response.payment.requestId, response.payment.status);
  await print(response, options, io);
}

/** One line on stderr per step; a spinner (on a TTY) while the owner decides. */
function report(event: X402Event, settings: Settings, io: CliIO, progress: Progress | undefined): Progress | undefined {
  const line = (text: string) => io.stderr.write(`relay: ${visible(text)}\n`);
  if (event.type === "payment-required") {
    const { requirement } = event;
    line(`${event.url} asks ${price(settings, requirement.asset, BigInt(requirement.amount))}, paid to ${requirement.payTo}; paying from the vault (mode ${event.mode})`);
  } else if (event.type === "vault-cannot-pay") {
    line(`the vault cannot be the payer here (${event.reason}); paying in funding mode instead`);
  } else if (event.type === "held") {
    return startProgress(io.stderr, `payment ${event.requestId} held for the owner's review; waiting`);
  } else if (event.type === "executed") {
    progress?.stop();
    line(`payment ${event.requestId} executed: ${event.txHash}`);
  }
  return progress;
}

async function remember(event: X402Event, settings: Settings, vault: Address): Promise<void> {
  // `relay status <id>` follows them: a funding payment is a payment, the vault's own an x402 request.
  if (event.type !== "submitted") return;
  await rememberRequest(settings.stateDir, {
    requestId: event.requestId,
    kind: event.mode === "funding" ? "payment" : "x402",
    relayerUrl: settings.relayerUrl,
    chainId: settings.chainId,
    vault,
    status: event.status,
    submittedAt: new Date().toISOString(),
  }).catch(() => {});
}

async function print(response: PaidResponse, options: FetchOptions, io: CliIO): Promise<void> {
  const text = await response.text();
  const payment = response.payment === undefined ? undefined : paymentJson(response.payment);
  if (options.json) {
    const type = response.headers.get("content-type") ?? "";
    const body = /[/+]json\b/i.test(type) ? parsedOr(text) : text;
    io.stdout.write(`${JSON.stringify({ status: response.status, headers: Object.fromEntries(response.headers), body, payment: payment ?? null }, jsonReplacer)}\n`);
    return;
  }
  io.stdout.write(text.endsWith("\n") || text === "" ? text : `${text}\n`);
  if (payment?.settlementTx) io.stderr.write(`relay: paid; the merchant settled in ${payment.settlementTx}\n`);
}

function paymentJson(payment: X402Payment) {
  return { requestId: payment.requestId, status: payment.status, mode: payment.mode, txHash: payment.txHash, settlementTx: payment.settlementTx ?? null };
}

function cliErrorOf(error: unknown, url: string, settings: Settings, options: FetchOptions, io: CliIO): unknown {
  if (error instanceof X402PriceAboveMaxError) {
    return new CliError(`the price ${price(settings, error.requirement.asset, error.price)} is above --max ${options.max}; nothing was paid`, EXIT.REJECTED);
  }
  if (error instanceof X402PaymentHeldError) {
    if (options.json) io.stdout.write(`${JSON.stringify({ status: 402, payment: { requestId: error.requestId, status: "pending_review", mode: error.mode } })}\n`);
    return new CliError(`payment ${error.requestId} is held for the owner's review; nothing was paid (follow it with \`relay status ${error.requestId}\`, or buy with --wait to wait for the owner)`, EXIT.PENDING);
  }
  if (error instanceof X402PaymentRejectedError) {
    return new CliError(`payment ${error.requestId} was rejected${error.reason ? `: ${visible(error.reason)}` : ""}; nothing was paid`, EXIT.REJECTED);
  }
  if (error instanceof X402NoPayableRequirementError) return new CliError(visible(error.message), EXIT.REJECTED);
  if (error instanceof X402Error && error.code === "X402_INVALID_MAX") return usage(visible(error.message));
  if (error instanceof X402Error) return new CliError(visible(error.message), EXIT.FAILURE);
  if (error instanceof TypeError && error.message === "fetch failed") {
    const cause = (error.cause as Error | undefined)?.message;
    return new CliError(`cannot reach ${new URL(url).origin}${cause ? ` (${visible(cause)})` : ""}`, EXIT.FAILURE);
  }
  return error;
}

/** "0.01 USDC" for a known token, else base units and the address. */
function price(settings: Settings, asset: string, amount: bigint): string {
  const known = Object.entries(settings.tokens).find(([, token]) => token.address.toLowerCase() === asset.toLowerCase());
  return known ? `${formatUnits(amount, known[1].decimals)} ${known[0]}` : `${amount} base units of ${asset}`;
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
