// GET /v1/chains: what a client needs of each chain the relayer serves — the factory it deploys
// vaults with (and predicts their addresses from), the registry, the swap routers, the tokens the
// relayer knows, the default rebalance whitelist and the vaults' EIP-712 domain. Everything comes
// from the configuration except the domain name, which the factory fixes (read once), and the
// default rebalance whitelist, which the registry keeps and its owner may change (read each time,
// the list the vaults enforce); both are left out while the chain does not answer, so the list
// itself never depends on a node being up.
import { getAddress, type Address } from "viem";
import type { ChainInfo, ChainList, ChainToken } from "../../../packages/client/src/types.ts";
import { readArtifact } from "../../chain/artifacts.ts";
import { networkName } from "../../devnet/tokens.ts";
import type { ChainRuntime } from "./chain-runtime.ts";

const factoryAbi = readArtifact("ServiceVaultFactory").abi;
const registryAbi = readArtifact("ServiceRegistry").abi;

/** Every vault signs on version "1" of its domain (contracts/vault/VaultSignatures.sol). */
const VAULT_DOMAIN_VERSION = "1";

export class ChainDirectory {
  readonly #chains: readonly ChainRuntime[];
  /** The factory's domain name per chain, once read (a read in progress is shared). */
  readonly #domainNames = new Map<number, Promise<string | undefined>>();

  constructor(chains: Iterable<ChainRuntime>) {
    this.#chains = [...chains];
  }

  async list(): Promise<ChainList> {
    return { chains: await Promise.all(this.#chains.map((chain) => this.#describe(chain))) };
  }

  async #describe(chain: ChainRuntime): Promise<ChainInfo> {
    const { config } = chain;
    const tokens: ChainToken[] = Object.entries(config.tokens).map(([symbol, token]) => ({ address: token.address, symbol, decimals: token.decimals }));
    const known = (address: Address): ChainToken => tokens.find((t) => t.address === address) ?? { address };
    const [domainName, defaults] = await Promise.all([this.#domainName(chain), this.#defaultRebalanceTokens(chain)]);
    return {
      chainId: chain.chainId,
      name: networkName(chain.chainId),
      factoryAddress: config.factory,
      registryAddress: config.registry,
      routers: [...config.routers],
      devnet: chain.devnet,
      tokens,
      ...(defaults === undefined ? {} : { defaultRebalanceTokens: defaults.map(known) }),
      ...(domainName === undefined ? {} : { domain: { name: domainName, version: VAULT_DOMAIN_VERSION } }),
    };
  }

  /** The registry's default rebalance whitelist now; undefined when the chain does not answer. */
  #defaultRebalanceTokens(chain: ChainRuntime): Promise<Address[] | undefined> {
    return chain.clients.publicClient
      .readContract({ address: chain.config.registry, abi: registryAbi, functionName: "getDefaultRebalanceTokens" })
      .then((tokens) => (tokens as Address[]).map((t) => getAddress(t)))
      .catch(() => undefined);
  }

  /** The factory's domainName(); undefined when the chain does not answer (tried again next time). */
  #domainName(chain: ChainRuntime): Promise<string | undefined> {
    const cached = this.#domainNames.get(chain.chainId);
    if (cached) return cached;
    const read = chain.clients.publicClient
      .readContract({ address: chain.config.factory, abi: factoryAbi, functionName: "domainName" })
      .then((name) => name as string)
      .catch(() => {
        this.#domainNames.delete(chain.chainId);
        return undefined;
      });
    this.#domainNames.set(chain.chainId, read);
    return read;
  }
}
