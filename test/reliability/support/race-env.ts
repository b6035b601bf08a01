// An end-to-end environment like test/relayer/harness.ts's, whose relayer reaches the devnet
// through a tap: an EIP-1193 provider that forwards every call, records the raw transactions the
// relayer broadcasts, and can run an action (the owner's pause, removeBot, a withdrawal) on the
// chain exactly between the relayer's simulation and its broadcast.
import { decodeFunctionData, getAbiItem, parseTransaction, toFunctionSelector, type Abi, type AbiFunction, type Address, type EIP1193Provider, type Hex } from "viem";
import { readArtifact } from "../../../src/chain/artifacts.ts";
import { vaultAbi } from "../../../src/relayer/intents.ts";
import type { RelayerConfigInput } from "../../../src/relayer/config.ts";
import { startEnv, type Env } from "../../relayer/harness.ts";

/** A raw transaction the relayer broadcast. */
export interface Broadcast {
  hash: Hex;
  nonce: number;
  to: Address | undefined;
  selector: Hex;
}

export interface Tap {
  /** Every eth_sendRawTransaction of the relayer, in order. */
  readonly broadcasts: readonly Broadcast[];
  /**
   * On the relayer's next broadcast: wait until `afterSimulations` payments have been simulated
   * (counting from now; a batch simulation counts each of its payments), run `action` on the chain (mined), then forward it.
   * The relayer's next read of its pending nonce (as it signs its next transaction) waits for those
   * simulations too, so that every payment simulated by then is queued before the relayer groups
   * the ones after its first transaction into a batch, however slow the machine.
   */
  beforeNextBroadcast(action: () => Promise<unknown>, afterSimulations?: number): void;
}

const selectorOf = (abi: Abi, name: string) => toFunctionSelector(getAbiItem({ abi, name }) as AbiFunction);
const EXECUTE_PAYMENT = selectorOf(vaultAbi, "executePayment");
export const EXECUTE_PAYMENT_BATCH = selectorOf(vaultAbi, "executePaymentBatch");
const simulatingLensAbi = readArtifact("lens/SimulatingLens").abi;
const READ_AND_SIMULATE = selectorOf(simulatingLensAbi, "readAndSimulate");

export async function startTappedEnv(overrides: Partial<RelayerConfigInput> = {}): Promise<Env & { tap: Tap }> {
  let tap: Tap | undefined;
  let env: Env | undefined;
  // Requests the relayer has recorded and not yet settled: each one simulated is recorded next.
  const recorded = async () => {
    const store = env!.relayer.store;
    return (await store.listUnsettled()).length + (await store.listInFlight()).length;
  };
  // Only the relayer's provider is tapped: the owner's actions in the tests never go through it.
  env = await startEnv(overrides, {
    relayerProvider: (provider, manifest) => {
      const tapped = tapProvider(provider, manifest.contracts.vault as Address, recorded);
      tap = tapped.tap;
      return tapped.provider;
    },
  });
  return Object.assign(env, { tap: tap! });
}

function tapProvider(inner: EIP1193Provider, vault: Address, recorded: () => Promise<number>): { provider: EIP1193Provider; tap: Tap } {
  const broadcasts: Broadcast[] = [];
  let simulations = 0;
  /** What the next broadcast waits for: `simulations` in all, and `newRequests` more records than `recordedBefore`. */
  type Armed = { simulations: number; newRequests: number; recordedBefore: Promise<number> };
  let pending: (Armed & { action: () => Promise<unknown> }) | undefined;
  let nonceReadAfter: Armed | undefined;
  const simulated: Array<() => void> = [];

  const tap: Tap = {
    broadcasts,
    beforeNextBroadcast(action, afterSimulations = 0) {
      pending = { action, simulations: simulations + afterSimulations, newRequests: afterSimulations, recordedBefore: recorded() };
      nonceReadAfter = pending;
    },
  };

  async function untilSimulated(armed: Armed): Promise<void> {
    while (simulations < armed.simulations) await new Promise<void>((resolve) => simulated.push(resolve));
    // Every request simulated by then is recorded in the relayer's store next (a commit that may
    // wait for a group fsync, longer on a loaded machine): wait for those records, however long.
    const want = (await armed.recordedBefore) + armed.newRequests;
    while ((await recorded()) < want) await new Promise((resolve) => setTimeout(resolve, 2));
    // Let every recorded request run on to the relayer's queue.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  }

  const request = async (args: { method: string; params?: unknown }): Promise<unknown> => {
    if (args.method === "eth_getTransactionCount" && nonceReadAfter !== undefined) {
      const armed = nonceReadAfter;
      nonceReadAfter = undefined;
      await untilSimulated(armed);
    }
    if (args.method === "eth_sendRawTransaction") {
      const raw = (args.params as [Hex])[0];
      const tx = parseTransaction(raw);
      const armed = pending;
      pending = undefined;
      if (armed) {
        await untilSimulated(armed);
        await armed.action();
      }
      const hash = (await inner.request(args as never)) as Hex;
      broadcasts.push({ hash, nonce: tx.nonce ?? -1, to: tx.to ?? undefined, selector: (tx.data ?? "0x").slice(0, 10) as Hex });
      return hash;
    }
    const result = await inner.request(args as never);
    const simulatedPayments = args.method === "eth_call" ? paymentsSimulated(args.params, vault) : 0;
    if (simulatedPayments > 0) {
      simulations += simulatedPayments;
      for (const wake of simulated.splice(0)) wake();
    }
    return result;
  };
  return { provider: { request } as unknown as EIP1193Provider, tap };
}

/**
 * How many payments an eth_call simulates on `vault`: one for executePayment, each item for
 * executePaymentBatch (the relayer simulates payments read together as one batch), and those of
 * every simulation a SimulatingLens call (readAndSimulate) carries; 0 otherwise.
 */
function paymentsSimulated(params: unknown, vault: Address): number {
  const call = (params as [{ to?: string; data?: string; input?: string }] | undefined)?.[0];
  const data = (call?.data ?? call?.input ?? "") as Hex;
  if (data.startsWith(READ_AND_SIMULATE)) {
    const { args } = decodeFunctionData({ abi: simulatingLensAbi, data });
    const simulations = (args as readonly [unknown, readonly { to: Address; data: Hex }[]])[1];
    return simulations.reduce((sum, sim) => sum + paymentsSimulated([{ to: sim.to, data: sim.data }], vault), 0);
  }
  if (call?.to?.toLowerCase() !== vault.toLowerCase()) return 0;
  if (data.startsWith(EXECUTE_PAYMENT)) return 1;
  if (!data.startsWith(EXECUTE_PAYMENT_BATCH)) return 0;
  const { args } = decodeFunctionData({ abi: vaultAbi, data });
  return (args as readonly [readonly unknown[], readonly Hex[]])[0].length;
}
