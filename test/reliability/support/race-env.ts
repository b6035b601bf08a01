// An end-to-end environment like test/relayer/harness.ts's, whose relayer reaches the devnet
// through a tap: an EIP-1193 provider that forwards every call, records the raw transactions the
// relayer broadcasts (and the payments each carries), and can hold the relayer's next broadcast to
// run an action (the owner's pause, removeBot, a withdrawal) on the chain exactly between the
// relayer's simulation and its broadcast.
import { decodeFunctionData, getAbiItem, keccak256, parseTransaction, toFunctionSelector, type AbiFunction, type Address, type EIP1193Provider, type Hex } from "viem";
import { vaultAbi } from "../../../src/relayer/chain/intents.ts";
import type { RelayerConfigInput } from "../../../src/relayer/config.ts";
import { startEnv, type Env } from "../../relayer/harness.ts";

/** A raw transaction the relayer broadcast (and the node took). */
export interface Broadcast {
  hash: Hex;
  nonce: number;
  to: Address | undefined;
  selector: Hex;
  /** The `ref` of every payment intent it carries: one for executePayment, each item's for executePaymentBatch. */
  paymentRefs: Hex[];
}

/** The relayer's next broadcast, held at the node's door. */
export interface HeldBroadcast {
  /** Resolves once the relayer has handed the transaction to the node (and is waiting for the node to take it). */
  readonly reached: Promise<void>;
  /** Runs `action` on the chain (mined), then lets the transaction through. */
  release(action: () => Promise<unknown>): void;
}

export interface Tap {
  /** Every broadcast of the relayer the node took, in order. */
  readonly broadcasts: readonly Broadcast[];
  /**
   * Holds the relayer's next broadcast until `release`. The relayer has simulated the transaction's
   * payments by then (it simulates before it signs), so the action lands between the two.
   */
  holdNextBroadcast(): HeldBroadcast;
  /** On the relayer's next broadcast: run `action` on the chain (mined), then forward it. */
  beforeNextBroadcast(action: () => Promise<unknown>): void;
}

const selectorOf = (name: string) => toFunctionSelector(getAbiItem({ abi: vaultAbi, name }) as AbiFunction);
const EXECUTE_PAYMENT = selectorOf("executePayment");
export const EXECUTE_PAYMENT_BATCH = selectorOf("executePaymentBatch");
/** Both ways the relayer broadcasts: the plain send, and the synchronous send (EIP-7966) where the node offers it. */
const BROADCASTS = new Set(["eth_sendRawTransaction", "eth_sendRawTransactionSync"]);

export async function startTappedEnv(overrides: Partial<RelayerConfigInput> = {}): Promise<Env & { tap: Tap }> {
  let tap: Tap | undefined;
  // Only the relayer's provider is tapped: the owner's actions in the tests never go through it.
  const env = await startEnv(overrides, {
    relayerProvider: (provider, manifest) => {
      const tapped = tapProvider(provider, manifest.contracts.vault as Address);
      tap = tapped.tap;
      return tapped.provider;
    },
  });
  return Object.assign(env, { tap: tap! });
}

function tapProvider(inner: EIP1193Provider, vault: Address): { provider: EIP1193Provider; tap: Tap } {
  const broadcasts: Broadcast[] = [];
  /** The next broadcast's hold: told when it is reached, waits for the action to run before it. */
  let hold: { reached(): void; action: Promise<() => Promise<unknown>> } | undefined;

  const tap: Tap = {
    broadcasts,
    holdNextBroadcast() {
      let reached!: () => void;
      let release!: (action: () => Promise<unknown>) => void;
      const held = { reached: new Promise<void>((resolve) => (reached = resolve)), release: (action: () => Promise<unknown>) => release(action) };
      hold = { reached, action: new Promise((resolve) => (release = resolve)) };
      return held;
    },
    beforeNextBroadcast(action) {
      const held = tap.holdNextBroadcast();
      void held.reached.then(() => held.release(action));
    },
  };

  const request = async (args: { method: string; params?: unknown }): Promise<unknown> => {
    if (!BROADCASTS.has(args.method)) return inner.request(args as never);
    const raw = (args.params as [Hex])[0];
    const held = hold;
    hold = undefined;
    if (held) {
      held.reached();
      // An action that fails reaches the relayer as the node's refusal, and the test sees it.
      await (await held.action)();
    }
    const result = await inner.request(args as never);
    const tx = parseTransaction(raw);
    const data = tx.data ?? "0x";
    broadcasts.push({ hash: keccak256(raw), nonce: tx.nonce ?? -1, to: tx.to ?? undefined, selector: data.slice(0, 10) as Hex, paymentRefs: tx.to?.toLowerCase() === vault.toLowerCase() ? paymentRefsOf(data) : [] });
    return result;
  };
  return { provider: { request } as unknown as EIP1193Provider, tap };
}

/** The `ref` of each payment intent a vault call carries: executePayment's one, executePaymentBatch's each; none for other calls. */
function paymentRefsOf(data: Hex): Hex[] {
  if (!data.startsWith(EXECUTE_PAYMENT) && !data.startsWith(EXECUTE_PAYMENT_BATCH)) return [];
  const first = decodeFunctionData({ abi: vaultAbi, data }).args?.[0];
  const intents = data.startsWith(EXECUTE_PAYMENT) ? [first] : (first as readonly unknown[]);
  return intents.map((intent) => (intent as { ref: Hex }).ref);
}
