// The decoder behind review items: each function an owner must be able to read before approving,
// token amounts in human units, unlimited allowances, unknown selectors marked as not decoded, and the
// simulated outflows in human units and USD.
import { describe, expect, it } from "vitest";
import { encodeFunctionData, maxUint256, parseAbiItem, type Address, type Hex } from "viem";
import { decodeCall, describeOutflows, groupDigits, usdText } from "../../src/relayer/chain/call-decode.ts";
import { calldata } from "./harness.ts";

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address;
const WETH = "0x4200000000000000000000000000000000000006" as Address;
const NFT = "0x1111111111111111111111111111111111111111" as Address;
const VAULT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
const SPENDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Address;
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as Address;
const tokens = new Map([
  [USDC.toLowerCase(), { symbol: "USDC", decimals: 6 }],
  [WETH.toLowerCase(), { symbol: "WETH", decimals: 18 }],
]);
const context = { tokens, vault: VAULT };

const encode = (signature: string, args: readonly unknown[]): Hex => encodeFunctionData({ abi: [parseAbiItem(`function ${signature}`)], args } as never);

function decoded(target: Address, data: Hex) {
  const call = decodeCall(target, data, context);
  if (!call.decoded) throw new Error(`expected a decoded call, got ${call.summary}`);
  return { call, arg: (name: string) => call.arguments.find((a) => a.name === name)! };
}

describe("decodeCall", () => {
  it("approve on a known token: the spender and the amount in human units", () => {
    const { call, arg } = decoded(USDC, encode("approve(address,uint256)", [SPENDER, 20_000_000_000n]));
    expect(call).toMatchObject({ function: "approve", signature: "approve(address,uint256)", selector: "0x095ea7b3", target: USDC, targetSymbol: "USDC" });
    expect(arg("spender")).toEqual({ name: "spender", type: "address", value: SPENDER, text: SPENDER });
    expect(arg("amount")).toMatchObject({ value: "20000000000", token: USDC, symbol: "USDC", decimals: 6, human: "20000", text: "20,000 USDC (20000000000 base units)" });
    expect(call.summary).toBe("approve(spender 0x7099…79C8, amount 20,000 USDC)");
  });

  it("approve of 2^256−1 is unlimited", () => {
    const { call, arg } = decoded(USDC, encode("approve(address,uint256)", [SPENDER, maxUint256]));
    expect(arg("amount")).toMatchObject({ unlimited: true, value: maxUint256.toString(), text: "unlimited USDC (2^256−1: no limit at all)" });
    expect(call.summary).toBe("approve(spender 0x7099…79C8, amount unlimited USDC)");
  });

  it("increaseAllowance: spender and amount, unlimited too", () => {
    const { call, arg } = decoded(WETH, encode("increaseAllowance(address,uint256)", [SPENDER, 1_500_000_000_000_000_000n]));
    expect(call.function).toBe("increaseAllowance");
    expect(arg("spender").value).toBe(SPENDER);
    expect(arg("amount").text).toBe("1.5 WETH (1500000000000000000 base units)");
    expect(decoded(WETH, encode("increaseAllowance(address,uint256)", [SPENDER, maxUint256])).arg("amount").unlimited).toBe(true);
  });

  it("an approval on a token the relayer does not know: base units, said so", () => {
    const { arg } = decoded(NFT, encode("approve(address,uint256)", [SPENDER, 7n]));
    expect(arg("amount")).toMatchObject({ value: "7", token: NFT, text: `7 base units of ${NFT} (a token the relayer does not know)` });
    expect(arg("amount").human).toBeUndefined();
  });

  it("setApprovalForAll: the operator and whether it may move everything", () => {
    const { call, arg } = decoded(NFT, encode("setApprovalForAll(address,bool)", [SPENDER, true]));
    expect(call.function).toBe("setApprovalForAll");
    expect(arg("operator").value).toBe(SPENDER);
    expect(arg("approved")).toMatchObject({ value: true, text: "true: may move every token the vault holds of this contract" });
    expect(call.summary).toBe("setApprovalForAll(operator 0x7099…79C8, approved true)");
    expect(decoded(NFT, encode("setApprovalForAll(address,bool)", [SPENDER, false])).arg("approved").text).toBe("false: revokes the operator");
  });

  it("transfer: recipient and amount in human units", () => {
    const { call, arg } = decoded(USDC, encode("transfer(address,uint256)", [OTHER, 1_234_567_890n]));
    expect(call.function).toBe("transfer");
    expect(arg("to").value).toBe(OTHER);
    expect(arg("amount").text).toBe("1,234.56789 USDC (1234567890 base units)");
  });

  it("transferFrom on an ERC-20: from, to and the amount; on anything else the last argument is a token id", () => {
    const erc20 = decoded(USDC, encode("transferFrom(address,address,uint256)", [VAULT, OTHER, 5_000_000n]));
    expect(erc20.arg("from").text).toBe(`${VAULT} (the vault itself)`);
    expect(erc20.arg("to").value).toBe(OTHER);
    expect(erc20.arg("amount").text).toBe("5 USDC (5000000 base units)");
    const nft = decoded(NFT, encode("transferFrom(address,address,uint256)", [VAULT, OTHER, 5n]));
    expect(nft.arg("tokenId")).toEqual({ name: "tokenId", type: "uint256", value: "5", text: "5" });
    expect(nft.call.signature).toBe("transferFrom(address,address,uint256)");
  });

  it("safeTransferFrom, ERC-721 forms: from, to, token id (and data)", () => {
    const three = decoded(NFT, encode("safeTransferFrom(address,address,uint256)", [VAULT, OTHER, 42n]));
    expect(three.call.signature).toBe("safeTransferFrom(address,address,uint256)");
    expect(three.arg("tokenId").text).toBe("42");
    expect(three.arg("to").value).toBe(OTHER);
    const four = decoded(NFT, encode("safeTransferFrom(address,address,uint256,bytes)", [VAULT, OTHER, 42n, "0xbeef"]));
    expect(four.call.signature).toBe("safeTransferFrom(address,address,uint256,bytes)");
    expect(four.arg("data").text).toBe("0xbeef (2 bytes)");
  });

  it("safeTransferFrom, ERC-1155 form: id and a plain count", () => {
    const { call, arg } = decoded(NFT, encode("safeTransferFrom(address,address,uint256,uint256,bytes)", [VAULT, OTHER, 3n, 10n, "0x"]));
    expect(call.signature).toBe("safeTransferFrom(address,address,uint256,uint256,bytes)");
    expect(arg("id").text).toBe("3");
    expect(arg("amount").text).toBe("10");
    expect(arg("data").text).toBe("0x (empty)");
  });

  it("safeBatchTransferFrom: the ids and amounts as lists", () => {
    const { call, arg } = decoded(NFT, encode("safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)", [VAULT, OTHER, [1n, 2n], [5n, 6n], "0x"]));
    expect(call.function).toBe("safeBatchTransferFrom");
    expect(arg("ids")).toMatchObject({ value: ["1", "2"], text: "[1, 2]" });
    expect(arg("amounts")).toMatchObject({ value: ["5", "6"], text: "[5, 6]" });
    expect(call.summary).toBe("safeBatchTransferFrom(from 0x5FbD…0aa3, to 0x3C44…93BC, ids [1, 2], amounts [5, 6], data 0x (empty))");
  });

  it("the devnet marketplace: buy and list, from the compiled ABI", () => {
    const buy = decoded(OTHER, calldata("mocks/MockMarketplace", "buy", [NFT, 9n]));
    expect(buy.call).toMatchObject({ function: "buy", signature: "buy(address,uint256)" });
    expect(buy.arg("nft").value).toBe(NFT);
    expect(buy.arg("tokenId").text).toBe("9");
    const list = decoded(OTHER, calldata("mocks/MockMarketplace", "list", [NFT, 9n, 25_000_000n]));
    expect(list.call.signature).toBe("list(address,uint256,uint256)");
    expect(list.arg("price").text).toBe("25000000 base units of the contract's payment token");
  });

  it("the devnet lending pool: supply and withdraw, amounts in the named token's units", () => {
    const supply = decoded(OTHER, calldata("mocks/MockLendingPool", "supply", [USDC, 250_000_000n]));
    expect(supply.call.function).toBe("supply");
    expect(supply.arg("token").text).toBe(`${USDC} (USDC)`);
    expect(supply.arg("amount")).toMatchObject({ token: USDC, symbol: "USDC", text: "250 USDC (250000000 base units)" });
    const withdraw = decoded(OTHER, calldata("mocks/MockLendingPool", "withdraw", [WETH, 10n ** 18n]));
    expect(withdraw.call.function).toBe("withdraw");
    expect(withdraw.arg("amount").text).toBe("1 WETH (1000000000000000000 base units)");
  });

  it("an unknown selector: not decoded, with the selector and the calldata's length", () => {
    const data = encode("drain(address,uint256)", [OTHER, 1n]);
    const call = decodeCall(OTHER, data, context);
    expect(call).toEqual({ decoded: false, target: OTHER, selector: data.slice(0, 10), calldataBytes: 68, summary: `not decoded: unknown function ${data.slice(0, 10)} (68 bytes of calldata)` });
  });

  it("calldata too short for a selector, or that does not fit its function: not decoded", () => {
    expect(decodeCall(USDC, "0x", context)).toMatchObject({ decoded: false, calldataBytes: 0, summary: "not decoded: no function selector (0 bytes of calldata)" });
    const truncated = encode("approve(address,uint256)", [SPENDER, 1n]).slice(0, 40) as Hex;
    expect(decodeCall(USDC, truncated, context)).toMatchObject({ decoded: false, selector: "0x095ea7b3", summary: "not decoded: the calldata does not fit approve(address,uint256) (19 bytes of calldata)" });
  });
});

