// `payingFetch`: a `fetch` that answers an x402 v2 paywall (HTTP 402) by paying from the bot's vault,
// through the relayer, under the vault's policy and the owner's review.
//
//   const paidFetch = payingFetch({ relay, bot, chain: publicClient, vault, max: "0.05" });
//   const res = await paidFetch("https://api.example/report");
//   console.log(res.status, await res.json(), res.payment?.settlementTx);
//
// A 402's requirement is chosen (x402-choose.ts) and its price checked against `max` before anything
// is signed. Then, by `mode`:
// - `vault` (default): the bot signs an X402Intent for exactly that payment; once the relayer has
//   executed it (the vault records the EIP-3009 digest as approved), the paid retry carries an
//   authorization whose `from` is the vault, and the merchant's facilitator settles from the vault.
//   Where the relayer or the vault cannot pay x402 itself, `funding` is used instead.
// - `funding`: a payment of exactly the price to the bot's own address carrying `x402Funding` (the
//   requirement, so the vault's rules see the merchant); once executed the bot signs the
//   authorization from its own key.
// A payment held for review throws X402PaymentHeldError unless `wait` is set, in which case the
// owner's decision is awaited: the authorization is made only after the vault's payment executed.
import { erc20Abi, type Address, type Client, type Hex } from "viem";
import { getBlock, readContract, waitForTransactionReceipt } from "viem/actions";
import { definedOnly } from "./defined.ts";
import type { RelayClient, WaitOptions } from "./relay-client.ts";
import { parseUnits } from "./units.ts";
import { readVaultDomain, type TypedDataSigner } from "./sign.ts";
import type { VaultDomain } from "./intent-types.ts";
import type { Metadata, PaymentResponse, RequestStatus } from "./types.ts";
import { chooseRequirement, type PayableRequirement } from "./x402-choose.ts";
import { X402Error, X402PaymentHeldError, X402PaymentRejectedError, X402SettlementError, type X402Mode } from "./x402-errors.ts";
import { payByFunding } from "./x402-funding.ts";
import { payFromVault, VaultCannotPay } from "./x402-vault-pays.ts";
import { paymentSignatureHeader, readPaymentRequired, readSettlement, type X402Authorization, type X402PaymentRequired, type X402PaymentRequirements } from "./x402-wire.ts";

export type { X402Mode } from "./x402-errors.ts";

/** Options of `payingFetch`. */
export interface PayingFetchOptions {
  /** The relayer the vault's payments go through. */
  relay: RelayClient;
  /** The bot's key (as viem's `privateKeyToAccount`): signs the vault intent, and in `funding` mode the authorization. */
  bot: TypedDataSigner;
  /** A viem client of the vault's chain: the vault's domain, balances, the payment's receipt. */
  chain: Client;
  vault: Address;
  /** Default `vault`. */
  mode?: X402Mode;
  /**
   * The most one request pays, inclusive: a bigint in the asset's base units, or a decimal string in
   * its units (`"0.05"`, converted with the token's decimals read from the chain). A price above it
   * throws X402PriceAboveMaxError before anything is signed. Default: no maximum.
   */
  max?: bigint | string;
  /** Wait for the owner when the payment is held (`true`, or polling options); default: throw X402PaymentHeldError. */
  wait?: boolean | WaitOptions<PaymentResponse>;
  /** The `fetch` the paywall is called with; the global one by default. */
  fetch?: typeof globalThis.fetch;
  /** Lifetime of the bot's intent in seconds (default 300). */
  deadlineSeconds?: number;
  /** A note shown to the owner with the payment (default: what the paywall says it sells). */
  memo?: string;
  metadata?: Metadata;
  /** Told each step, e.g. to show progress. */
  onEvent?: (event: X402Event) => void;
}

/** The steps `onEvent` is told of. */
export type X402Event =
  | { type: "payment-required"; url: string; requirement: X402PaymentRequirements; mode: X402Mode }
  | { type: "vault-cannot-pay"; reason: string }
  | { type: "submitted"; requestId: string; status: RequestStatus; mode: X402Mode }
  | { type: "held"; requestId: string; mode: X402Mode }
  | { type: "executed"; requestId: string; txHash: Hex; mode: X402Mode };

/** The vault's payment behind a paid response. */
export interface X402Payment {
  requestId: string;
  status: RequestStatus;
  mode: X402Mode;
  /** The vault's transaction: the recorded authorization (`vault`) or the funding payment (`funding`). */
  txHash: Hex;
  /** The merchant's settlement transaction, from the `PAYMENT-RESPONSE` header. */
  settlementTx: Hex | undefined;
  /** The requirement paid. */
  requirement: X402PaymentRequirements;
}

/** A `Response`, with `payment` when a 402 was paid to get it. */
export type PaidResponse = Response & { readonly payment?: X402Payment };

/** Per-call overrides of the options. */
export type PayingFetchCallOptions = Pick<PayingFetchOptions, "mode" | "max" | "wait" | "memo" | "metadata">;

/** What a mode hands back: the executed payment and the authorization the paid retry carries. */
export interface ModePayment {
  requestId: string;
  status: RequestStatus;
  txHash: Hex;
  authorization: X402Authorization;
  signature: Hex;
}

/** What a mode is given. */
export interface ModeContext {
  options: PayingFetchOptions & PayingFetchCallOptions;
  domain: VaultDomain;
  url: string;
  required: X402PaymentRequired;
  chosen: PayableRequirement;
  /** A deadline `seconds` from the later of the wall clock and the chain's latest block. */
  deadline(seconds: number): Promise<bigint>;
  /** Follow a submitted request to its executed transaction (waiting for the owner when allowed). */
  executed<R extends { requestId: string; status: RequestStatus; txHash?: Hex; reason?: string; errorCode?: string }>(
    submitted: R,
    status: (requestId: string) => Promise<R>,
    resolve: (response: R) => Promise<R>,
  ): Promise<R & { txHash: Hex }>;
}

