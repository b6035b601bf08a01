// Building and signing the three intents from command options: `relay pay|execute|swap` send what
// these return, `relay sign` prints it. Only the vault's domain is read from the chain.
import { keccak256, type Address, type Hex } from "viem";
import { signExecuteRequest, signPaymentRequest, signSwapAndPayRequest, signSwapRequest, swapForPayment, type BodyExtras } from "../../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, refFromString } from "../../../packages/client/src/sign.ts";
import type { ExecuteRequestBody, Metadata, OffChainFields, PaymentRequestBody, SwapRequestBody, X402Funding } from "../../../packages/client/src/types.ts";
import { ETH_MARKER, ETH_TOKEN } from "../../chain/eth.ts";
import { typedDataSigner } from "../../crypto/typed-data-signer.ts";
import { CliError, EXIT } from "../io.ts";
import { parseAmount, requireBotKey, requireVault, resolveToken, type ResolvedToken, type Settings } from "../settings.ts";
import type { Clients } from "../../chain/clients.ts";
import { connectChain, resolveAddress, vaultDomain, withDecimals } from "./chain.ts";

/** Options every intent takes. */
export interface IntentOptions {
  memo?: string;
  ref?: string;
  deadline?: string;
  idempotencyKey?: string;
  metadata?: string[];
  /** Shorthand for `--metadata scenario=<value>` (devnet only). */
  scenario?: string;
  baseUnits?: boolean;
}

export interface PaymentOptions extends IntentOptions {
  to: string;
  amount: string;
  token: string;
  invoiceId?: string;
  orderId?: string;
  recipientLabel?: string;
  resourceUrl?: string;
  /** JSON text of an object. */
  x402Funding?: string;
  /** Swap-and-pay: the token swapped into `token` to pay, and the most of it to spend. */
  swapFrom?: string;
  swapMax?: string;
}

export interface ExecuteOptions extends IntentOptions {
  protocol: string;
  calldata: string;
  token?: string[];
  amount?: string[];
  value?: string;
  protocolName?: string;
}

export interface SwapOptions extends IntentOptions {
  fromToken: string;
  maxFromAmount: string;
  toToken: string;
  minToAmount: string;
}

