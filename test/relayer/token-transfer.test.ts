import { describe, expect, it } from "vitest";
import { encodeFunctionData, parseAbi, zeroAddress } from "viem";
import { transferRecipient } from "../../src/relayer/chain/token-transfer.ts";

const abi = parseAbi([
  "function transfer(address to, uint256 amount)",
  "function transferFrom(address from, address to, uint256 amount)",
  "function safeTransferFrom(address from, address to, uint256 id)",
  "function safeTransferFrom(address from, address to, uint256 id, bytes data)",
  "function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)",
  "function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data)",
  "function approve(address spender, uint256 amount)",
  "function buy(address nft, uint256 tokenId)",
]);
const vault = "0x1111111111111111111111111111111111111111";
const to = "0x2222222222222222222222222222222222222222";

describe("transferRecipient", () => {
  it("finds the recipient of every ERC-20, ERC-721 and ERC-1155 transfer form", () => {
    const calls = [
      encodeFunctionData({ abi, functionName: "transfer", args: [to, 5n] }),
      encodeFunctionData({ abi, functionName: "transferFrom", args: [vault, to, 5n] }),
      encodeFunctionData({ abi, functionName: "safeTransferFrom", args: [vault, to, 5n] }),
      encodeFunctionData({ abi, functionName: "safeTransferFrom", args: [vault, to, 5n, "0x1234"] }),
      encodeFunctionData({ abi, functionName: "safeTransferFrom", args: [vault, to, 5n, 7n, "0x"] }),
      encodeFunctionData({ abi, functionName: "safeBatchTransferFrom", args: [vault, to, [1n], [2n], "0x"] }),
    ];
    for (const data of calls) expect(transferRecipient(data)).toBe(to);
  });

  it("is undefined for calls that are not transfers", () => {
    expect(transferRecipient(encodeFunctionData({ abi, functionName: "approve", args: [to, 5n] }))).toBeUndefined();
    expect(transferRecipient(encodeFunctionData({ abi, functionName: "buy", args: [to, 5n] }))).toBeUndefined();
    expect(transferRecipient("0x")).toBeUndefined();
  });

  it("treats a truncated or dirty recipient word as the zero address, so the call is refused rather than let through", () => {
    const full = encodeFunctionData({ abi, functionName: "transfer", args: [to, 5n] });
    expect(transferRecipient(full.slice(0, 10 + 40) as `0x${string}`)).toBe(zeroAddress);
    const dirty = (full.slice(0, 10) + "ff" + full.slice(12)) as `0x${string}`;
    expect(transferRecipient(dirty)).toBe(zeroAddress);
  });
});
