// The recipient of a token transfer made by an execute: ERC-20 transfer/transferFrom, ERC-721
// transferFrom/safeTransferFrom and ERC-1155 safeTransferFrom/safeBatchTransferFrom. Such a call moves
// the vault's assets to someone exactly as a payment does, so it is held to the same destination rule
// (the vault applies it on-chain too). The recipient is the first argument of `transfer` and the
// second of the others; each is a whole ABI word, so it is read straight from the calldata.
import { getAddress, toFunctionSelector, type Address, type Hex } from "viem";
import { selectorOf } from "./selector.ts";

const recipientArgument: ReadonlyMap<string, number> = new Map([
  [toFunctionSelector("transfer(address,uint256)"), 0],
  [toFunctionSelector("transferFrom(address,address,uint256)"), 1],
  [toFunctionSelector("safeTransferFrom(address,address,uint256)"), 1],
  [toFunctionSelector("safeTransferFrom(address,address,uint256,bytes)"), 1],
  [toFunctionSelector("safeTransferFrom(address,address,uint256,uint256,bytes)"), 1],
  [toFunctionSelector("safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)"), 1],
]);

/**
 * Who receives the tokens a call transfers, or undefined when the call is not a token transfer.
 * A transfer whose recipient word is missing or not an address counts as a transfer to the zero
 * address (the destination rule refuses it), never as "not a transfer".
 */
export function transferRecipient(callData: Hex): Address | undefined {
  const selector = selectorOf(callData);
  const index = selector === undefined ? undefined : recipientArgument.get(selector);
  if (index === undefined) return undefined;
  const word = callData.slice(10 + index * 64, 10 + (index + 1) * 64);
  if (word.length !== 64 || !/^0{24}/.test(word)) return "0x0000000000000000000000000000000000000000";
  return getAddress(`0x${word.slice(24)}`);
}
