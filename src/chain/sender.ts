// Sends deployment and configuration transactions from one account, one at a time, each awaited to
// its receipt. Used by the devnet and `relay deploy`; not the relayer's submission path.
import { encodeDeployData, encodeFunctionData, getAddress, type Address, type Hex, type TransactionReceipt } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Clients } from "./clients.ts";
import { readArtifact } from "./artifacts.ts";
import { DETERMINISTIC_DEPLOYER, deterministicAddress, deterministicDeployData } from "./deterministic-deployer.ts";
import { gasWithHeadroom } from "../../packages/client/src/gas.ts";

export interface Sender {
  readonly address: Address;
  deploy(contract: string, args?: readonly unknown[]): Promise<Address>;
  /** Deploys `contract` (no constructor arguments) through the deterministic deployment proxy, unless its code is already there. */
  deployDeterministic(contract: string): Promise<Address>;
  call(to: Address, contract: string, functionName: string, args?: readonly unknown[], value?: bigint): Promise<TransactionReceipt>;
  sendValue(to: Address, value: bigint): Promise<TransactionReceipt>;
}

/** One transaction: its recipient (null deploys), data and value. Resolves to its hash once sent. */
type Send = (to: Address | null, data: Hex, value: bigint | undefined) => Promise<Hex>;

/**
 * A sender that signs with `privateKey` itself: it works on any node. The gas limit is the node's
 * estimate with headroom (gasWithHeadroom): mined in a later block than the estimate's, a call can
 * cost more.
 */
export function createSender(clients: Clients, privateKey: Hex): Sender {
  const account = privateKeyToAccount(privateKey);
  const wallet = clients.walletFor(account);
  return senderOver(clients, account.address, async (to, data, value) => {
    const gas = gasWithHeadroom(await clients.publicClient.estimateGas({ account, to, data, value }));
    return wallet.sendTransaction({ to, data, value, gas, account, chain: clients.chain });
  });
}

/**
 * A sender for an account whose key the node itself holds (the in-process devnet's dev accounts): the
 * node fills in the nonce, gas and fees and signs, so a transaction costs one `eth_sendTransaction`
 * instead of viem's five or so requests and a signature in JavaScript. The devnet's deployment of ~60
 * transactions takes about a third of the time it takes through createSender. The node estimates
 * the gas as it mines (automine), in the block the transaction lands in.
 */
export function createNodeAccountSender(clients: Clients, address: Address): Sender {
  const from = getAddress(address);
  return senderOver(clients, from, (to, data, value) =>
    clients.publicClient.request({
      method: "eth_sendTransaction",
      params: [{ from, ...(to === null ? {} : { to }), data, ...(value === undefined ? {} : { value: `0x${value.toString(16)}` }) }],
    } as never) as Promise<Hex>,
  );
}

function senderOver(clients: Clients, address: Address, sendTransaction: Send): Sender {
  let queue: Promise<unknown> = Promise.resolve();

  // One transaction at a time per account: the next one starts after the previous receipt.
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  }

  async function send(to: Address | null, data: Hex, value: bigint | undefined, what: string): Promise<TransactionReceipt> {
    return serialized(async () => {
      const hash = await sendTransaction(to, data, value);
      // A node that mines as it accepts (a devnet's automine) has the receipt at once: one request
      // rather than viem's block-number polling.
      const receipt = await clients.publicClient
        .getTransactionReceipt({ hash })
        .catch(() => clients.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 }));
      if (receipt.status !== "success") throw new Error(`${what} reverted (tx ${hash})`);
      return receipt;
    });
  }

  return {
    address,
    async deploy(contract, args = []) {
      const { abi, bytecode } = readArtifact(contract);
      const data = encodeDeployData({ abi, bytecode, args });
      const receipt = await send(null, data, undefined, `deploying ${contract}`);
      if (!receipt.contractAddress) throw new Error(`deploying ${contract}: no contract address in receipt`);
      return getAddress(receipt.contractAddress);
    },
    async deployDeterministic(contract) {
      const { bytecode, deployedBytecode } = readArtifact(contract);
      const address = deterministicAddress(bytecode);
      const codeAt = async () => ((await clients.publicClient.getCode({ address })) ?? "0x").toLowerCase();
      if ((await codeAt()) === deployedBytecode.toLowerCase()) return address;
      await send(DETERMINISTIC_DEPLOYER, deterministicDeployData(bytecode), undefined, `deploying ${contract} through the deterministic deployer`);
      if ((await codeAt()) !== deployedBytecode.toLowerCase()) throw new Error(`deploying ${contract}: other code at ${address} after its deployment`);
      return address;
    },
    call(to, contract, functionName, args = [], value) {
      const { abi } = readArtifact(contract);
      const data = encodeFunctionData({ abi, functionName, args });
      return send(to, data, value, `${contract}.${functionName}`);
    },
    sendValue(to, value) {
      return send(to, "0x", value, `sending ${value} wei to ${to}`);
    },
  };
}
