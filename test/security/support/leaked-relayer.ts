// What a leaked relayer key can do on its own: call the vault directly, with any calldata, holding
// only signatures bots really made. `asRelayer` first asks the node what the call would do (to name
// the vault's refusal), then sends it anyway with a fixed gas limit, so the transaction really lands
// on-chain and reverts there: the tests then read balances to prove nothing moved. `asAccount` does the
// same from any key (a stranger's).
import { BaseError, ContractFunctionRevertedError, encodeFunctionData, type Address, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { readArtifact } from "../../../src/chain/artifacts.ts";
import type { Env } from "../../relayer/harness.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
/** The vault's functions and errors with the registry's (a price the vault reads reverts StalePrice or InvalidPrice there). */
const refusalAbi = [...vaultAbi, ...readArtifact("ServiceRegistry").abi.filter((item: { type: string }) => item.type === "error")];

export interface Attempt {
  /** The vault's custom error as the node's simulation named it ("" when it did not revert). */
  refusal: string;
  /** The forced transaction's receipt status. */
  status: "success" | "reverted";
}

/** The relayer key of the devnet behind `env`. */
export function relayerAccount(env: Env) {
  return privateKeyToAccount(env.manifest.accounts.relayer.privateKey as Hex);
}

/** Calls `functionName` on the vault from the relayer key: simulated for its refusal, then forced on-chain. */
export function asRelayer(env: Env, functionName: string, args: readonly unknown[]): Promise<Attempt> {
  return asAccount(env, relayerAccount(env), functionName, args);
}

/** Calls `functionName` on the vault from `account` (which pays the gas): simulated for its refusal, then forced on-chain. */
export async function asAccount(env: Env, account: PrivateKeyAccount, functionName: string, args: readonly unknown[]): Promise<Attempt> {
  const data = encodeFunctionData({ abi: vaultAbi, functionName, args } as never);
  let refusal = "";
  try {
    await env.clients.publicClient.simulateContract({ address: env.vault, abi: refusalAbi, functionName, args, account } as never);
  } catch (error) {
    const reverted = error instanceof BaseError ? (error.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null) : null;
    refusal = reverted?.data?.errorName ?? (error as Error).message;
  }
  const wallet = env.clients.walletFor(account);
  const hash = await wallet.sendTransaction({ to: env.vault as Address, data, gas: 3_000_000n, account, chain: env.clients.chain });
  const receipt = await env.clients.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return { refusal, status: receipt.status };
}
