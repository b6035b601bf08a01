// Coalesced reads. Requests that arrive while the chain is answering an earlier group's reads wait
// and then go together: every request's policy snapshot, and the group's payments simulated per
// vault (one `executePayment`, or one `executePaymentBatch` for several) from the relayer key that
// would send them, all at one block. An idle relayer sends a request's reads at once, so a lone
// request waits for nobody.
//
// Where the node supports eth_call state overrides, all of that is one eth_call per 12 requests
// (ChainRuntime.readAndSimulate), which reports the block it ran at. Elsewhere one eth_blockNumber
// pins the group, then the policy-lens calls and the simulations run side by side at that block.
//
// Each payment's simulation stays its own: one the batch call does not report as executed (it
// failed, or an earlier item of the group used what it needed) is simulated again alone at the same
// block, which gives its own revert reason, or passes. A group whose reads fail for another reason
// than an unreachable node is read again request by request, so one bad query harms no other.
import { decodeFunctionResult, getAbiItem, type AbiFunction, type Address, type Hex } from "viem";
import type { PaymentRequest } from "../../api/validate.ts";
import type { ChainRuntime, SimulationCall, SnapshotQuery } from "./chain-runtime.ts";
import type { PolicySnapshot } from "./snapshot.ts";
import { batchCalldata, vaultAbi } from "./intents.ts";
import { rpcFailure } from "../rpc-errors.ts";
import { simulate, simulationError, type SimulationOk } from "./simulate.ts";
import { AbiWords } from "./snapshot-codec.ts";

/** What one request read, all at `blockNumber`. */
export interface PinnedRead {
  blockNumber: bigint;
  snapshot: PolicySnapshot;
  /**
   * A payment's simulation at the same block: resolves when it would execute, rejects with the
   * typed error (SIMULATION_FAILED and its reason, RPC_ERROR…). Looked at only after the checks.
   */
  simulation?: Promise<SimulationOk>;
}

/** A payment to simulate with the snapshot: the request and its own `executePayment` calldata. */
export interface PaymentToSimulate {
  request: PaymentRequest;
  data: Hex;
}

/**
 * Requests per readAndSimulate call; a larger group is read in several calls side by side. This
 * keeps each call short for the node (other requests queue behind it) and bounds the lens's sharing
 * of vault and bot reads, which compares each query with every earlier one of its call.
 */
const CALL_ENTRIES = 12;

/** One vault's payments of a group, simulated together as one call. */
interface SimulationPlan {
  /** The payments' positions in the group. */
  indexes: number[];
  payments: PaymentToSimulate[];
  call: SimulationCall;
}

interface Entry {
  query: SnapshotQuery;
  payment?: PaymentToSimulate;
  resolve(read: PinnedRead): void;
  reject(error: unknown): void;
}

export class ReadBatcher {
  readonly #chain: ChainRuntime;
  readonly #signerFor: (vault: Address) => Address;
  readonly #maxBatch: number;
  readonly #queue: Entry[] = [];
  #running = false;

  /** `signerFor`: the relayer key that sends a vault's transactions (simulations run from it). */
  constructor(chain: ChainRuntime, signerFor: (vault: Address) => Address, options: { maxBatch: number }) {
    this.#chain = chain;
    this.#signerFor = signerFor;
    this.#maxBatch = Math.max(1, options.maxBatch);
  }

