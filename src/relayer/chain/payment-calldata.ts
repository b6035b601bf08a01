// The calldata of the fast path's two vault calls, `executePayment(intent, signature)` and
// `executePaymentBatch(intents, signatures)`, written straight as hex: every fast-path payment is
// encoded alone (its simulation), then in its read group's batch simulation and in the batch that
// sends it, and viem's general ABI encoder cost more than the rest of building the transaction (a
// payment's own part is encoded once and reused, see `encodings`). The layout is checked against
// the vault's ABI when the module loads; should the contract's signature differ from the one
// written here (a changed PaymentIntent), or a value not fit its type, viem's encoder is used
// instead, so the bytes are always those viem would give. (Addresses arrive validated, checksummed
// or all lower case, as requests carry them: validate.ts.)
import { encodeFunctionData, getAbiItem, toFunctionSelector, toFunctionSignature, type AbiFunction, type Hex } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import type { PaymentIntent } from "../../../packages/client/src/intent-types.ts";
import { WORD, MAX_UINT, word, addressWord, bytesTail, arrayOf, concat, lower } from "./abi-hex.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const INTENT_FIELDS = "address bot,address to,address token,uint256 amount,uint256 deadline,bytes32 ref";
const INTENT = "(address,address,address,uint256,uint256,bytes32)";

/** The function's selector (without 0x) when its ABI is the layout written here, else undefined. */
function selectorIf(name: string, expected: string): string | undefined {
  const item = getAbiItem({ abi: vaultAbi, name }) as AbiFunction | undefined;
  if (!item || toFunctionSignature(item) !== expected) return undefined;
  const intent = item.inputs[0] as { components?: ReadonlyArray<{ type: string; name?: string }> };
  if (intent.components?.map((c) => `${c.type} ${c.name}`).join(",") !== INTENT_FIELDS) return undefined;
  return toFunctionSelector(item).slice(2);
}

const PAYMENT = selectorIf("executePayment", `executePayment(${INTENT},bytes)`);
const BATCH = selectorIf("executePaymentBatch", `executePaymentBatch(${INTENT}[],bytes[])`);

/** The intent's six words, or undefined when a value does not fit its ABI type. */
function intentWords(intent: PaymentIntent): string | undefined {
  const { amount, deadline, ref } = intent;
  const bot = addressWord(intent.bot);
  const to = addressWord(intent.to);
  const token = addressWord(intent.token);
  if (!bot || !to || !token || !WORD.test(ref)) return undefined;
  if (typeof amount !== "bigint" || typeof deadline !== "bigint") return undefined;
  if (amount < 0n || amount > MAX_UINT || deadline < 0n || deadline > MAX_UINT) return undefined;
  return bot + to + token + word(amount) + word(deadline) + lower(ref.slice(2));
}

/** A payment's intent words and signature tail, with the values they were encoded from. */
interface Encoded {
  intent: PaymentIntent;
  signature: Hex;
  words: string;
  tail: string;
}

/**
 * Each payment's encoding, by its intent object: a fast-path payment is encoded for its own
 * simulation, again in its read group's batch simulation and again in the batch that sends it.
 * Reused only while every value it was made from is still the intent's (compared on each use), so
 * calldata always carries the intent as it is now; dropped with the request.
 */
const encodings = new WeakMap<PaymentIntent, Encoded>();

/** The intent's words and the signature's tail, or undefined when a value does not fit its ABI type. */
function encoded(intent: PaymentIntent, signature: Hex): Encoded | undefined {
  const known = encodings.get(intent);
  if (known && sameValues(known, intent, signature)) return known;
  const words = intentWords(intent);
  const tail = words && bytesTail(signature);
  if (!words || !tail) return undefined;
  const { bot, to, token, amount, deadline, ref } = intent;
  const made = { intent: { bot, to, token, amount, deadline, ref }, signature, words, tail };
  encodings.set(intent, made);
  return made;
}

function sameValues(known: Encoded, intent: PaymentIntent, signature: Hex): boolean {
  const was = known.intent;
  return known.signature === signature && was.bot === intent.bot && was.to === intent.to && was.token === intent.token
    && was.amount === intent.amount && was.deadline === intent.deadline && was.ref === intent.ref;
}

/** executePayment(intent, signature). */
export function paymentCalldata(intent: PaymentIntent, signature: Hex): Hex {
  const payment = PAYMENT && encoded(intent, signature);
  if (!payment) return encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [intent, signature] });
  return `0x${PAYMENT}${payment.words}${word(7 * 32)}${payment.tail}`;
}

/** executePaymentBatch(intents, signatures). */
export function paymentBatchCalldata(payments: ReadonlyArray<{ intent: PaymentIntent; signature: Hex }>): Hex {
  const fallback = () =>
    encodeFunctionData({ abi: vaultAbi, functionName: "executePaymentBatch", args: [payments.map((p) => p.intent), payments.map((p) => p.signature)] });
  if (!BATCH) return fallback();
  const intents: string[] = [];
  const tails: string[] = [];
  for (const { intent, signature } of payments) {
    const payment = encoded(intent, signature);
    if (!payment) return fallback();
    intents.push(payment.words);
    tails.push(payment.tail);
  }
  const k = payments.length;
  // Head: the two arrays' offsets. The intents array is static tuples inline; the signatures array
  // is k offsets (from the start of those offsets), then each signature's length and data.
  const signaturesAt = 2 * 32 + 32 + k * 6 * 32;
  return `0x${BATCH}${word(2 * 32)}${word(signaturesAt)}${word(k)}${concat(intents)}${arrayOf(tails)}`;
}
