// Whether a chain is a local development node (Hardhat/EDR, Anvil, Ganache), asked of the node
// itself. Never guessed from the URL: a tunnel, proxy or port-forward on 127.0.0.1 can lead to a
// real network, and a devnet can sit behind any host name.
import type { EIP1193Provider } from "viem";
import { clientsFor } from "./clients.ts";
import { isTransportFailure } from "../relayer/rpc-errors.ts";

/** What the node said it is; "unreachable" when it did not answer at all. */
export type NodeKind = "development" | "other" | "unreachable";

/** `web3_clientVersion` of Hardhat ("HardhatNetwork/3.x/@nomicfoundation/edr/…"), Anvil and Ganache. */
const DEVELOPMENT_CLIENT = /^(HardhatNetwork|anvil|ganache)\/|\/edr\//i;

/** Methods only development nodes answer; asked when `web3_clientVersion` is not available. */
const DEVELOPMENT_METHODS = ["hardhat_metadata", "anvil_nodeInfo"] as const;

export async function nodeKind(source: EIP1193Provider | string, chainId: number, timeoutMs = 5_000): Promise<NodeKind> {
  const { publicClient } = clientsFor(source, chainId, { timeoutMs });
  const ask = (method: string) => publicClient.request({ method, params: [] } as never) as Promise<unknown>;
  try {
    const version = await ask("web3_clientVersion");
    return typeof version === "string" && DEVELOPMENT_CLIENT.test(version) ? "development" : "other";
  } catch (error) {
    if (isTransportFailure(error)) return "unreachable";
  }
  for (const method of DEVELOPMENT_METHODS) {
    try {
      await ask(method);
      return "development";
    } catch (error) {
      if (isTransportFailure(error)) return "unreachable";
    }
  }
  return "other";
}
