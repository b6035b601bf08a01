// An in-process Hardhat 3 chain (EDR): straight on EDR (edr-chain.ts), or through Hardhat for a fork.
// Both are imported lazily so that commands which do not need a chain never pay for loading them.
import path from "node:path";
import type { EIP1193Provider } from "viem";
import { projectRoot } from "../paths.ts";
import { PUBLISHED_ACCOUNTS } from "./published-accounts.ts";
import { startEdrChain } from "./edr-chain.ts";

export const TEST_MNEMONIC = "test test test test test test test test test test test junk";
export const DEV_ACCOUNT_COUNT = 20;
export const DEV_ACCOUNT_BALANCE = 10n ** 24n; // 1,000,000 ETH each

export interface ChainOptions {
  chainId?: number;
  /** JSON-RPC URL of a live network to fork instead of starting empty. */
  fork?: string;
  forkBlockNumber?: bigint;
  /** Automine (default) or interval mining in milliseconds. */
  miningIntervalMs?: number;
  /**
   * Hardhat's default (true) answers eth_sendRawTransaction with an error when the transaction
   * reverts, although it was mined and its nonce used. False behaves like a real node: the
   * transaction is accepted and its failure is in the receipt.
   */
  throwOnTransactionFailures?: boolean;
}

export interface LocalChain {
  readonly chainId: number;
  readonly provider: EIP1193Provider;
  close(): Promise<void>;
}

export async function startChain(options: ChainOptions = {}): Promise<LocalChain> {
  const chainId = options.chainId ?? 84532;
  if (options.fork === undefined) {
    // A local chain needs EDR alone (edr-chain.ts): a start without loading Hardhat.
    const chain = await startEdrChain({
      chainId,
      accounts: PUBLISHED_ACCOUNTS.slice(0, DEV_ACCOUNT_COUNT),
      balance: DEV_ACCOUNT_BALANCE,
      miningIntervalMs: options.miningIntervalMs,
      throwOnTransactionFailures: options.throwOnTransactionFailures,
    });
    return { chainId, provider: chain.provider, close: async () => chain.close() };
  }
  return startHardhatChain(chainId, options);
}

/** A chain through Hardhat's network manager: for a fork, which needs Hardhat's hardfork tables and fork cache. */
export async function startHardhatChain(chainId: number, options: ChainOptions): Promise<LocalChain> {
  const [{ createHardhatRuntimeEnvironment }, { default: config }] = await Promise.all([
    import("hardhat/hre"),
    import("../../hardhat.config.ts"),
  ]);
  // The devnet is only a provider: relay's own viem clients and artifacts (src/chain/artifacts.ts)
  // talk to it. Without the config's plugins (hardhat-viem loads every chain viem knows: ~2 s of CPU
  // per start) and with no build info where Hardhat looks for one (it would parse the whole compiler
  // output, ~2 s more after a local compile, for stack traces relay decodes itself), a start costs
  // what EDR costs.
  const hre = await createHardhatRuntimeEnvironment(
    { ...config, plugins: [], paths: { ...config.paths, artifacts: path.join(projectRoot, "compiled") } },
    {},
    projectRoot,
  );
  const connection = await hre.network.create({
    network: "default",
    override: {
      chainId,
      // The mnemonic's accounts by key: Hardhat would derive them from TEST_MNEMONIC again (~0.7 s).
      accounts: PUBLISHED_ACCOUNTS.slice(0, DEV_ACCOUNT_COUNT).map(([, privateKey]) => ({ privateKey, balance: DEV_ACCOUNT_BALANCE })),
      // Automine makes a block per transaction; with strictly increasing timestamps a busy devnet's
      // clock would run ahead of the wall clock (one second per block) and expire every deadline.
      allowBlocksWithSameTimestamp: true,
      ...(options.fork === undefined
        ? {}
        : { forking: { url: options.fork, enabled: true, ...(options.forkBlockNumber === undefined ? {} : { blockNumber: options.forkBlockNumber }) } }),
      ...(options.throwOnTransactionFailures === undefined ? {} : { throwOnTransactionFailures: options.throwOnTransactionFailures }),
      ...(options.miningIntervalMs === undefined
        ? {}
        : { mining: { auto: false, interval: options.miningIntervalMs } }),
    },
  });
  let closed = false;
  return {
    chainId,
    provider: connection.provider as unknown as EIP1193Provider,
    async close() {
      if (closed) return;
      closed = true;
      await connection.close();
    },
  };
}