const usage = (message: string) => new CliError(message, EXIT.USAGE);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--ref`: a bytes32 as is, any other text hashed (keccak256 of its UTF-8), absent a random one. */
export function refFrom(text: string | undefined): Hex {
  if (text === undefined) return randomRef();
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) return text as Hex;
  if (text === "") throw usage("--ref must not be empty");
  return refFromString(text);
}

/**
 * `--deadline <seconds>`: the intent's lifetime from now (default 300). At least 1: a deadline of now
 * has passed by the time the relayer reads it. The upper end is the relayer's (`relay serve
 * --max-deadline`, 86400 by default; it answers DEADLINE_TOO_FAR), so the message names it.
 */
export function deadlineFrom(text: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): bigint {
  if (text === undefined) return defaultDeadline(nowSeconds);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < 1) {
    throw usage(`--deadline is the intent's lifetime in seconds from now: a whole number from 1 up to the relayer's --max-deadline (86400 by default), got "${text}"`);
  }
  return defaultDeadline(nowSeconds, Number(text));
}

/** `--metadata key=value`, repeatable. */
export function metadataFrom(pairs: readonly string[] | undefined): Metadata | undefined {
  if (pairs === undefined || pairs.length === 0) return undefined;
  const metadata: Metadata = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at < 1) throw usage(`--metadata must be key=value, got "${pair}"`);
    metadata[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return metadata;
}

function extrasFrom(options: IntentOptions): BodyExtras {
  if (options.idempotencyKey !== undefined && !UUID.test(options.idempotencyKey)) {
    throw usage(`--idempotency-key must be a UUID, got "${options.idempotencyKey}"`);
  }
  const given = metadataFrom(options.metadata);
  const metadata = options.scenario === undefined ? given : { ...given, scenario: options.scenario };
  return {
    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    ...(options.memo === undefined ? {} : { memo: options.memo }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

// The chain is contacted once, and only after every option that can be checked offline was checked.
function chainAccess(settings: Settings) {
  const vault = requireVault(settings);
  const account = typedDataSigner(requireBotKey(settings));
  let clients: Promise<Clients> | undefined;
  const connect = () => (clients ??= connectChain(settings));
  return {
    account,
    connect,
    domain: async () => vaultDomain(await connect(), vault),
    /**
     * `--deadline` from now; on a devnet "now" is the later of the wall clock and the chain's time,
     * which `relay time advance` may have moved ahead (the vault checks deadlines against it).
     */
    async deadline(text: string | undefined): Promise<bigint> {
      const wall = deadlineFrom(text);
      if (settings.manifest?.devnet !== true) return wall;
      const block = await (await connect()).publicClient.getBlock({ blockTag: "latest" });
      return deadlineFrom(text, Math.max(Math.floor(Date.now() / 1000), Number(block.timestamp)));
    },
    /** A token and an amount; decimals come from the chain only for an unknown token address. */
    async amount(tokenText: string, amountText: string, baseUnits?: boolean): Promise<{ token: ResolvedToken; amount: bigint }> {
      let token = resolveToken(settings, tokenText);
      if (token.decimals === undefined && !baseUnits) token = await withDecimals(await connect(), token);
      return { token, amount: parseAmount(settings, token, amountText, { baseUnits }) };
    },
  };
}

/**
 * A payment's off-chain fields. Passed on as given: the relayer checks their limits and answers with
 * each field's own code; only `--x402-funding` must be `true` or a JSON object to be sent at all.
 */
export function paymentExtrasFrom(options: PaymentOptions): OffChainFields {
  let x402Funding: X402Funding | undefined;
  if (options.x402Funding !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(options.x402Funding);
    } catch {
      throw usage("--x402-funding must be true or a JSON object, e.g. '{\"network\":\"base\",\"payTo\":\"0x…\"}'");
    }
    if (parsed !== true && (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))) {
      throw usage("--x402-funding must be true or a JSON object");
    }
    x402Funding = parsed as X402Funding;
  }
  return {
    ...(options.invoiceId === undefined ? {} : { invoiceId: options.invoiceId }),
    ...(options.orderId === undefined ? {} : { orderId: options.orderId }),
    ...(options.recipientLabel === undefined ? {} : { recipientLabel: options.recipientLabel }),
    ...(options.resourceUrl === undefined ? {} : { resourceUrl: options.resourceUrl }),
    ...(x402Funding === undefined ? {} : { x402Funding }),
  };
}

/**
 * A signed `POST /v1/payments` body; with `--swap-from`/`--swap-max`, a swap-and-pay: the bot also
 * signs a swap of at most that much of `--swap-from` for at least the payment's amount of its token.
 */
export async function buildPayment(settings: Settings, options: PaymentOptions): Promise<PaymentRequestBody> {
  const to = resolveAddress(settings, options.to, "--to");
  if ((options.swapFrom === undefined) !== (options.swapMax === undefined)) throw usage("--swap-from and --swap-max go together");
  const extras = { ...extrasFrom(options), ...paymentExtrasFrom(options) };
  const chain = chainAccess(settings);
  const { token, amount } = await chain.amount(options.token, options.amount, options.baseUnits);
  const intent = { bot: chain.account.address, to, token: token.address, amount, deadline: await chain.deadline(options.deadline), ref: refFrom(options.ref) };
  if (options.swapFrom === undefined || options.swapMax === undefined) return signPaymentRequest(chain.account, await chain.domain(), intent, extras);
  const from = await chain.amount(options.swapFrom, options.swapMax, options.baseUnits);
  const swap = swapForPayment(intent, from.token.address, from.amount, randomRef());
  return signSwapAndPayRequest(chain.account, await chain.domain(), intent, swap, extras);
}

/** A signed `POST /v1/execute` body. `--token`/`--amount` pair up in order. */
export async function buildExecute(settings: Settings, options: ExecuteOptions): Promise<ExecuteRequestBody> {
  const protocol = resolveAddress(settings, options.protocol, "--protocol");
  if (!/^0x([0-9a-fA-F]{2})*$/.test(options.calldata)) throw usage("--calldata must be 0x-prefixed hex of whole bytes");
  const callData = options.calldata as Hex;
  const tokenTexts = options.token ?? [];
  const amountTexts = options.amount ?? [];
  if (tokenTexts.length !== amountTexts.length) throw usage(`give one --amount per --token (got ${tokenTexts.length} tokens, ${amountTexts.length} amounts)`);
  const extras = { ...extrasFrom(options), ...(options.protocolName === undefined ? {} : { protocolName: options.protocolName }) };
  const chain = chainAccess(settings);
  const tokens: Address[] = [];
  const amounts: bigint[] = [];
  for (const [i, text] of tokenTexts.entries()) {
    const { token, amount } = await chain.amount(text, amountTexts[i]!, options.baseUnits);
    tokens.push(token.address);
    amounts.push(amount);
  }
  const value = options.value === undefined ? 0n : parseAmount(settings, { address: ETH_MARKER, ...ETH_TOKEN }, options.value, { baseUnits: options.baseUnits });
  const intent = {
    bot: chain.account.address,
    protocol,
    calldataHash: keccak256(callData),
    tokens,
    amounts,
    value,
    deadline: await chain.deadline(options.deadline),
    ref: refFrom(options.ref),
  };
  return signExecuteRequest(chain.account, await chain.domain(), intent, callData, extras);
}

/** A signed `POST /v1/swap` body. */
export async function buildSwap(settings: Settings, options: SwapOptions): Promise<SwapRequestBody> {
  const extras = extrasFrom(options);
  const chain = chainAccess(settings);
  const from = await chain.amount(options.fromToken, options.maxFromAmount, options.baseUnits);
  const to = await chain.amount(options.toToken, options.minToAmount, options.baseUnits);
  const intent = {
    bot: chain.account.address,
    fromToken: from.token.address,
    maxFromAmount: from.amount,
    toToken: to.token.address,
    minToAmount: to.amount,
    deadline: await chain.deadline(options.deadline),
    ref: refFrom(options.ref),
  };
  return signSwapRequest(chain.account, await chain.domain(), intent, extras);
}
