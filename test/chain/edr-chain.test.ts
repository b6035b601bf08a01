// The local chain runs on EDR without Hardhat (src/chain/edr-chain.ts) and must answer as Hardhat's
// network did: the same genesis state, the same defaults, the same sender and gas filled in, and the
// same errors for reverts. Each request goes to both chains, started side by side, and the answers
// are compared.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeDeployData, encodeFunctionData, maxUint256, type Hex } from "viem";
import { startChain, startHardhatChain, type LocalChain } from "../../src/chain/hardhat.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";

const CHAIN_ID = 84532;

describe("the local chain on EDR answers as Hardhat's network", () => {
  let edr: LocalChain;
  let hardhat: LocalChain;
  beforeAll(async () => {
    edr = await startChain({ chainId: CHAIN_ID });
    hardhat = await startHardhatChain(CHAIN_ID, {});
  });
  afterAll(async () => {
    await edr?.close();
    await hardhat?.close();
  });

  const ask = (chain: LocalChain, method: string, params: unknown[] = []) => chain.provider.request({ method, params } as never) as Promise<unknown>;
  /** What a request gives on a chain: its result, or its error's code, message and data. */
  const outcome = (chain: LocalChain, method: string, params: unknown[] = []) =>
    ask(chain, method, params).then(
      (result) => ({ result }),
      (error: { code?: unknown; message?: string; data?: unknown }) => ({ error: { code: error.code, message: error.message, data: error.data } }),
    );
  const both = async (method: string, params: unknown[] = []) => [await outcome(edr, method, params), await outcome(hardhat, method, params)];

  it("has the same genesis state, accounts, ids, fees and client name", async () => {
    for (const method of ["eth_chainId", "net_version", "eth_accounts", "web3_clientVersion", "eth_gasPrice", "eth_maxPriorityFeePerGas", "eth_blockNumber"]) {
      const [ours, theirs] = await both(method);
      expect(ours, method).toEqual(theirs);
    }
    const genesis = async (chain: LocalChain) => {
      const block = (await ask(chain, "eth_getBlockByNumber", ["0x0", false])) as Record<string, unknown>;
      const { hash: _hash, timestamp: _timestamp, ...rest } = block;
      return rest;
    };
    // stateRoot included: every account's balance, code and storage are the same.
    expect(await genesis(edr)).toEqual(await genesis(hardhat));
  });

  it("fills a transaction's sender and gas as Hardhat does, and mines the same transactions", async () => {
    const { abi, bytecode } = readArtifact("mocks/MockERC20");
    const deploy = { data: encodeDeployData({ abi, bytecode, args: ["Token", "TKN", 6] }) };
    const [ours, theirs] = await both("eth_sendTransaction", [deploy]);
    expect(ours).toEqual(theirs);
    const receipt = async (chain: LocalChain, hash: unknown) => {
      const { transactionHash: _t, blockHash: _b, logs: _l, ...rest } = (await ask(chain, "eth_getTransactionReceipt", [hash])) as Record<string, unknown>;
      return rest;
    };
    expect(await receipt(edr, (ours as { result: Hex }).result)).toEqual(await receipt(hardhat, (theirs as { result: Hex }).result));
  });

  it("throws the same errors for reverts, in calls and in transactions", async () => {
    const token = "0x5fbdb2315678afecb367f032d93f642f64180aa3"; // the contract deployed above (first account, nonce 0)
    const lending = readArtifact("mocks/MockLendingPool");
    const [deployedOurs, deployedTheirs] = await both("eth_sendTransaction", [{ data: lending.bytecode }]);
    expect(deployedOurs).toEqual(deployedTheirs);
    const pool = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";
    const erc20 = readArtifact("mocks/MockERC20").abi;
    const reverting = [
      // A reason string.
      { to: pool, data: encodeFunctionData({ abi: lending.abi, functionName: "supply", args: [token, 0n] }) },
      // A custom error (OpenZeppelin's ERC20InsufficientBalance).
      { to: token, data: encodeFunctionData({ abi: erc20, functionName: "transfer", args: [pool, 1n] }) },
      // No reason: a function the token does not have, and ether sent to a contract that takes none.
      { to: token, data: "0xdeadbeef" },
      { to: pool, data: "0x", value: "0x1" },
      // Succeeds (the maximum supply minted); the next mint (below) then panics with an overflow.
      { to: token, data: encodeFunctionData({ abi: erc20, functionName: "mint", args: [pool, maxUint256] }) },
    ];
    for (const method of ["eth_call", "eth_estimateGas", "eth_sendTransaction"]) {
      for (const tx of reverting) {
        const [ours, theirs] = await both(method, method === "eth_sendTransaction" ? [tx] : [tx, "latest"]);
        expect(ours, `${method} ${tx.data.slice(0, 10)}`).toEqual(theirs);
      }
    }
    const [ours, theirs] = await both("eth_sendTransaction", [{ to: token, data: encodeFunctionData({ abi: erc20, functionName: "mint", args: [pool, 1n] }) }]);
    expect(ours).toEqual(theirs);
    expect("error" in ours!).toBe(true); // the maximum supply was minted above
  });
});