  /** The snapshot for `query` (and the simulation of `payment`), pinned to one block. */
  read(query: SnapshotQuery, payment?: PaymentToSimulate): Promise<PinnedRead> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ query, payment, resolve, reject });
      void this.#pump();
    });
  }

  /** One group at a time: what queues meanwhile goes in the next group. */
  async #pump(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.length > 0) await this.#readGroup(this.#queue.splice(0, this.#maxBatch));
    } finally {
      this.#running = false;
    }
  }

  /** Reads one group and settles every entry. Never throws. */
  async #readGroup(group: Entry[]): Promise<void> {
    try {
      if (await this.#chain.supportsStateOverride()) {
        const parts: Entry[][] = [];
        for (let i = 0; i < group.length; i += CALL_ENTRIES) parts.push(group.slice(i, i + CALL_ENTRIES));
        await Promise.all(parts.map((part) => this.#readInOneCall(part).catch((error: unknown) => part.forEach((e) => e.reject(error)))));
      } else {
        await this.#readSeparately(group);
      }
    } catch (error) {
      for (const entry of group) entry.reject(error);
    }
  }

  /**
   * Snapshots and simulations from one eth_call (ChainRuntime.readAndSimulate), pinned to the block
   * it ran at. Should that call fail for another reason than an unreachable node (a query the lens
   * reverts on), the entries are read the other way, which isolates the bad query.
   */
  async #readInOneCall(group: Entry[]): Promise<void> {
    const plans = this.#planSimulations(group);
    let read: Awaited<ReturnType<ChainRuntime["readAndSimulate"]>>;
    try {
      read = await this.#chain.readAndSimulate(group.map((e) => e.query), plans.map((plan) => plan.call));
    } catch (error) {
      if ((error as { code?: string }).code === "RPC_ERROR") throw error;
      return this.#readSeparately(group);
    }
    const blockNumber = read.snapshots[0]!.blockNumber;
    const simulations: (Promise<SimulationOk> | undefined)[] = group.map(() => undefined);
    plans.forEach((plan, k) => {
      const outcome = read.outcomes[k]!;
      if (plan.payments.length === 1) {
        simulations[plan.indexes[0]!] = quiet(outcome.ok ? Promise.resolve({ success: true }) : Promise.reject(simulationError(outcome.result)));
        return;
      }
      const executed = outcome.ok ? executedOf(outcome.result, plan.payments.length) : undefined;
      this.#settleBatch(simulations, plan, executed, blockNumber);
    });
    group.forEach((entry, i) => entry.resolve({ blockNumber, snapshot: read.snapshots[i]!, simulation: simulations[i] }));
  }

  /** One eth_blockNumber pins the group; then the lens call and the simulations, side by side. */
  async #readSeparately(group: Entry[]): Promise<void> {
    const blockNumber = await this.#chain.latestBlock();
    const [snapshots, simulations] = await Promise.all([this.#snapshots(group, blockNumber), this.#simulations(group, blockNumber)]);
    group.forEach((entry, i) => {
      const snapshot = snapshots[i]!;
      if (snapshot.status === "rejected") return entry.reject(snapshot.reason);
      entry.resolve({ blockNumber, snapshot: snapshot.value, simulation: simulations[i] });
    });
  }

  async #snapshots(group: readonly Entry[], blockNumber: bigint): Promise<PromiseSettledResult<PolicySnapshot>[]> {
    const queries = group.map((e) => e.query);
    try {
      const snapshots = await this.#chain.snapshots(queries, blockNumber);
      return snapshots.map((value) => ({ status: "fulfilled", value }));
    } catch (error) {
      // rpcFailure (in ChainRuntime) has already turned an unreachable node into RPC_ERROR.
      if (group.length === 1 || (error as { code?: string }).code === "RPC_ERROR") {
        return group.map(() => ({ status: "rejected", reason: error }));
      }
      return Promise.allSettled(queries.map((q) => this.#chain.snapshot(q, blockNumber)));
    }
  }

  /** Per entry: its payment's simulation (undefined when it has none). Waits for the batch calls only. */
  async #simulations(group: readonly Entry[], blockNumber: bigint): Promise<(Promise<SimulationOk> | undefined)[]> {
    const out: (Promise<SimulationOk> | undefined)[] = group.map(() => undefined);
    await Promise.all(
      this.#planSimulations(group).map(async (plan) => {
        if (plan.payments.length === 1) {
          const single = quiet(this.#simulateAlone(plan.payments[0]!, blockNumber));
          await single.catch(() => {});
          out[plan.indexes[0]!] = single;
          return;
        }
        let executed: readonly boolean[] | undefined;
        try {
          executed = await this.#simulateBatch(plan, blockNumber);
        } catch (error) {
          if ((error as { code?: string }).code === "RPC_ERROR") {
            for (const i of plan.indexes) out[i] = quiet(Promise.reject(error));
            return;
          }
          executed = undefined; // the whole call reverted: each payment alone says why
        }
        this.#settleBatch(out, plan, executed, blockNumber);
      }),
    );
    return out;
  }

  /**
   * The group's payments by vault, each vault's as one call from the key that sends its
   * transactions: `executePayment` for one payment, `executePaymentBatch` for several.
   */
  #planSimulations(group: readonly Entry[]): SimulationPlan[] {
    const byVault = new Map<string, number[]>();
    group.forEach((entry, i) => {
      if (!entry.payment) return;
      const key = entry.payment.request.vaultAddress.toLowerCase();
      const indexes = byVault.get(key);
      if (indexes) indexes.push(i);
      else byVault.set(key, [i]);
    });
    return [...byVault.values()].map((indexes) => {
      const payments = indexes.map((i) => group[i]!.payment!);
      const vault = payments[0]!.request.vaultAddress;
      const data = payments.length === 1 ? payments[0]!.data : batchCalldata(payments.map((p) => p.request));
      return { indexes, payments, call: { from: this.#signerFor(vault), to: vault, data } };
    });
  }

  /**
   * A batch simulation's verdict per payment: executed ones pass; the others (or all, when the whole
   * call reverted: `executed` undefined) are simulated again alone at the same block, for their own reason.
   */
  #settleBatch(out: (Promise<SimulationOk> | undefined)[], plan: SimulationPlan, executed: readonly boolean[] | undefined, blockNumber: bigint): void {
    plan.indexes.forEach((i, k) => {
      out[i] = executed?.[k] === true ? Promise.resolve({ success: true }) : quiet(this.#simulateAlone(plan.payments[k]!, blockNumber));
    });
  }

  #simulateAlone(payment: PaymentToSimulate, blockNumber: bigint): Promise<SimulationOk> {
    const vault = payment.request.vaultAddress;
    return simulate(this.#chain, { from: this.#signerFor(vault), to: vault, data: payment.data, blockNumber });
  }

  /** eth_call of a plan's `executePaymentBatch` at `blockNumber`: per payment, whether it executed. */
  async #simulateBatch(plan: SimulationPlan, blockNumber: bigint): Promise<readonly boolean[]> {
    const { from, to, data } = plan.call;
    const result = await rpcFailure(() => this.#chain.clients.publicClient.call({ account: from, to, data, blockNumber }));
    const executed = executedOf(result.data ?? "0x", plan.payments.length);
    if (!executed) throw new Error("executePaymentBatch returned a result that is not one flag per payment");
    return executed;
  }
}

