// Revert reasons as the relayer reports them: Error(string), the vault's and router's custom errors,
// OpenZeppelin's ERC-20 errors from a token a protocol calls, and raw data for anything unknown.
import { describe, expect, it } from "vitest";
import { encodeErrorResult, parseAbi } from "viem";
import { decodeRevert } from "../../src/relayer/simulate.ts";

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

  it("shows an unknown selector as raw data", () => {
    expect(decodeRevert("0x12345678")).toBe("reverted with data 0x12345678");
  });
});
