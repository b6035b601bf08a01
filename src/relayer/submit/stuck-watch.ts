// Keeps the relayer's broadcast transactions moving until one of them is mined. On each pass, for
// every request in `submitted` and every on-chain cancel `sent` (cancels.ts: a cancel stuck under a
// low fee would hold back every later transaction of its key):
//   - the node no longer knows the transaction (dropped from its pool): the recorded bytes are
//     re-sent unchanged (same hash);
//   - it has been pending longer than `replaceAfterMs`: a replacement is signed, the same
//     transaction with the same nonce and fees raised by `feeBumpPercent` (or to the market's, if
//     higher), recorded in the ledger, and only then broadcast.
// The same nonce means at most one version can ever mine: whichever does is the request's one
// execution. Receipt watching (submitter.ts) and reconciliation look at every version.
import { formatTransactionReceipt, keccak256, parseTransaction, type Hex, type TransactionReceipt, type TransactionSerializableEIP1559 } from "viem";
import type { RequestRecord } from "../../ledger/index.ts";
import type { Store } from "../store.ts";
import { transactionSigner } from "../../crypto/sign-transaction.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import { isTransportFailure } from "../rpc-errors.ts";

export interface StuckWatchSettings {
  /** Time a broadcast version may stay pending before it is replaced. */
  replaceAfterMs: number;
  /** Fee increase of each replacement, in percent. */
  feeBumpPercent: number;
  /** Most replacements signed for one transaction. */
  maxReplacements: number;
}

/** What one pass did. */
export interface StuckWatchReport {
  rebroadcast: number;
  replaced: number;
}

/** One signed version of a request's transaction; `sentAt` is when it was recorded (unix ms). */
export interface TxVersion {
  txHash: Hex;
  rawTx: Hex;
  sentAt: number;
}

/** A recorded transaction and its replacements, oldest first (the last is the newest). */
export async function versionsOf(store: Store, record: Pick<RequestRecord, "txHash" | "rawTx" | "updatedAt">): Promise<TxVersion[]> {
  if (!record.txHash || !record.rawTx) return [];
  const first = { txHash: record.txHash as Hex, rawTx: record.rawTx as Hex, sentAt: record.updatedAt };
  return [first, ...(await store.replacementsOf(record.txHash)).map((r) => ({ txHash: r.txHash as Hex, rawTx: r.rawTx as Hex, sentAt: r.createdAt }))];
}

/** Every hash the transaction first recorded as `original` may mine under. */
export async function hashesOf(store: Store, original: Hex): Promise<Hex[]> {
  return [original, ...(await store.replacementsOf(original)).map((r) => r.txHash as Hex)];
}

/** The receipt of whichever of `hashes` is mined, if any. Transport failures are thrown. */
export async function receiptOfAny(chain: ChainRuntime, hashes: readonly Hex[]): Promise<TransactionReceipt | undefined> {
  for (const hash of hashes) {
    // Asked by the bare method: a receipt not there yet is null, rather than the error (message,
    // stack) viem's getTransactionReceipt would build for it on every look.
    const receipt = await chain.clients.publicClient.request({ method: "eth_getTransactionReceipt", params: [hash] }).catch((error: unknown) => {
      if (isTransportFailure(error)) throw error;
      return null;
    });
    if (receipt) return formatTransactionReceipt(receipt);
  }
  return undefined;
}

/** Where a recorded transaction stands (see followRecorded). */
export type RecordedStanding =
  /** One of its versions is mined: its receipt. */
  | { state: "mined"; receipt: TransactionReceipt }
  /** Its nonce is used and none of its versions is mined: it can never land. */
  | { state: "nonce-used" }
  /** The chain does not know the transactions before its nonce (a reset chain): it cannot land; `pending` is the chain's next nonce. */
  | { state: "gap"; pending: bigint }
  /** Not mined yet: its newest version was broadcast again, unchanged (a refusal such as "already known" means the node has it). */
  | { state: "rebroadcast" };

/**
 * Follows a recorded transaction (a request's, or an on-chain cancel's) with the chain: mined under
 * any version, provably lost, or broadcast again as it was signed. Never signs anything new, so a
 * transaction that may still land is never doubled. Transport failures are thrown.
 */
