// grantsIn: which rights over the vault's assets a call tree's logs leave set. The logs here are built
// as the events' own encodings (viem's encodeEventTopics / encodeAbiParameters), the way a token or a
// Permit2-style contract emits them; test/security/approval-grants.test.ts reads real call trees.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, encodeEventTopics, getAddress, maxUint256, parseAbi, type Address, type Hex } from "viem";
import { grantsIn } from "../../src/relayer/chain/grants.ts";
import type { TracedLog } from "../../src/relayer/chain/call-trace.ts";

const vault = getAddress("0x00000000000000000000000000000000000000a1");
const other = getAddress("0x00000000000000000000000000000000000000b2");
const spender = getAddress("0x00000000000000000000000000000000000000c3");
const token = getAddress("0x00000000000000000000000000000000000000d4");
const permit2 = getAddress("0x00000000000000000000000000000000000000e5");

const abi = parseAbi([
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
]);
const nftApproval = parseAbi(["event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)"]);
const permit2Events = parseAbi([
  "event Approval(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration)",
  "event Permit(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration, uint48 nonce)",
]);

const log = (address: Address, topics: readonly unknown[], data: Hex = "0x"): TracedLog => ({ address, topics: topics as Hex[], data });
const erc20Approval = (owner: Address, to: Address, value: bigint) =>
  log(token, encodeEventTopics({ abi, eventName: "Approval", args: { owner, spender: to } }), encodeAbiParameters([{ type: "uint256" }], [value]));
const forAll = (owner: Address, approved: boolean) =>
  log(token, encodeEventTopics({ abi, eventName: "ApprovalForAll", args: { owner, operator: spender } }), encodeAbiParameters([{ type: "bool" }], [approved]));
const permit2Approval = (owner: Address, amount: bigint) =>
  log(permit2, encodeEventTopics({ abi: permit2Events, eventName: "Approval", args: { owner, token, spender } }), encodeAbiParameters([{ type: "uint160" }, { type: "uint48" }], [amount, 99]));

describe("grantsIn", () => {
  it("the vault's own approve → call → revoke leaves nothing; a transfer is no grant", () => {
    const transfer = log(token, encodeEventTopics({ abi, eventName: "Transfer", args: { from: vault, to: spender } }), encodeAbiParameters([{ type: "uint256" }], [5n]));
    expect(grantsIn([erc20Approval(vault, spender, 100n), transfer, erc20Approval(vault, spender, 0n)], vault)).toEqual([]);
  });

  it("an ERC-20 allowance left set is a grant, with its last value; someone else's approval is not", () => {
    const logs = [erc20Approval(vault, spender, 1n), erc20Approval(other, spender, 7n), erc20Approval(vault, spender, maxUint256)];
    expect(grantsIn(logs, vault)).toEqual([{ kind: "allowance", token, spender, amount: maxUint256 }]);
  });

  it("an ERC-721 item approval (the token id indexed: four topics), cleared by a later approval of 0x0", () => {
    const item = (approved: Address) => log(token, encodeEventTopics({ abi: nftApproval, eventName: "Approval", args: { owner: vault, approved, tokenId: 3n } }));
    expect(grantsIn([item(spender)], vault)).toEqual([{ kind: "item", token, spender, tokenId: 3n }]);
    expect(grantsIn([item(spender), item(getAddress("0x0000000000000000000000000000000000000000"))], vault)).toEqual([]);
  });

  it("an operator set stays a grant; set then unset does not", () => {
    expect(grantsIn([forAll(vault, true)], vault)).toEqual([{ kind: "operator", token, spender }]);
    expect(grantsIn([forAll(vault, true), forAll(vault, false)], vault)).toEqual([]);
  });

  it("Permit2's Approval and Permit with the vault as owner are sub-allowances of the token they name, recorded by the contract that logged them", () => {
    const permit = log(
      permit2,
      encodeEventTopics({ abi: permit2Events, eventName: "Permit", args: { owner: vault, token, spender } }),
      encodeAbiParameters([{ type: "uint160" }, { type: "uint48" }, { type: "uint48" }], [5n, 99, 0]),
    );
    expect(grantsIn([permit2Approval(vault, 10n)], vault)).toEqual([{ kind: "sub-allowance", via: permit2, token, spender, amount: 10n, expiration: 99n }]);
    expect(grantsIn([permit], vault)).toEqual([{ kind: "sub-allowance", via: permit2, token, spender, amount: 5n, expiration: 99n }]);
    expect(grantsIn([permit2Approval(vault, 10n), permit2Approval(vault, 0n)], vault)).toEqual([]);
    expect(grantsIn([permit2Approval(other, 10n)], vault)).toEqual([]);
  });

  it("addresses compare whatever their case", () => {
    const lower = { ...erc20Approval(vault, spender, 1n), address: token.toLowerCase() as Address };
    expect(grantsIn([lower], vault.toLowerCase() as Address)).toEqual([{ kind: "allowance", token, spender, amount: 1n }]);
  });
});
