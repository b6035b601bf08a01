// Actions of the bot commands: `relay pay`, `execute`, `swap` (sign, send, optionally wait),
// `relay sign` (print the signed body only) and `relay status`.
import type { RequestKind } from "../../../packages/client/src/types.ts";
import { RelayApiError, RelayUnreachableError } from "../../../packages/client/src/errors.ts";
import { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { cliFetch } from "../http-fetch.ts";
import { relayerUnreachable } from "../output.ts";
import type { Settings } from "../settings.ts";
import { ChainUnreachableError, chainDescription } from "./chain.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import { recentRequests, rememberRequest, updateRequestStatus } from "../state.ts";
import { buildExecute, buildPayment, buildSwap, type ExecuteOptions, type PaymentOptions, type SwapOptions } from "./intents.ts";
import { follow, relayClient, showRequest, type AnyResponse, type WaitFlags } from "./requests.ts";

type Flags<T> = T & SettingsOptions & WaitFlags;

const builders = {
  payment: buildPayment,
  execute: buildExecute,
  swap: buildSwap,
} as const;

/** The kinds `relay pay|execute|swap` and `relay sign` build from flags (an x402 request is built from a paywall's answer). */
type BuiltKind = keyof typeof builders;

/** `relay pay` / `relay execute` / `relay swap`. */
export async function send(kind: BuiltKind, options: Flags<PaymentOptions & ExecuteOptions & SwapOptions>, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const body = await builders[kind](settings, options).catch((error: unknown) => relayerDownInstead(error, settings, io));
  const client = relayClient(settings, io);
  const call = { signal: io.signal, ...(forcedEveryTime(body.metadata?.scenario) ? { retry: { maxAttempts: 1 } } : {}) };
  let response: AnyResponse =
    kind === "payment"
      ? await client.submitPayment(body as Awaited<ReturnType<typeof buildPayment>>, call)
      : kind === "execute"
        ? await client.submitExecute(body as Awaited<ReturnType<typeof buildExecute>>, call)
        : await client.submitSwap(body as Awaited<ReturnType<typeof buildSwap>>, call);
  await rememberRequest(settings.stateDir, {
    requestId: response.requestId,
    kind,
    relayerUrl: settings.relayerUrl,
    chainId: body.chainId,
    vault: body.vaultAddress,
    status: response.status,
    submittedAt: new Date().toISOString(),
  });
  if (options.wait) {
    response = await follow(client, kind, response, options, io);
    await updateRequestStatus(settings.stateDir, response.requestId, response.status);
  }
  showRequest(kind, response, options, io);
}

/**
 * Devnet scenarios that force the same error on every send of the intent (README "Outcomes on demand"):
 * `ai-timeout` and `rate-limited[:N]`. Retrying one only waits to get that answer again (after an AI
 * timeout, two waits of 30 to 60 s for nothing), so such a request is sent once and its error shown
 * at once. `rpc-error-once` is not one: a retry of it succeeds, which is what it tests.
 */
export function forcedEveryTime(scenario: string | undefined): boolean {
  return scenario !== undefined && /^(ai-timeout|rate-limited(:\d+)?)$/.test(scenario);
}

/**
 * Signing reads the chain (the vault's domain) before anything is sent, so with nothing running the
 * chain is what fails first; yet the relayer is what `relay pay` is for. When the relayer does not
 * answer one quick look either, that is the failure reported (exit 5), naming both; when it answers,
 * the chain alone is down (exit 1).
 */
async function relayerDownInstead(error: unknown, settings: Settings, io: CliIO): Promise<never> {
  if (!(error instanceof ChainUnreachableError)) throw error;
  const client = new RelayClient({ baseUrl: settings.relayerUrl, retry: { maxAttempts: 1 }, fetch: cliFetch() });
  try {
    await client.health({ signal: io.signal, timeoutMs: 2_000 });
  } catch (probe) {
    if (probe instanceof RelayUnreachableError) throw relayerUnreachable(probe, chainDescription(settings));
  }
  throw error;
}

/** `relay sign payment|execute|swap`: the signed request body on stdout, nothing sent. */
export async function sign(kind: BuiltKind, options: Flags<PaymentOptions & ExecuteOptions & SwapOptions>, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const body = await builders[kind](settings, options);
  io.stdout.write(`${JSON.stringify(body, null, options.json ? undefined : 2)}\n`);
}

export interface StatusOptions extends SettingsOptions, WaitFlags {
  kind?: RequestKind;
}

/** `relay status [requestId]`: without an id, the most recent request sent from this state directory. */
export async function status(requestId: string | undefined, options: StatusOptions, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const recent = await recentRequests(settings.stateDir);
  const known = requestId === undefined ? recent[0] : recent.find((r) => r.requestId === requestId);
  if (requestId === undefined && known === undefined) {
    throw new CliError(`no request was sent with this state directory (${settings.stateDir}) yet; give a request id`, EXIT.USAGE);
  }
  const id = requestId ?? known!.requestId;
  const client = relayClient(settings, io);
  const kinds: RequestKind[] = options.kind ? [options.kind] : known ? [known.kind] : ["payment", "execute", "swap", "x402"];
  let found: { kind: RequestKind; response: AnyResponse } | undefined;
  for (const kind of kinds) {
    try {
      found = { kind, response: await client.getStatus(kind, id, { signal: io.signal }) };
      break;
    } catch (error) {
      // An id of unknown kind is looked for among payments, then executions, swaps, x402 authorizations.
      if (error instanceof RelayApiError && error.status === 404) continue;
      throw error;
    }
  }
  if (found === undefined) {
    const what = kinds.length > 1 ? "payment, execution, swap or x402 authorization" : { payment: "payment", execute: "execution", swap: "swap", x402: "x402 authorization" }[kinds[0]!];
    throw new CliError(`no ${what} ${id} at ${settings.relayerUrl}`, EXIT.FAILURE);
  }
  let response = found.response;
  if (options.wait) response = await follow(client, found.kind, response, options, io);
  await updateRequestStatus(settings.stateDir, id, response.status);
  showRequest(found.kind, response, options, io);
}
