// viem clients over any EIP-1193 provider (an in-process chain) or a JSON-RPC URL (through one of the
// lean HTTP clients, which throw the errors viem's http transport would: json-rpc.ts, the relayer's,
// by default; json-rpc-http.ts for a short command, `transport: "node:http"`).
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
import { useEnvProxy } from "./env-proxy.ts";
import { jsonRpcClient } from "./json-rpc.ts";
import { httpJsonRpcClient } from "./json-rpc-http.ts";

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

export interface ClientsOptions {
  /** Longest wait for one HTTP JSON-RPC answer (viem's default, 10 s, when omitted). */
  timeoutMs?: number;
  /**
   * The HTTP client of a URL: "undici" (default), the relayer's pool of connections; "node:http", a
   * lighter start for a command that makes a few calls and exits (undici all the same where Node is
   * told to use HTTP(S)_PROXY, which only it honours on every supported Node).
   */
  transport?: "undici" | "node:http";
}

export function clientsFor(source: EIP1193Provider | string, chainId: number, options: ClientsOptions = {}): Clients {
  const connect = options.transport === "node:http" && !useEnvProxy() ? httpJsonRpcClient : jsonRpcClient;
  const provider = typeof source === "string" ? connect(source, { timeoutMs: options.timeoutMs }) : source;
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
