// Why a mined transaction reverted. Receipts carry no reason, so the transaction is replayed with
// eth_call (same sender, target, calldata and gas limit) on the state of the block it was mined in,
// and the revert data is decoded as a simulation's is. Whatever changed the chain between the
// relayer's simulation and its transaction (a pause, a removed bot, a drained balance) is in that
// state, so the replay reverts for the same reason.
import type { Hex, TransactionReceipt } from "viem";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import { decodeRevert, revertDataOf } from "../../chain/revert-decode.ts";
import type { JobOutcome } from "./job.ts";

const GENERIC = "the transaction reverted on-chain";

/** `outcomes` of a reverted transaction with the decoded reason added; others unchanged. */
export async function withRevertReason(chain: ChainRuntime, receipt: TransactionReceipt, outcomes: JobOutcome[]): Promise<JobOutcome[]> {
  if (receipt.status === "success") return outcomes;
  const reason = await revertReasonOf(chain, receipt.transactionHash, receipt.blockNumber);
  if (reason === undefined) return outcomes;
  return outcomes.map((o) => (o.ok === false && o.reason === GENERIC ? { ...o, reason: `${GENERIC}: ${reason}` } : o));
}

/** The decoded revert reason of transaction `hash`, replayed at `blockNumber`; undefined if unknown. */
export async function revertReasonOf(chain: ChainRuntime, hash: Hex, blockNumber: bigint): Promise<string | undefined> {
  const client = chain.clients.publicClient;
  try {
    const tx = await client.getTransaction({ hash });
    if (!tx.to) return undefined;
    await client.call({ account: tx.from, to: tx.to, data: tx.input, gas: tx.gas, value: tx.value, blockNumber });
    return undefined; // the replay succeeds: the state that made it revert is gone
  } catch (error) {
    const data = revertDataOf(error);
    return data === undefined ? undefined : decodeRevert(data);
  }
}