/** Whether executePaymentBatch returns one bool per payment (bool[]), the layout executedOf reads by hand. */
const BATCH_RETURNS_BOOLS = (() => {
  const item = getAbiItem({ abi: vaultAbi, name: "executePaymentBatch" }) as AbiFunction | undefined;
  return item?.outputs.length === 1 && item.outputs[0]!.type === "bool[]";
})();

/** A batch simulation's result: per payment, whether it executed; undefined if the data is not that. */
export function executedOf(data: Hex, count: number): readonly boolean[] | undefined {
  try {
    if (!BATCH_RETURNS_BOOLS) {
      const executed = decodeFunctionResult({ abi: vaultAbi, functionName: "executePaymentBatch", data }) as readonly boolean[];
      return executed.length === count ? executed : undefined;
    }
    // abi.encode(bool[]): the array's offset, its length, then one word per flag.
    const w = new AbiWords(data, "executePaymentBatch's result");
    const at = w.offset(0);
    if (w.offset(at) !== count) return undefined;
    const executed: boolean[] = [];
    for (let i = 0; i < count; i++) executed.push(w.bool(at + 32 * (i + 1)));
    return executed;
  } catch {
    return undefined;
  }
}

/** The same promise, with a handler attached so that leaving it unawaited (a check failed first) is not an unhandled rejection. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
