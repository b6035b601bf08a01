// One served chain at run time: its clients, contracts, relayer keys, and the reads the request
// path needs (the vault's EIP-712 domain, cached; policy snapshots, one eth_call for one or many requests).
import {
  encodeDeployData,
  getAbiItem,
  zeroAddress,
  zeroHash,
  type AbiFunction,
  type Address,
  type EIP1193Provider,
  type Hex,
  type LocalAccount,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../chain/artifacts.ts";
import { clientsFor, type Clients } from "../chain/clients.ts";
import type { SpendingLimit } from "../chain/vault-config.ts";
import type { VaultDomain } from "../eip712/types.ts";
import { readVaultDomain } from "../client/sign.ts";
import { defaultRebalanceTokens, type ChainConfig } from "./config.ts";
import { rpcFailure } from "./rpc-errors.ts";
import { decodeSnapshots } from "./snapshot-codec.ts";

export interface BotConfig {
  maxPerTxAmount: bigint;
  maxRebalanceAmount: bigint;
  spendingLimits: readonly SpendingLimit[];
  aiTriggerThreshold: bigint;
  requireAiVerification: boolean;
  requireHumanReview: boolean;
}

/** What one request's checks read from the chain, all at `blockNumber`. */
export interface PolicySnapshot {
  blockNumber: bigint;
  timestamp: bigint;
  isVault: boolean;
  paused: boolean;
  botActive: boolean;
  config: BotConfig;
  vaultLimits: readonly SpendingLimit[];
  destinationAllowed: boolean;
  destinationReason: string;
  balances: readonly bigint[];
  intentUsed: boolean;
  priced: boolean;
  usdValue: bigint;
  /** Approved for any call, by the vault or globally by the registry. */
  protocolApproved: boolean;
  rebalanceTokenCount: bigint;
  toTokenOnVaultList: boolean;
  /** A registry default token: `approve` calls on it are allowed without approval. */
  protocolIsDefaultToken: boolean;
}

export interface SnapshotQuery {
  vault: Address;
  bot: Address;
  to?: Address;
  tokens: readonly Address[];
  amounts: readonly bigint[];
  intentHash: Hex;
  protocol?: Address;
  toToken?: Address;
}

const lens = readArtifact("lens/PolicyLens");
const lensConstructor = lens.abi.find((item) => item.type === "constructor")!;
/** Queries per lens call: each snapshot encodes to about 1.2 KiB, and the output must stay under 24 KiB. */
const LENS_QUERIES = 12;
export class ChainRuntime {
  readonly chainId: number;
  readonly config: ChainConfig;
  readonly clients: Clients;
  readonly signers: readonly LocalAccount[];
  readonly defaultRebalanceTokens: readonly Address[];
  readonly #domains = new Map<string, VaultDomain>();

  constructor(config: ChainConfig, provider?: EIP1193Provider) {
    this.chainId = config.chainId;
    this.config = config;
    this.clients = clientsFor(provider ?? config.rpcUrl, config.chainId, { timeoutMs: config.rpcTimeoutMs });
    this.signers = config.relayerKeys.map((key) => privateKeyToAccount(key as Hex));
    this.defaultRebalanceTokens = defaultRebalanceTokens(config);
  }

  get devnet(): boolean {
    return this.config.devnet;
  }

  /** Whether the vault's domain is already known (the vault was seen before). */
  knowsDomain(vault: Address): boolean {
    return this.#domains.has(vault.toLowerCase());
  }

  /** The vault's EIP-712 domain (EIP-5267), read once per vault: it never changes. */
  async domainOf(vault: Address): Promise<VaultDomain> {
    const key = vault.toLowerCase();
    const known = this.#domains.get(key);
    if (known) return known;
    const domain = await rpcFailure(() => readVaultDomain(this.clients.publicClient, vault));
    this.#domains.set(key, domain);
    return domain;
  }

  /** The latest block's number: the block a request's reads and simulation are pinned to. */
  async latestBlock(): Promise<bigint> {
    return rpcFailure(() => this.clients.publicClient.getBlockNumber({ cacheTime: 0 }));
  }

  /** Everything one request's checks need, read at `blockNumber` (default: the latest) in one deployless eth_call. */
  async snapshot(query: SnapshotQuery, blockNumber?: bigint): Promise<PolicySnapshot> {
    return (await this.snapshots([query], blockNumber))[0]!;
  }

  /**
   * The snapshots of several queries, in order, all at `blockNumber`: one deployless eth_call per
   * LENS_QUERIES queries (a deployless call's output is bounded like a contract's code, 24 KiB).
   */
  async snapshots(queries: readonly SnapshotQuery[], blockNumber?: bigint): Promise<PolicySnapshot[]> {
    if (queries.length <= LENS_QUERIES) return this.#lens(queries, blockNumber);
    const chunks: SnapshotQuery[][] = [];
    for (let i = 0; i < queries.length; i += LENS_QUERIES) chunks.push(queries.slice(i, i + LENS_QUERIES));
    return (await Promise.all(chunks.map((chunk) => this.#lens(chunk, blockNumber)))).flat();
  }

  async #lens(queries: readonly SnapshotQuery[], blockNumber?: bigint): Promise<PolicySnapshot[]> {
    const data = encodeDeployData({
      abi: [lensConstructor],
      bytecode: lens.bytecode,
      args: [
        queries.map((query) => ({
          factory: this.config.factory,
          vault: query.vault,
          bot: query.bot,
          to: query.to ?? zeroAddress,
          tokens: query.tokens,
          amounts: query.amounts,
          intentHash: query.intentHash ?? zeroHash,
          protocol: query.protocol ?? zeroAddress,
          toToken: query.toToken ?? zeroAddress,
        })),
      ],
    });
    const { data: out } = await rpcFailure(() => this.clients.publicClient.call({ data, blockNumber }));
    if (out === undefined) throw new Error("policy lens returned no data");
    const snapshots = decodeSnapshots(out);
    if (snapshots.length !== queries.length) throw new Error(`policy lens returned ${snapshots.length} snapshots for ${queries.length} queries`);
    return snapshots;
  }
}

export function functionAbi(contract: string, name: string): AbiFunction {
  return getAbiItem({ abi: readArtifact(contract).abi, name }) as AbiFunction;
}
