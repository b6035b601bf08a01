// What relay cannot price leaving the vault, read from the logs of the whole call tree
// (call-trace.ts): ERC-721 and ERC-1155 tokens (Transfer with an indexed id, TransferSingle,
// TransferBatch) whose `from` is the vault, wherever in the call they move. No feed prices them, so
// a call moving one cannot be shown to be within the per-transaction cap or the spending windows:
// it is held for the owner's review (path.ts), never valued at $0. Before, an execute's value was
// what its ERC-20 and ETH balances lost, and an NFT's safeTransferFrom was worth $0, scanned, and
// approved by the agents.
//
// ERC-20 transfers out of the vault (tokenOutflowsIn) are valued elsewhere (outflows.ts): a token
// with no feed is unpriced too.
import { getAddress, toEventSelector, type Address, type Hex } from "viem";
import type { TracedLog } from "./call-trace.ts";

/** `Transfer(address,address,uint256)`: ERC-20 (3 topics, the amount in data) and ERC-721 (4 topics, the id indexed). */
const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const TRANSFER_SINGLE = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
const TRANSFER_BATCH = toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])");

/** One NFT (or an ERC-1155 amount of one id), or an ERC-20 with no usable feed, leaving the vault. */
export interface UnpricedOutflow {
  standard: "erc20" | "erc721" | "erc1155";
  /** The token contract. */
  token: Address;
  /** Where it goes (an ERC-20's total may go to several). */
  to?: Address;
  /** The NFT's id. */
  id?: bigint;
  /** Items of `id` (1 for ERC-721), or an ERC-20's base units. */
  amount: bigint;
}

/** Every ERC-721 and ERC-1155 transfer out of `vault` among `logs`, in order. */
export function unpricedOutflowsIn(logs: readonly TracedLog[], vault: Address): UnpricedOutflow[] {
  const out: UnpricedOutflow[] = [];
  const isVault = (word: Hex | undefined) => word !== undefined && addressOf(word)?.toLowerCase() === vault.toLowerCase();
  for (const log of logs) {
    const [topic, a, b, c] = log.topics.map((t) => t.toLowerCase() as Hex);
    const token = getAddress(log.address);
    if (topic === TRANSFER && log.topics.length === 4 && isVault(a)) {
      out.push({ standard: "erc721", token, to: addressOf(b!), id: BigInt(c!), amount: 1n });
    } else if (topic === TRANSFER && log.topics.length === 1) {
      // An early ERC-721 with nothing indexed: from, to and id in data.
      const words = wordsOf(log.data);
      if (words.length === 3 && isVault(words[0])) out.push({ standard: "erc721", token, to: addressOf(words[1]!), id: BigInt(words[2]!), amount: 1n });
    } else if (topic === TRANSFER_SINGLE && log.topics.length === 4 && isVault(b)) {
      const [id, amount] = wordsOf(log.data);
      out.push({ standard: "erc1155", token, to: addressOf(c!), id: BigInt(id ?? "0x0"), amount: BigInt(amount ?? "0x0") });
    } else if (topic === TRANSFER_BATCH && log.topics.length === 4 && isVault(b)) {
      const { ids, amounts } = batchOf(log.data);
      for (const [i, id] of ids.entries()) out.push({ standard: "erc1155", token, to: addressOf(c!), id, amount: amounts[i] ?? 0n });
      // A batch the decoder cannot read still moved something: one entry says so.
      if (ids.length === 0) out.push({ standard: "erc1155", token, to: addressOf(c!), id: 0n, amount: 0n });
    }
  }
  return out;
}

/** ERC-20 transfers out of `vault` among `logs`: each token's total, in order of first appearance. */
export function tokenOutflowsIn(logs: readonly TracedLog[], vault: Address): Map<Address, bigint> {
  const totals = new Map<Address, bigint>();
  for (const log of logs) {
    if (log.topics[0]?.toLowerCase() !== TRANSFER || log.topics.length !== 3) continue;
    if (addressOf(log.topics[1]!)?.toLowerCase() !== vault.toLowerCase()) continue;
    const [amount] = wordsOf(log.data);
    const token = getAddress(log.address);
    totals.set(token, (totals.get(token) ?? 0n) + BigInt(amount ?? "0x0"));
  }
  return totals;
}

/** The owner's review's words for a call moving `outflows` out of the vault. */
export function unpricedHold(outflows: readonly UnpricedOutflow[]): string {
  const shown = outflows.slice(0, 5).map((o) => {
    if (o.standard === "erc20") return `${o.amount} base units of ERC-20 ${o.token}, which has no usable price feed`;
    const id = o.standard === "erc721" ? `ERC-721 ${o.token} #${o.id}` : `ERC-1155 ${o.token} #${o.id} ×${o.amount}`;
    return `${id} to ${o.to}`;
  });
  if (outflows.length > shown.length) shown.push(`${outflows.length - shown.length} more`);
  return `it moves out of the vault what relay cannot price (${shown.join("; ")}): its value against the per-transaction cap and the spending windows cannot be proven`;
}

/** The same when the node could not trace the call, and its selector is an NFT transfer. */
export const untracedNftHold =
  "it calls an NFT transfer, which no feed prices, and the node could not trace what it moves: its value against the per-transaction cap and the spending windows cannot be proven";

/** The address in a 32-byte word, or undefined when its top 12 bytes are not zero. */
function addressOf(word: Hex): Address | undefined {
  if (word.length !== 66 || !/^0x0{24}/i.test(word)) return undefined;
  return getAddress(`0x${word.slice(26)}`);
}

function wordsOf(data: Hex): Hex[] {
  const words: Hex[] = [];
  for (let at = 2; at + 64 <= data.length; at += 64) words.push(`0x${data.slice(at, at + 64)}`);
  return words;
}

/** TransferBatch's data: abi-encoded (uint256[] ids, uint256[] values); empty lists when malformed. */
function batchOf(data: Hex): { ids: bigint[]; amounts: bigint[] } {
  const words = wordsOf(data);
  const list = (offsetWord: Hex | undefined): bigint[] | undefined => {
    if (offsetWord === undefined) return undefined;
    const at = Number(BigInt(offsetWord) / 32n);
    const length = words[at] === undefined ? undefined : Number(BigInt(words[at]!));
    if (length === undefined || at + 1 + length > words.length) return undefined;
    return words.slice(at + 1, at + 1 + length).map((w) => BigInt(w));
  };
  const ids = list(words[0]);
  const amounts = list(words[1]);
  return ids && amounts ? { ids, amounts } : { ids: [], amounts: [] };
}