export async function followRecorded(store: Store, chain: ChainRuntime, record: SentTransaction): Promise<RecordedStanding> {
  const client = chain.clients.publicClient;
  const versions = await versionsOf(store, record);
  const hashes = versions.map((v) => v.txHash);
  const receipt = await receiptOfAny(chain, hashes);
  if (receipt) return { state: "mined", receipt };
  const signer = record.signer as Hex;
  const nonce = record.nonce!;
  const mined = BigInt(await client.getTransactionCount({ address: signer, blockTag: "latest" }));
  if (mined > nonce) {
    // Our nonce is used. One of our versions may have been mined since the look above: look again.
    const late = await receiptOfAny(chain, hashes);
    return late ? { state: "mined", receipt: late } : { state: "nonce-used" };
  }
  const pending = BigInt(await client.getTransactionCount({ address: signer, blockTag: "pending" }));
  if (nonce > pending) return { state: "gap", pending };
  try {
    await client.request({ method: "eth_sendRawTransaction", params: [versions.at(-1)!.rawTx] });
  } catch (error) {
    if (isTransportFailure(error)) throw error;
    // "already known" and similar: it is in the pool. Anything else: tried again on the next pass.
  }
  return { state: "rebroadcast" };
}

/**
 * Waits until one of `hashes()` (read again on every look) is mined, or `timeoutMs` passes: looks
 * at once, then again on each new block of the chain (block-watch.ts), and at least every second.
 */
export async function waitForAnyReceipt(chain: ChainRuntime, hashes: () => Promise<readonly Hex[]>, timeoutMs: number): Promise<TransactionReceipt | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    // The head is read before looking, so a block mined meanwhile wakes the wait below at once.
    const seen = chain.blocks.latest;
    const receipt = await hashes().then((list) => receiptOfAny(chain, list)).catch(() => undefined);
    if (receipt) return receipt;
    const left = until - Date.now();
    if (left <= 0) return undefined;
    await chain.blocks.after(seen, Math.min(left, 1_000));
  }
}

/** A broadcast transaction the watch follows: a submitted request's, or a sent cancel's. */
export type SentTransaction = Pick<RequestRecord, "chainId" | "txHash" | "rawTx" | "nonce" | "signer" | "updatedAt">;

/** Whether this instance may sign with a key now: `{}` (no leases), `{ leaseToken }`, or undefined (another instance holds it). */
export type SigningRight = (chainId: number, signer: string) => Promise<{ leaseToken?: bigint } | undefined>;

export class StuckWatch {
  readonly #store: Store;
  readonly #chains: ReadonlyMap<number, ChainRuntime>;
  readonly #settings: StuckWatchSettings;
  /** Signers by `chainId:lower-case address`. */
  readonly #signers = new Map<string, ReturnType<typeof transactionSigner>>();
  #running = false;

  readonly #onReplaced: (chainId: number) => void;
  readonly #signingRight: SigningRight;

  /**
   * `onReplaced`: told of each fee-bump replacement sent (relay_transactions_total{result="replaced"}).
   * `signingRight`: whether this instance may sign with a key now, under which lease (Dispatcher.signingRight);
   * by default always, without a lease (one instance).
   */
  constructor(
    store: Store,
    chains: ReadonlyMap<number, ChainRuntime>,
    settings: StuckWatchSettings,
    onReplaced: (chainId: number) => void = () => {},
    signingRight: SigningRight = async () => ({}),
  ) {
    this.#onReplaced = onReplaced;
    this.#signingRight = signingRight;
    this.#store = store;
    this.#chains = chains;
    this.#settings = settings;
    for (const chain of chains.values()) {
      chain.signers.forEach((signer, i) => {
        this.#signers.set(`${chain.chainId}:${signer.address.toLowerCase()}`, transactionSigner(chain.config.relayerKeys[i] as Hex));
      });
    }
  }

