// What leaves the vault that relay cannot price, read from a call tree's logs (nft-outflows.ts):
// ERC-721 Transfer (id indexed, or nothing indexed as early NFTs emit it), ERC-1155 TransferSingle
// and TransferBatch, only with `from` the vault; ERC-20 transfers out of the vault totalled per
// token; and the owner's words for them. Logs built with viem's encoders, as a node reports them.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, encodeEventTopics, parseAbi, type Address, type Hex } from "viem";
import { tokenOutflowsIn, unpricedHold, unpricedOutflowsIn } from "../../src/relayer/chain/nft-outflows.ts";
import type { TracedLog } from "../../src/relayer/chain/call-trace.ts";

const VAULT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as Address;
const NFT = "0x1111111111111111111111111111111111111111" as Address;
const MULTI = "0x2222222222222222222222222222222222222222" as Address;
const TOKEN = "0x3333333333333333333333333333333333333333" as Address;

const abi = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
]);
const erc20 = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]);

const nft = (from: Address, to: Address, id: bigint): TracedLog => ({
  address: NFT,
  topics: encodeEventTopics({ abi, eventName: "Transfer", args: { from, to, tokenId: id } }) as Hex[],
  data: "0x",
});
const single = (from: Address, to: Address, id: bigint, value: bigint): TracedLog => ({
  address: MULTI,
  topics: encodeEventTopics({ abi, eventName: "TransferSingle", args: { operator: VAULT, from, to } }) as Hex[],
  data: encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [id, value]),
});
const batch = (from: Address, to: Address, ids: bigint[], values: bigint[]): TracedLog => ({
  address: MULTI,
  topics: encodeEventTopics({ abi, eventName: "TransferBatch", args: { operator: OTHER, from, to } }) as Hex[],
  data: encodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], [ids, values]),
});
const token = (from: Address, to: Address, value: bigint): TracedLog => ({
  address: TOKEN,
  topics: encodeEventTopics({ abi: erc20, eventName: "Transfer", args: { from, to } }) as Hex[],
  data: encodeAbiParameters([{ type: "uint256" }], [value]),
});

describe("unpricedOutflowsIn", () => {
  it("an ERC-721 leaving the vault, wherever in the tree; one coming in is no outflow", () => {
    expect(unpricedOutflowsIn([nft(OTHER, VAULT, 1n), nft(VAULT, OTHER, 7n)], VAULT)).toEqual([{ standard: "erc721", token: NFT, to: OTHER, id: 7n, amount: 1n }]);
  });

  it("the vault's address in any letter case", () => {
    expect(unpricedOutflowsIn([nft(VAULT, OTHER, 7n)], VAULT.toLowerCase() as Address)).toHaveLength(1);
  });

  it("an early ERC-721 with nothing indexed (from, to, id in data)", () => {
    const log: TracedLog = {
      address: NFT,
      topics: [encodeEventTopics({ abi, eventName: "Transfer" })[0] as Hex],
      data: encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint256" }], [VAULT, OTHER, 9n]),
    };
    expect(unpricedOutflowsIn([log], VAULT)).toEqual([{ standard: "erc721", token: NFT, to: OTHER, id: 9n, amount: 1n }]);
  });

  it("ERC-1155 TransferSingle and TransferBatch from the vault, each id; not those to it", () => {
    const logs = [single(VAULT, OTHER, 7n, 3n), single(OTHER, VAULT, 8n, 1n), batch(VAULT, OTHER, [1n, 2n], [10n, 20n])];
    expect(unpricedOutflowsIn(logs, VAULT)).toEqual([
      { standard: "erc1155", token: MULTI, to: OTHER, id: 7n, amount: 3n },
      { standard: "erc1155", token: MULTI, to: OTHER, id: 1n, amount: 10n },
      { standard: "erc1155", token: MULTI, to: OTHER, id: 2n, amount: 20n },
    ]);
  });

  it("a batch whose data cannot be read still counts as one outflow", () => {
    const log = { ...batch(VAULT, OTHER, [1n], [1n]), data: "0x1234" as Hex };
    expect(unpricedOutflowsIn([log], VAULT)).toEqual([{ standard: "erc1155", token: MULTI, to: OTHER, id: 0n, amount: 0n }]);
  });

  it("an ERC-20 Transfer (amount in data, 3 topics) is not an NFT", () => {
    expect(unpricedOutflowsIn([token(VAULT, OTHER, 5n)], VAULT)).toEqual([]);
  });
});

describe("tokenOutflowsIn", () => {
  it("ERC-20 transfers out of the vault, totalled per token; NFTs and inflows left out", () => {
    const totals = tokenOutflowsIn([token(VAULT, OTHER, 5n), token(OTHER, VAULT, 100n), nft(VAULT, OTHER, 1n), token(VAULT, OTHER, 7n)], VAULT);
    expect([...totals]).toEqual([[TOKEN, 12n]]);
  });
});

describe("unpricedHold", () => {
  it("names what leaves and why the owner decides", () => {
    const text = unpricedHold([
      { standard: "erc721", token: NFT, to: OTHER, id: 7n, amount: 1n },
      { standard: "erc1155", token: MULTI, to: OTHER, id: 2n, amount: 20n },
      { standard: "erc20", token: TOKEN, amount: 5n },
    ]);
    expect(text).toBe(
      `it moves out of the vault what relay cannot price (ERC-721 ${NFT} #7 to ${OTHER}; ERC-1155 ${MULTI} #2 ×20 to ${OTHER}; 5 base units of ERC-20 ${TOKEN}, which has no usable price feed): ` +
        "its value against the per-transaction cap and the spending windows cannot be proven",
    );
  });
});
