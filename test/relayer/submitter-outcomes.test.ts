// How a mined transaction's receipt settles each of its jobs: a batch reports a failed payment with
// the vault's PaymentFailed(intentHash, reason) event; nothing else counts as a failure.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, encodeErrorResult, encodeEventTopics, keccak256, parseAbiParameters, toHex, type Hex, type TransactionReceipt } from "viem";
import { vaultAbi } from "../../src/relayer/chain/intents.ts";
import { outcomesFromReceipt } from "../../src/relayer/submit/submitter.ts";
import type { Job } from "../../src/relayer/submit/job.ts";

const vault = "0x00000000000000000000000000000000000000a1" as const;
const token = "0x00000000000000000000000000000000000000b2" as const;
const txHash = keccak256("0x01");
const job = (n: number): Job => ({ requestId: `r${n}`, vault, data: "0x", gas: 0n, intentHash: keccak256(toHex(n)) });
const jobs = [job(1), job(2), job(3)];

const reason = encodeErrorResult({ abi: [{ type: "error", name: "Error", inputs: [{ type: "string", name: "message" }] }], errorName: "Error", args: ["recipient blacklisted"] });
function paymentFailed(address: Hex, intentHash: Hex): Log {
  return {
    address,
    topics: encodeEventTopics({ abi: vaultAbi, eventName: "PaymentFailed", args: { intentHash } }),
    data: encodeAbiParameters(parseAbiParameters("bytes"), [reason]),
  };
}
function transfer(): Log {
  const topic = keccak256(toHex("Transfer(address,address,uint256)"));
  return { address: token, topics: [topic, `0x${"0".repeat(24)}${vault.slice(2)}`, `0x${"0".repeat(64)}`], data: encodeAbiParameters(parseAbiParameters("uint256"), [5n]) };
}
interface Log {
  address: Hex;
  topics: readonly unknown[];
  data: Hex;
}
function receipt(status: "success" | "reverted", logs: Log[]): TransactionReceipt {
  return { status, transactionHash: txHash, blockNumber: 7n, logs } as unknown as TransactionReceipt;
}

describe("outcomesFromReceipt", () => {
  it("fails exactly the jobs the vault reported with PaymentFailed, with the decoded reason", () => {
    const outcomes = outcomesFromReceipt(receipt("success", [transfer(), paymentFailed(vault, jobs[1]!.intentHash), transfer()]), jobs);
    expect(outcomes).toEqual([
      { ok: true, txHash, blockNumber: 7n },
      { ok: false, txHash, reason: "execution failed on-chain: recipient blacklisted" },
      { ok: true, txHash, blockNumber: 7n },
    ]);
  });

  it("ignores a PaymentFailed-shaped log emitted by another contract", () => {
    const outcomes = outcomesFromReceipt(receipt("success", [paymentFailed(token, jobs[0]!.intentHash)]), jobs);
    expect(outcomes.every((o) => o.ok === true)).toBe(true);
  });

  it("fails every job of a reverted transaction", () => {
    const outcomes = outcomesFromReceipt(receipt("reverted", []), jobs);
    expect(outcomes).toEqual(jobs.map(() => ({ ok: false, txHash, reason: "the transaction reverted on-chain" })));
  });
});
