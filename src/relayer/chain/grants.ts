// Approval grants, recognised by what a call does rather than by its selector: a right over the
// vault's assets that outlives the call (someone may move them later, where no balance read around
// the call sees it). Read from the logs of the call's whole tree (call-trace.ts), so a grant hidden
// in a multicall, a nested one or a delegatecall counts the same as a top-level `approve`:
//
//   - an ERC-20 allowance: Approval(vault, spender, value) with value above the allowance before;
//   - an ERC-721 approval of one item: Approval(vault, approved, tokenId) naming someone new;
//   - an operator: ApprovalForAll(vault, operator, true) where it was not one before;
//   - a Permit2-style sub-allowance: Permit2's Approval(vault, token, spender, amount, expiration) or
//     Permit(vault, token, spender, amount, expiration, nonce), amount above the one before.
//
// A right the call sets and takes back (the vault's own approve → call → revoke of the declared
// tokens) is no grant: the last value each right is set to is what remains.
import { formatUnits, getAddress, maxUint160, maxUint256, parseAbi, toEventSelector, type Abi, type Address, type Hex } from "viem";
import type { ChainRuntime } from "./chain-runtime.ts";
import type { TracedLog } from "./call-trace.ts";
import { rpcFailure } from "../rpc-errors.ts";
import { configuredTokens, tokenInfoOf } from "./token-info.ts";

/** A right over the vault's assets that the call leaves behind. */
export type Grant =
  | { kind: "allowance"; token: Address; spender: Address; amount: bigint }
  | { kind: "item"; token: Address; spender: Address; tokenId: bigint }
  | { kind: "operator"; token: Address; spender: Address }
  /** Recorded by `via` (a Permit2-style contract), which pulls `token` through its own allowance. */
  | { kind: "sub-allowance"; via: Address; token: Address; spender: Address; amount: bigint; expiration: bigint };

/** ERC-20's and ERC-721's Approval (one signature; ERC-721 indexes the token id: a fourth topic). */
const APPROVAL = toEventSelector("Approval(address,address,uint256)");
const APPROVAL_FOR_ALL = toEventSelector("ApprovalForAll(address,address,bool)");
/** Permit2's: Approval(owner, token, spender, amount, expiration) and Permit(…, nonce), all three addresses indexed. */
const PERMIT2_APPROVAL = toEventSelector("Approval(address,address,address,uint160,uint48)");
const PERMIT2_PERMIT = toEventSelector("Permit(address,address,address,uint160,uint48,uint48)");

/** The views that read each right back, one ABI each (two are named `allowance`). */
const readers = {
  allowance: parseAbi(["function allowance(address owner, address spender) view returns (uint256)"]),
  getApproved: parseAbi(["function getApproved(uint256 tokenId) view returns (address)"]),
  isApprovedForAll: parseAbi(["function isApprovedForAll(address owner, address operator) view returns (bool)"]),
  subAllowance: parseAbi(["function allowance(address owner, address token, address spender) view returns (uint160, uint48, uint48)"]),
};

/**
 * The rights over `vault`'s assets that `logs` (a call tree's, in order) leave set: per right, the
 * last value it was set to, when that value grants anything. Pure; whether each is more than the
 * vault had granted before is newGrants' question.
 */
export function grantsIn(logs: readonly TracedLog[], vault: Address): Grant[] {
  const owner = vault.toLowerCase();
  const last = new Map<string, Grant | undefined>();
  for (const log of logs) {
    const [topic, ownerTopic, second, third] = log.topics;
    if (ownerTopic === undefined || second === undefined || addressOf(ownerTopic).toLowerCase() !== owner) continue;
    const at = getAddress(log.address);
    if (topic === APPROVAL && log.topics.length === 3) {
      const amount = word(log.data, 0);
      last.set(key("allowance", at, addressOf(second)), amount > 0n ? { kind: "allowance", token: at, spender: addressOf(second), amount } : undefined);
    } else if (topic === APPROVAL && third !== undefined && log.topics.length === 4) {
      // ERC-721's approve(to, tokenId): topics owner, approved, tokenId; 0x0 approved clears it.
      const tokenId = BigInt(third);
      const approved = addressOf(second);
      last.set(key("item", at, tokenId.toString()), BigInt(approved) !== 0n ? { kind: "item", token: at, spender: approved, tokenId } : undefined);
    } else if (topic === APPROVAL_FOR_ALL && log.topics.length === 3) {
      last.set(key("operator", at, addressOf(second)), word(log.data, 0) !== 0n ? { kind: "operator", token: at, spender: addressOf(second) } : undefined);
    } else if ((topic === PERMIT2_APPROVAL || topic === PERMIT2_PERMIT) && third !== undefined && log.topics.length === 4) {
      const token = addressOf(second);
      const spender = addressOf(third);
      const amount = word(log.data, 0);
      const grant: Grant = { kind: "sub-allowance", via: at, token, spender, amount, expiration: word(log.data, 1) };
      last.set(key("sub-allowance", at, token, spender), amount > 0n ? grant : undefined);
    }
  }
  return [...last.values()].filter((grant) => grant !== undefined);
}