/** A `fetch` that pays x402 paywalls from the vault (see the file's header). */
export function payingFetch(options: PayingFetchOptions): (input: string | URL, init?: RequestInit, call?: PayingFetchCallOptions) => Promise<PaidResponse> {
  let domain: Promise<VaultDomain> | undefined;
  const fetcher = options.fetch ?? globalThis.fetch;
  return async (input, init = {}, call = {}) => {
    const first = await fetcher(String(input), init);
    if (first.status !== 402) return first;
    // The paywall that asked is the one paid and asked again: where redirects ended, if any.
    const url = first.url === "" ? String(input) : first.url;
    const required = readPaymentRequired(first.headers);
    await first.body?.cancel(); // the 402's body says nothing the header does not
    const settings = { ...options, ...definedOnly(call) };
    domain ??= readVaultDomain(options.chain, options.vault);
    domain.catch(() => (domain = undefined));
    const vaultDomain = await domain;
    const chosen = await chooseRequirement(required.accepts, {
      chainId: vaultDomain.chainId,
      vaultBalance: (asset) => readContract(options.chain, { address: asset, abi: erc20Abi, functionName: "balanceOf", args: [options.vault] }),
      ...(settings.max === undefined ? {} : { max: maxIn(options.chain, settings.max) }),
    });
    const mode = settings.mode ?? "vault";
    settings.onEvent?.({ type: "payment-required", url, requirement: chosen.requirement, mode });
    const context = (as: X402Mode) => modeContext({ ...settings, mode: as }, vaultDomain, url, required, chosen);
    let paid: ModePayment;
    let paidMode = mode;
    if (mode === "vault") {
      try {
        paid = await payFromVault(context("vault"));
      } catch (error) {
        // Nothing was signed or sent for the vault: the relayer or the vault does not pay x402 itself.
        if (!(error instanceof VaultCannotPay)) throw error;
        settings.onEvent?.({ type: "vault-cannot-pay", reason: error.message });
        paidMode = "funding";
        paid = await payByFunding(context("funding"));
      }
    } else {
      paid = await payByFunding(context("funding"));
    }
    const header = paymentSignatureHeader(required, chosen.requirement, paid.authorization, paid.signature);
    const headers = new Headers(init.headers);
    headers.set("payment-signature", header);
    const response = await fetcher(url, { ...init, headers });
    const settlement = readSettlement(response.headers);
    const payment: X402Payment = {
      requestId: paid.requestId,
      status: paid.status,
      mode: paidMode,
      txHash: paid.txHash,
      settlementTx: settlement?.success && /^0x[0-9a-fA-F]{64}$/.test(settlement.transaction) ? (settlement.transaction as Hex) : undefined,
      requirement: chosen.requirement,
    };
    if (response.status === 402 || settlement?.success === false) {
      const reason = settlement?.errorReason ?? safeError(response);
      throw new X402SettlementError(payment, response.status, reason);
    }
    return Object.assign(response, { payment });
  };
}

function modeContext(options: ModeContext["options"] & { mode: X402Mode }, domain: VaultDomain, url: string, required: X402PaymentRequired, chosen: PayableRequirement): ModeContext {
  const mode = options.mode;
  return {
    options,
    domain,
    url,
    required,
    chosen,
    async deadline(seconds) {
      const block = await getBlock(options.chain, { blockTag: "latest" });
      return BigInt(Math.max(Math.floor(Date.now() / 1000), Number(block.timestamp)) + seconds);
    },
    async executed(submitted, status, resolve) {
      options.onEvent?.({ type: "submitted", requestId: submitted.requestId, status: submitted.status, mode });
      let response = submitted;
      if (response.status === "pending_review") {
        if (!options.wait) throw new X402PaymentHeldError(response.requestId, mode);
        options.onEvent?.({ type: "held", requestId: response.requestId, mode });
        response = await resolve(response);
      }
      // Approved answers carry the transaction once it is sent; a moment may pass before it is.
      for (let i = 0; response.status === "approved" && response.txHash === undefined; i++) {
        if (i === 240) throw new X402Error("X402_PAYMENT_NOT_SENT", `the payment ${response.requestId} is approved but was not sent within a minute`);
        await new Promise((r) => setTimeout(r, 250));
        response = await status(response.requestId);
      }
      if (response.status !== "approved") throw new X402PaymentRejectedError(response.requestId, mode, response.reason, response.errorCode);
      const txHash = response.txHash!;
      const receipt = await waitForTransactionReceipt(options.chain, { hash: txHash });
      if (receipt.status !== "success") throw new X402Error("X402_PAYMENT_FAILED", `the payment ${response.requestId}'s transaction ${txHash} reverted`);
      options.onEvent?.({ type: "executed", requestId: response.requestId, txHash, mode });
      return { ...response, txHash };
    },
  };
}

/** The maximum in an asset's base units: a bigint as is, a decimal string with the token's decimals. */
function maxIn(chain: Client, max: bigint | string): (asset: Address) => Promise<bigint> {
  if (typeof max === "bigint") return async () => max;
  return async (asset) => {
    const decimals = await readContract(chain, { address: asset, abi: erc20Abi, functionName: "decimals" });
    try {
      return parseUnits(max, decimals);
    } catch (error) {
      throw new X402Error("X402_INVALID_MAX", `the maximum ${(error as Error).message.replace(/^amount /, "")} (the asset ${asset} has ${decimals} decimals)`);
    }
  };
}

function safeError(response: Response): string | undefined {
  try {
    return readPaymentRequired(response.headers).error;
  } catch {
    return undefined;
  }
}
