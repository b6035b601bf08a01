// The invariant check, read from the chain after the run:
//   every approved request has exactly one PaymentExecuted event for its intent, in the transaction
//   its answer named, with the intent's bot, payee, amount and ref (else: lost / duplicated /
//   mismatched); every PaymentExecuted event of the run's vaults belongs to an approved request
//   (else: orphans, which includes an intent executed although its answer said otherwise); and the
//   relayer key's transactions in the run's blocks carry contiguous nonces from the nonce the key had
//   before the run, with the chain's final nonce equal to that start plus their count.
import { parseAbiItem, type Address, type EIP1193Provider, type Hex } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";

export interface CheckedRequest {
  intentHash: Hex;
  intent: PaymentIntent;
  /** The txHash of the approved answer; undefined when the request was not approved. */
  approvedTx?: Hex;
}

export interface InvariantInput {
  provider: EIP1193Provider;
  chainId: number;
  vaults: readonly Address[];
  relayer: Address;
  /** The last block before the run (the relayer's nonce is read there); events are read after it. */
  fromBlock: bigint;
  requests: readonly CheckedRequest[];
}

export interface InvariantReport {
  ok: boolean;
  approved: number;
  events: number;
  /** Approved requests with no execution event. */
  lost: number;
  /** Extra execution events for an intent beyond the first. */
  duplicated: number;
  /** Execution events without an approved request. */
  orphans: number;
  /** Events whose transaction or fields differ from the approved answer and the signed intent. */
  mismatched: number;
  nonces: { start: number; transactions: number; chainNonce: number; gaps: number; repeats: number };
  blocks: { from: string; to: string };
  /** The first few failures, one line each. */
  examples: string[];
}

const paymentExecuted = parseAbiItem(
  "event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)",
);
const LOG_CHUNK = 5_000n;
const BLOCK_READERS = 16;

export async function checkInvariants(input: InvariantInput): Promise<InvariantReport> {
  const { publicClient } = clientsFor(input.provider, input.chainId);
  const toBlock = await publicClient.getBlockNumber();
  const examples: string[] = [];
  const note = (line: string) => void (examples.length < 10 && examples.push(line));

  // Execution events of the run's vaults, by intent hash.
  const events = new Map<string, { txHash: Hex; bot: Address; to: Address; amount: bigint; ref: Hex }[]>();
  let eventCount = 0;
  for (let from = input.fromBlock + 1n; from <= toBlock; from += LOG_CHUNK) {
    const to = from + LOG_CHUNK - 1n < toBlock ? from + LOG_CHUNK - 1n : toBlock;
    const logs = await publicClient.getLogs({ address: [...input.vaults], event: paymentExecuted, fromBlock: from, toBlock: to });
    for (const log of logs) {
      const key = log.args.intentHash!.toLowerCase();
      const list = events.get(key) ?? [];
      list.push({ txHash: log.transactionHash, bot: log.args.bot!, to: log.args.to!, amount: log.args.amount!, ref: log.args.ref! });
      events.set(key, list);
      eventCount++;
    }
  }

  let lost = 0;
  let duplicated = 0;
  let mismatched = 0;
  const approved = new Set<string>();
  for (const request of input.requests) {
    if (!request.approvedTx) continue;
    const key = request.intentHash.toLowerCase();
    approved.add(key);
    const found = events.get(key) ?? [];
    if (found.length === 0) {
      lost++;
      note(`lost: intent ${request.intentHash} was approved (tx ${request.approvedTx}) but has no PaymentExecuted event`);
      continue;
    }
    if (found.length > 1) {
      duplicated += found.length - 1;
      note(`duplicated: intent ${request.intentHash} executed ${found.length} times`);
    }
    const event = found[0]!;
    const { intent } = request;
    const same =
      event.txHash.toLowerCase() === request.approvedTx.toLowerCase() &&
      event.bot.toLowerCase() === intent.bot.toLowerCase() &&
      event.to.toLowerCase() === intent.to.toLowerCase() &&
      event.amount === intent.amount &&
      event.ref.toLowerCase() === intent.ref.toLowerCase();
    if (!same) {
      mismatched++;
      note(`mismatched: intent ${request.intentHash} answered with tx ${request.approvedTx}, executed in ${event.txHash}`);
    }
  }
  let orphans = 0;
  for (const [key, list] of events) {
    if (approved.has(key)) continue;
    orphans += list.length;
    note(`orphan: intent ${key} executed in ${list[0]!.txHash} without an approved request`);
  }

  const nonces = await checkNonces(input, toBlock, note);
  const ok = lost === 0 && duplicated === 0 && orphans === 0 && mismatched === 0 && nonces.gaps === 0 && nonces.repeats === 0 && nonces.chainNonce === nonces.start + nonces.transactions;
  return {
    ok,
    approved: approved.size,
    events: eventCount,
    lost,
    duplicated,
    orphans,
    mismatched,
    nonces,
    blocks: { from: (input.fromBlock + 1n).toString(), to: toBlock.toString() },
    examples,
  };
}

/** Reads every block of the run and checks the relayer's transaction nonces. */
async function checkNonces(input: InvariantInput, toBlock: bigint, note: (line: string) => void): Promise<InvariantReport["nonces"]> {
  const relayer = input.relayer.toLowerCase();
  const request = (method: string, params: unknown[]) => input.provider.request({ method, params } as never) as Promise<unknown>;
  const start = Number(BigInt((await request("eth_getTransactionCount", [input.relayer, hex(input.fromBlock)])) as string));
  const chainNonce = Number(BigInt((await request("eth_getTransactionCount", [input.relayer, hex(toBlock)])) as string));

  const seen: number[] = [];
  let next = input.fromBlock + 1n;
  await Promise.all(
    Array.from({ length: BLOCK_READERS }, async () => {
      while (next <= toBlock) {
        const number = next++;
        const block = (await request("eth_getBlockByNumber", [hex(number), true])) as { transactions: { from: string; nonce: Hex }[] };
        for (const tx of block.transactions) if (tx.from.toLowerCase() === relayer) seen.push(Number(BigInt(tx.nonce)));
      }
    }),
  );

  seen.sort((a, b) => a - b);
  let gaps = 0;
  let repeats = 0;
  let expected = start;
  for (const nonce of seen) {
    if (nonce < expected) {
      repeats++;
      note(`nonce ${nonce} used twice`);
      continue;
    }
    if (nonce > expected) {
      gaps += nonce - expected;
      note(`nonces ${expected}..${nonce - 1} missing`);
    }
    expected = nonce + 1;
  }
  if (chainNonce !== start + seen.length) note(`the chain's nonce is ${chainNonce}, expected ${start} + ${seen.length} transactions`);
  return { start, transactions: seen.length, chainNonce, gaps, repeats };
}

const hex = (n: bigint): Hex => `0x${n.toString(16)}`;