/**
 * The grants that give more than the vault had granted at `blockNumber`, the block the call was
 * simulated at: an allowance above the one before (a protocol spending part of a standing
 * allowance may log the rest), an approval or operator not already there. A right the node cannot
 * read back (a contract without the view) counts as new.
 */
export async function newGrants(chain: ChainRuntime, vault: Address, grants: readonly Grant[], blockNumber: bigint): Promise<Grant[]> {
  if (grants.length === 0) return [];
  const read = (address: Address, abi: Abi, args: readonly unknown[]) =>
    rpcFailure(() => chain.clients.publicClient.readContract({ address, abi, functionName: (abi[0] as { name: string }).name, args, blockNumber } as never)).catch((error: unknown) => {
      if ((error as { code?: string }).code === "RPC_ERROR") throw error;
      return undefined;
    });
  const fresh = await Promise.all(
    grants.map(async (grant) => {
      switch (grant.kind) {
        case "allowance": {
          const before = (await read(grant.token, readers.allowance, [vault, grant.spender])) as bigint | undefined;
          return before === undefined || grant.amount > before;
        }
        case "item": {
          const before = (await read(grant.token, readers.getApproved, [grant.tokenId])) as Address | undefined;
          return before === undefined || before.toLowerCase() !== grant.spender.toLowerCase();
        }
        case "operator":
          return (await read(grant.token, readers.isApprovedForAll, [vault, grant.spender])) !== true;
        case "sub-allowance": {
          const before = (await read(grant.via, readers.subAllowance, [vault, grant.token, grant.spender])) as readonly [bigint, bigint, bigint] | undefined;
          return before === undefined || grant.amount > before[0] || grant.expiration > before[1];
        }
      }
    }),
  );
  return grants.filter((_grant, i) => fresh[i]);
}

/** Why a call that grants these rights is held: what it grants, to whom, on which token. */
export function describeGrants(grants: readonly Grant[], chain: ChainRuntime): string {
  const tokens = configuredTokens(chain.config.tokens);
  const name = (token: Address) => {
    const info = tokenInfoOf(token, tokens);
    return info ? `${info.symbol} (${token})` : token;
  };
  /** "unlimited USDC (0x…)", "20000 USDC (0x…)", or "20000 base units of 0x…" for a token the chain's config does not name. */
  const quantity = (token: Address, amount: bigint, max: bigint) => {
    const info = tokenInfoOf(token, tokens);
    if (amount === max) return `unlimited ${name(token)}`;
    return info ? `${formatUnits(amount, info.decimals)} ${name(token)}` : `${amount} base units of ${token}`;
  };
  const each = grants.map((grant) => {
    switch (grant.kind) {
      case "allowance":
        return `an allowance of ${quantity(grant.token, grant.amount, maxUint256)} to ${grant.spender}`;
      case "item":
        return `the approval of item ${grant.tokenId} of ${name(grant.token)} to ${grant.spender}`;
      case "operator":
        return `operator rights over every item of ${name(grant.token)} to ${grant.spender} (setApprovalForAll)`;
      case "sub-allowance":
        return `an allowance of ${quantity(grant.token, grant.amount, maxUint160)} to ${grant.spender} through ${grant.via} (a Permit2-style allowance, pulled through the vault's allowance to it)`;
    }
  });
  return `the call grants a right over the vault's assets that outlives it: ${each.join("; ")}`;
}

function key(...parts: string[]): string {
  return parts.map((part) => part.toLowerCase()).join(":");
}

/** The address in an indexed topic (its low 20 bytes), checksummed as people read it. */
function addressOf(topic: Hex): Address {
  return getAddress(`0x${topic.slice(-40)}`);
}

/** The `index`th 32-byte word of `data` as a number (0 when absent). */
function word(data: Hex, index: number): bigint {
  const hex = data.slice(2 + index * 64, 2 + (index + 1) * 64);
  return hex.length === 64 ? BigInt(`0x${hex}`) : 0n;
}