  /** One pass over the submitted transactions; a pass still running makes this one a no-op. */
  async check(): Promise<StuckWatchReport> {
    const report: StuckWatchReport = { rebroadcast: 0, replaced: 0 };
    if (this.#running) return report;
    this.#running = true;
    try {
      const seen = new Set<string>();
      const requests = (await this.#store.listInFlight()).filter((record) => record.status === "submitted");
      const cancels = (await this.#store.listCancels()).filter((cancel) => cancel.status === "sent");
      const sent: SentTransaction[] = [...requests, ...cancels];
      for (const record of sent) {
        if (!record.txHash || record.nonce === undefined || !record.signer) continue;
        const chain = this.#chains.get(record.chainId);
        if (!chain || seen.has(`${record.chainId}:${record.txHash}`)) continue;
        seen.add(`${record.chainId}:${record.txHash}`);
        try {
          const done = await this.#checkOne(chain, record);
          if (done) report[done]++;
        } catch (error) {
          if (!isTransportFailure(error)) throw error;
          // The node is not answering: try again on the next pass.
        }
      }
      return report;
    } finally {
      this.#running = false;
    }
  }

  async #checkOne(chain: ChainRuntime, record: SentTransaction): Promise<keyof StuckWatchReport | undefined> {
    const client = chain.clients.publicClient;
    const versions = await versionsOf(this.#store, record);
    if (await receiptOfAny(chain, versions.map((v) => v.txHash))) return undefined; // mined: its watcher settles it
    const latest = versions.at(-1)!;
    const known = await this.#newestKnown(chain, versions);
    if (known === "mined") return undefined;
    if (known === undefined) {
      // No version is in the node's pool. Unless the nonce is already used (reconciliation's case),
      // send the newest version again, unchanged.
      const mined = BigInt(await client.getTransactionCount({ address: record.signer as Hex, blockTag: "latest" }));
      if (mined > record.nonce!) return undefined;
      await this.#broadcast(chain, latest.rawTx);
      return "rebroadcast";
    }
    if (Date.now() - latest.sentAt < this.#settings.replaceAfterMs || versions.length - 1 >= this.#settings.maxReplacements) return undefined;
    const sign = this.#signers.get(`${chain.chainId}:${record.signer}`);
    if (!sign) return undefined;
    // A replacement uses the key's nonce: only the instance holding the key's lease may sign one.
    // An instance that lost it could otherwise displace its successor's transaction for that nonce.
    const right = await this.#signingRight(chain.chainId, record.signer!);
    if (!right) return undefined;
    const rawTx = sign(await this.#bumped(chain, latest.rawTx));
    // Fenced: filed only while the lease is still this instance's; else the bytes are dropped unsent.
    const fence = right.leaseToken === undefined ? undefined : { chainId: chain.chainId, signer: record.signer!, leaseToken: right.leaseToken };
    if (!(await this.#store.recordReplacement(record.txHash!, keccak256(rawTx), rawTx, fence))) return undefined;
    await this.#broadcast(chain, rawTx);
    this.#onReplaced(chain.chainId);
    return "replaced";
  }

  /** The newest version the node knows: "mined" if one is in a block, undefined if none is known. */
  async #newestKnown(chain: ChainRuntime, versions: readonly TxVersion[]): Promise<TxVersion | "mined" | undefined> {
    for (const version of [...versions].reverse()) {
      const tx = (await chain.clients.publicClient.request({ method: "eth_getTransactionByHash", params: [version.txHash] })) as { blockNumber?: string | null } | null;
      if (tx?.blockNumber) return "mined";
      if (tx) return version;
    }
    return undefined;
  }

  /** `rawTx` re-signed as is, but with both fees raised by the bump (or to the market's, if higher). */
  async #bumped(chain: ChainRuntime, rawTx: Hex): Promise<TransactionSerializableEIP1559> {
    const old = parseTransaction(rawTx) as TransactionSerializableEIP1559;
    const market = await chain.clients.publicClient.estimateFeesPerGas();
    const bump = (fee: bigint): bigint => fee + (fee * BigInt(this.#settings.feeBumpPercent) + 99n) / 100n;
    const maxPriorityFeePerGas = max(bump(old.maxPriorityFeePerGas ?? 0n), market.maxPriorityFeePerGas ?? 0n);
    const maxFeePerGas = max(bump(old.maxFeePerGas ?? 0n), market.maxFeePerGas ?? 0n, maxPriorityFeePerGas);
    return {
      type: "eip1559",
      chainId: old.chainId!,
      nonce: old.nonce!,
      to: old.to,
      data: old.data,
      gas: old.gas,
      value: old.value,
      maxFeePerGas,
      maxPriorityFeePerGas,
    };
  }

  /** Sends a signed transaction; a refusal (already known, underpriced, nonce used) is left to the next pass. */
  async #broadcast(chain: ChainRuntime, rawTx: Hex): Promise<void> {
    try {
      await chain.clients.publicClient.request({ method: "eth_sendRawTransaction", params: [rawTx] });
    } catch (error) {
      if (isTransportFailure(error)) throw error;
    }
  }
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}
