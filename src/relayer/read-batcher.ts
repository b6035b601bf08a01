// Coalesced reads. Requests that arrive while the chain is answering an earlier group's reads wait
// and then go together: one eth_blockNumber pins the group to a block, one policy-lens eth_call
// reads every request's snapshot at it, and the group's payments are simulated together, per vault,
// with one eth_call of `executePaymentBatch` from the relayer key that would send them. An idle
// relayer sends a request's reads at once, so a lone request waits for nobody.
//
// Each payment's simulation stays its own: one the batch call does not report as executed (it
// failed, or an earlier item of the group used what it needed) is simulated again alone at the same
// block, which gives its own revert reason, or passes. A group whose lens call fails for another
// reason than an unreachable node is read again request by request, so one bad query harms no other.
import { decodeFunctionResult, type Address, type Hex } from "viem";
import type { PaymentRequest } from "../api/validate.ts";
import type { ChainRuntime, PolicySnapshot, SnapshotQuery } from "./chain-runtime.ts";
import { batchCalldata, vaultAbi } from "./intents.ts";
import { rpcFailure } from "./rpc-errors.ts";
import { simulate, type SimulationOk } from "./simulate.ts";

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
    let blockNumber: bigint;
    try {
      blockNumber = await this.#chain.latestBlock();
    } catch (error) {
      for (const entry of group) entry.reject(error);
      return;
    }
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
    const byVault = new Map<string, number[]>();
    group.forEach((entry, i) => {
      if (!entry.payment) return;
      const key = entry.payment.request.vaultAddress.toLowerCase();
      const indexes = byVault.get(key);
      if (indexes) indexes.push(i);
      else byVault.set(key, [i]);
    });
    await Promise.all(
      [...byVault.values()].map(async (indexes) => {
        const payments = indexes.map((i) => group[i]!.payment!);
        const alone = (p: PaymentToSimulate) => quiet(this.#simulateAlone(p, blockNumber));
        if (payments.length === 1) {
          const single = alone(payments[0]!);
          await single.catch(() => {});
          out[indexes[0]!] = single;
          return;
        }
        let executed: readonly boolean[] | undefined;
        try {
          executed = await this.#simulateBatch(payments, blockNumber);
        } catch (error) {
          if ((error as { code?: string }).code === "RPC_ERROR") {
            for (const i of indexes) out[i] = quiet(Promise.reject(error));
            return;
          }
          executed = undefined; // the whole call reverted: each payment alone says why
        }
        indexes.forEach((i, k) => {
          out[i] = executed?.[k] === true ? Promise.resolve({ success: true }) : alone(payments[k]!);
        });
      }),
    );
    return out;
  }

  #simulateAlone(payment: PaymentToSimulate, blockNumber: bigint): Promise<SimulationOk> {
    const vault = payment.request.vaultAddress;
    return simulate(this.#chain, { from: this.#signerFor(vault), to: vault, data: payment.data, blockNumber });
  }

  /** eth_call of `executePaymentBatch` at `blockNumber`: per payment, whether it executed. */
  async #simulateBatch(payments: readonly PaymentToSimulate[], blockNumber: bigint): Promise<readonly boolean[]> {
    const vault = payments[0]!.request.vaultAddress;
    const { data } = await rpcFailure(() =>
      this.#chain.clients.publicClient.call({
        account: this.#signerFor(vault),
        to: vault,
        data: batchCalldata(payments.map((p) => p.request)),
        blockNumber,
      }),
    );
    const executed = decodeFunctionResult({ abi: vaultAbi, functionName: "executePaymentBatch", data: data ?? "0x" }) as readonly boolean[];
    if (executed.length !== payments.length) throw new Error("executePaymentBatch returned a result of the wrong length");
    return executed;
  }
}

/** The same promise, with a handler attached so that leaving it unawaited (a check failed first) is not an unhandled rejection. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