describe("describeOutflows", () => {
  it("gives each outflow in human units and USD; ETH for the zero address; undefined when absent", () => {
    const outflows = describeOutflows(
      [
        { token: USDC, amount: "20000000000", usd: "20000000000" },
        { token: "0x0000000000000000000000000000000000000000", amount: "500000000000000000", usd: "1500125000" },
        { token: NFT, amount: "3", usd: "0" },
      ],
      tokens,
    );
    expect(outflows).toEqual([
      { token: USDC, amount: "20000000000", symbol: "USDC", decimals: 6, human: "20000", usdValue: 20000, text: "20,000 USDC ($20,000.00)" },
      { token: "0x0000000000000000000000000000000000000000", amount: "500000000000000000", symbol: "ETH", decimals: 18, human: "0.5", usdValue: 1500.125, text: "0.5 ETH ($1,500.13)" },
      { token: NFT, amount: "3", usdValue: 0, text: `3 base units of ${NFT} ($0.00)` },
    ]);
    expect(describeOutflows(undefined, tokens)).toBeUndefined();
    expect(describeOutflows([], tokens)).toEqual([]);
  });

  it("formats digits and dollars", () => {
    expect(groupDigits("1234567.25")).toBe("1,234,567.25");
    expect(groupDigits("999")).toBe("999");
    expect(usdText(1_234_567_890n)).toBe("$1,234.57");
  });
});
