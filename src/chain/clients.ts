// viem clients over any EIP-1193 provider (an in-process chain) or a JSON-RPC URL (through the lean
// HTTP client in json-rpc.ts, which throws the errors viem's http transport would).
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  type Account,
  type Chain,
  type EIP1193Provider,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";
import { jsonRpcClient } from "./json-rpc.ts";

export function chainFor(chainId: number, rpcUrl = "http://127.0.0.1:8545"): Chain {
  return defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export interface Clients {
  chain: Chain;
  transport: Transport;
  publicClient: PublicClient<Transport, Chain>;
  walletFor(account: Account): WalletClient<Transport, Chain, Account>;
}

/** `timeoutMs`: longest wait for one HTTP JSON-RPC answer (viem's default, 10 s, when omitted). */
export function clientsFor(source: EIP1193Provider | string, chainId: number, options: { timeoutMs?: number } = {}): Clients {
  const provider = typeof source === "string" ? jsonRpcClient(source, { timeoutMs: options.timeoutMs }) : source;
  const transport = custom(provider, { retryCount: 0 });
  const chain = chainFor(chainId, typeof source === "string" ? source : undefined);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 });
  return {
    chain,
    transport,
    publicClient,
    walletFor: (account) => createWalletClient({ account, chain, transport, pollingInterval: 50, cacheTime: 0 }),
  };
}
