// Revert reasons as the relayer reports them: Error(string), the vault's and router's custom errors,
// OpenZeppelin's standard token errors (ERC-20, ERC-721, ERC-1155), amounts in a token's units when
// the caller knows it, and raw data for anything unknown.
import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { encodeErrorResult, parseAbi, toFunctionSelector } from "viem";
import { decodeRevert, revertErrorAbi } from "../../src/chain/revert-decode.ts";

const require = createRequire(import.meta.url);

const SPENDER = "0xe4B3D178F0F9644571d8f2f9921026b98edff6b2";

describe("decodeRevert", () => {
  it("reads a require message and says when there is no reason", () => {
    const data = encodeErrorResult({ abi: parseAbi(["error Error(string)"]), errorName: "Error", args: ["amount is zero"] });
    expect(decodeRevert(data)).toBe("amount is zero");
    expect(decodeRevert("0x")).toBe("reverted without a reason");
  });

  it("names an ERC-20 token's custom error with its arguments", () => {
    const abi = parseAbi(["error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)"]);
    const data = encodeErrorResult({ abi, errorName: "ERC20InsufficientAllowance", args: [SPENDER, 0n, 5_000_000n] });
    expect(decodeRevert(data)).toBe(`ERC20InsufficientAllowance(${SPENDER}, 0, 5000000)`);
  });

  it("decodes every OpenZeppelin token error (IERC20Errors, IERC721Errors, IERC1155Errors) by its public selector", () => {
    // The selectors are fixed by the error signatures; 0xe450d38c is what `relay owner deposit` above
    // the owner's balance used to print raw.
    const abi = parseAbi([
      "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
      "error ERC20InvalidReceiver(address receiver)",
      "error ERC721NonexistentToken(uint256 tokenId)",
      "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
      "error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)",
    ]);
    const balance = encodeErrorResult({ abi, errorName: "ERC20InsufficientBalance", args: [SPENDER, 1n, 2n] });
    expect(balance.slice(0, 10)).toBe("0xe450d38c");
    expect(decodeRevert(balance)).toBe(`ERC20InsufficientBalance(${SPENDER}, 1, 2)`);
    expect(decodeRevert(encodeErrorResult({ abi, errorName: "ERC20InvalidReceiver", args: [SPENDER] }))).toBe(`ERC20InvalidReceiver(${SPENDER})`);
    expect(decodeRevert(encodeErrorResult({ abi, errorName: "ERC721NonexistentToken", args: [7n] }))).toBe("ERC721NonexistentToken(7)");
    expect(decodeRevert(encodeErrorResult({ abi, errorName: "ERC721IncorrectOwner", args: [SPENDER, 7n, SPENDER] }))).toBe(`ERC721IncorrectOwner(${SPENDER}, 7, ${SPENDER})`);
    expect(decodeRevert(encodeErrorResult({ abi, errorName: "ERC1155InsufficientBalance", args: [SPENDER, 1n, 2n, 3n] }))).toBe(`ERC1155InsufficientBalance(${SPENDER}, 1, 2, 3)`);
  });

  it("every error of OpenZeppelin's IERC20Errors, IERC721Errors and IERC1155Errors is known to the decoder", () => {
    const known = new Set(revertErrorAbi.map((e) => toFunctionSelector(`function ${e.name}(${e.inputs.map((i) => i.type).join(",")})`)));
    for (const set of ["IERC20Errors", "IERC721Errors", "IERC1155Errors"]) {
      const { abi } = require(`@openzeppelin/contracts/build/contracts/${set}.json`) as { abi: Array<{ type: string; name: string; inputs: Array<{ type: string }> }> };
      for (const error of abi.filter((item) => item.type === "error")) {
        expect(known.has(toFunctionSelector(`function ${error.name}(${error.inputs.map((i) => i.type).join(",")})`)), error.name).toBe(true);
      }
    }
  });

  it("shows an ERC-20 error's amounts in the token's units when the caller knows the token", () => {
    const abi = parseAbi(["error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)"]);
    const data = encodeErrorResult({ abi, errorName: "ERC20InsufficientAllowance", args: [SPENDER, 250_000n, 5_000_000n] });
    expect(decodeRevert(data, { token: { symbol: "USDC", decimals: 6 } })).toBe(`ERC20InsufficientAllowance(${SPENDER}, 0.25 USDC, 5 USDC)`);
  });

  it("shows an unknown selector as raw data", () => {
    expect(decodeRevert("0x12345678")).toBe("reverted with data 0x12345678");
  });
});
