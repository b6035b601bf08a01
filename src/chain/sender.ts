// Sends deployment and configuration transactions from one key, one at a time, each awaited to its
// receipt. Used by the devnet and `relay deploy`; not the relayer's submission path.
import { encodeDeployData, encodeFunctionData, getAddress, type Address, type Hex, type TransactionReceipt } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Clients } from "./clients.ts";
import { readArtifact } from "./artifacts.ts";

export interface Sender {
  readonly address: Address;
  deploy(contract: string, args?: readonly unknown[]): Promise<Address>;
  call(to: Address, contract: string, functionName: string, args?: readonly unknown[], value?: bigint): Promise<TransactionReceipt>;
  sendValue(to: Address, value: bigint): Promise<TransactionReceipt>;
}

export function createSender(clients: Clients, privateKey: Hex): Sender {
  const account = privateKeyToAccount(privateKey);
  const wallet = clients.walletFor(account);
  let queue: Promise<unknown> = Promise.resolve();

  // One transaction at a time per key: the next one starts after the previous receipt.
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  }

  async function send(to: Address | null, data: Hex, value: bigint | undefined, what: string): Promise<TransactionReceipt> {
    return serialized(async () => {
      const hash = await wallet.sendTransaction({ to, data, value, account, chain: clients.chain });
      const receipt = await clients.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      if (receipt.status !== "success") throw new Error(`${what} reverted (tx ${hash})`);
      return receipt;
    });
  }

  return {
    address: account.address,
    async deploy(contract, args = []) {
      const { abi, bytecode } = readArtifact(contract);
      const data = encodeDeployData({ abi, bytecode, args });
      const receipt = await send(null, data, undefined, `deploying ${contract}`);
      if (!receipt.contractAddress) throw new Error(`deploying ${contract}: no contract address in receipt`);
      return getAddress(receipt.contractAddress);
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
