// Sending a signed request, following it, and showing it: the shared tail of `relay pay`, `execute`,
// `swap` and `status`. The exit code tells the status: 0 approved, 3 rejected, 4 still pending.
import { RelayClient } from "../../../packages/client/src/relay-client.ts";
import type { ExecuteResponse, PaymentResponse, RequestKind, X402Response } from "../../../packages/client/src/types.ts";
import { DEFAULT_POLL_OPTIONS } from "../../../packages/client/src/poll.ts";
import type { RetryEvent } from "../../../packages/client/src/retry.ts";
import { CliError, EXIT, exitWith, type CliIO } from "../io.ts";
import { cliFetch } from "../http-fetch.ts";
import { exitCodeForStatus, printResult } from "../output.ts";
import { formatElapsed, startProgress } from "../progress.ts";
import { colourOn, paintStatus } from "../colour.ts";
import { visible } from "../safe-text.ts";
import type { Settings } from "../settings.ts";

export type AnyResponse = PaymentResponse | ExecuteResponse;

export interface WaitFlags {
  wait?: boolean;
  /** Seconds. */
  timeout?: string;
  json?: boolean;
}

/**
 * A client of the settings' relayer; retries (few) per the client's rules. Each retry is one line on
 * stderr: why, which attempt, how long the wait is and how long the whole call may still take, since
 * a wait can be long (30 to 60 s after an AI_VERIFICATION_TIMEOUT, SPEC.md "Retry rules").
 */
export function relayClient(settings: Settings, io: CliIO): RelayClient {
  return new RelayClient({
    baseUrl: settings.relayerUrl,
    chainId: settings.chainId,
    fetch: cliFetch(),
    retry: {
      maxAttempts: 3,
      onRetry: (event) => io.stderr.write(`relay: ${retryLine(event)}\n`),
    },
  });
}

/** "AI_VERIFICATION_TIMEOUT: …; attempt 1 of 3 failed, retrying in 42s (giving up within 2m55s; Ctrl-C stops)". */
export function retryLine(event: RetryEvent): string {
  const why = event.error.message.split("\n")[0];
  const wait = event.delayMs < 10_000 ? `${(event.delayMs / 1000).toFixed(1)}s` : formatElapsed(event.delayMs);
  return `${why}; attempt ${event.attempt} of ${event.maxAttempts} failed, retrying in ${wait} (giving up within ${formatElapsed(event.remainingMs)}; Ctrl-C stops)`;
}

export function timeoutMsFrom(text: string | undefined): number {
  if (text === undefined) return DEFAULT_POLL_OPTIONS.timeoutMs;
  if (!/^\d+(\.\d+)?$/.test(text)) throw new CliError(`--timeout must be a number of seconds, got "${text}"`, EXIT.USAGE);
  return Number(text) * 1000;
}

/**
 * Poll a pending request until it resolves (with progress on stderr), at SPEC.md's cadence: every
 * 5 s while an AI scan may run, then every 30 s while a human reviews.
 */
export async function follow(client: RelayClient, kind: RequestKind, response: AnyResponse, flags: WaitFlags, io: CliIO): Promise<AnyResponse> {
  if (response.status !== "pending_review") return response;
  const timeoutMs = timeoutMsFrom(flags.timeout);
  const aiWindowMs = "estimatedResolutionMs" in response && response.estimatedResolutionMs !== undefined ? response.estimatedResolutionMs : DEFAULT_POLL_OPTIONS.aiWindowMs;
  const started = Date.now();
  const label = () => {
    const every = Date.now() - started < aiWindowMs ? DEFAULT_POLL_OPTIONS.aiIntervalMs : DEFAULT_POLL_OPTIONS.reviewIntervalMs;
    return `${kind} ${response.requestId} pending review; checking every ${every / 1000}s`;
  };
  const progress = startProgress(io.stderr, label());
  try {
    return await client.waitForResolution(kind, response.requestId, {
      timeoutMs,
      aiWindowMs,
      signal: io.signal,
      onPoll: () => progress.update(label()),
    });
  } finally {
    progress.stop();
  }
}

/** Print a request's state on stdout and end with its exit code. */
export function showRequest(kind: RequestKind, response: AnyResponse, flags: WaitFlags, io: CliIO): void {
  const payment = response as PaymentResponse;
  printResult(io, flags, response, [
    ["status", response.status, (shown) => paintStatus(shown, colourOn(io.stdout, io.env, flags))],
    ["requestId", response.requestId],
    ["kind", kind],
    ["txHash", response.txHash],
    ["reason", response.reason],
    ["pollUrl", payment.pollUrl],
    ["estimatedResolutionMs", payment.estimatedResolutionMs?.toString()],
    // An x402 authorization the vault recorded: the EIP-3009 digest it vouches for.
    ["digest", (response as X402Response).digest],
  ]);
  if (response.status === "pending_review" && !flags.wait) {
    io.stderr.write(`relay: held for review; follow it with \`relay status ${response.requestId} --wait\`\n`);
  }
  if (response.status === "rejected") io.stderr.write(`relay: ${kind} ${visible(response.requestId)} ${rejectedBecause(response.reason)}\n`);
  const code = exitCodeForStatus(response.status);
  if (code !== EXIT.OK) exitWith(code);
}

/** "rejected by the owner: …" reads on after the request's id as it is; other reasons follow "was rejected: ". */
function rejectedBecause(reason: string | undefined): string {
  if (reason === undefined || reason === "") return "was rejected";
  // The owner's or the relayer's words, on one line.
  const shown = visible(reason);
  return shown.startsWith("rejected ") ? shown : `was rejected: ${shown}`;
}
