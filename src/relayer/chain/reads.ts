// The vault reads: value, rebalance whitelist, balances, bot status, info, destination check and
// protocol approval. Each read checks that the address is a vault of the chain's factory (404
// VAULT_NOT_FOUND otherwise) and answers with the shapes of SPEC.md and DESIGN.md §6.
import { erc20Abi, getAddress, type Address } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import { ETH_MARKER, ETH_TOKEN, isEth } from "../../chain/eth.ts";
import { parseAddress } from "../../crypto/address.ts";
import { relayError } from "../../errors.ts";
import type { ChainRuntime } from "./chain-runtime.ts";
import { rpcFailure } from "../rpc-errors.ts";
import { usdNumber } from "../usd.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const factoryAbi = readArtifact("ServiceVaultFactory").abi;
const registryAbi = readArtifact("ServiceRegistry").abi;

/** A path or query address: `0x` + 40 hex digits, EIP-55 when mixed case (400 INVALID_ADDRESS otherwise). */
export function addressParam(name: string, value: string | undefined): Address {
  if (value === undefined || value === "") throw relayError("INVALID_REQUEST", `${name} is required`);
  const parsed = parseAddress(value);
  if (!parsed.ok) {
    throw relayError("INVALID_ADDRESS", `${name} ${parsed.reason === "checksum" ? "fails its EIP-55 checksum" : "must be 0x followed by 40 hex digits"}`);
  }
  return parsed.address;
}

export class VaultReads {
  readonly #chain: ChainRuntime;

  constructor(chain: ChainRuntime) {
    this.#chain = chain;
  }

  #read<T>(address: Address, abi: typeof vaultAbi, functionName: string, args: readonly unknown[] = []): Promise<T> {
    return rpcFailure(() => this.#chain.clients.publicClient.readContract({ address, abi, functionName, args })) as Promise<T>;
  }

  async #requireVault(vault: Address): Promise<void> {
    const isVault = await this.#read<boolean>(this.#chain.config.factory, factoryAbi, "isVault", [vault]);
    if (!isVault) throw relayError("VAULT_NOT_FOUND", `no vault at ${vault} on chain ${this.#chain.chainId}`);
  }

  async #balanceOf(vault: Address, token: Address): Promise<bigint> {
    if (isEth(token)) return rpcFailure(() => this.#chain.clients.publicClient.getBalance({ address: vault }));
    return this.#read<bigint>(token, erc20Abi as never, "balanceOf", [vault]).catch((error) => {
      if ((error as { code?: string }).code === "RPC_ERROR") throw error;
      return 0n; // not an ERC-20
    });
  }

  /**
   * Total USD value and one entry per held asset with a non-zero balance: native ETH (listed under
   * the 0xEeee… marker, priced by the registry's ETH feed) then each configured ERC-20.
   */
  async value(vault: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    const registry = await this.#read<Address>(vault, vaultAbi, "registry");
    const assets: Array<[string, { address: Address; decimals: number }]> = [
      [ETH_TOKEN.symbol, { address: ETH_MARKER, decimals: ETH_TOKEN.decimals }],
      ...Object.entries(this.#chain.config.tokens),
    ];
    const entries = await Promise.all(
      assets.map(async ([symbol, token]) => {
        const balance = await this.#balanceOf(vault, token.address);
        if (balance === 0n) return undefined;
        const unit = 10n ** BigInt(token.decimals);
        const [unitUsd, valueUsd] = await Promise.all([
          this.#read<bigint>(registry, registryAbi, "usdValue", [token.address, unit]).catch(() => 0n),
          this.#read<bigint>(registry, registryAbi, "usdValue", [token.address, balance]).catch(() => 0n),
        ]);
        return { token: token.address, symbol, balance: balance.toString(), decimals: token.decimals, priceUsd: usdNumber(unitUsd), valueUsd: usdNumber(valueUsd), usd6: valueUsd };
      }),
    );
    const tokens = entries.filter((e) => e !== undefined);
    const total = tokens.reduce((sum, e) => sum + e.usd6, 0n);
    return {
      vault,
      chainId: this.#chain.chainId,
      totalValueUsd: usdNumber(total),
      tokens: tokens.map(({ usd6: _usd6, ...entry }) => entry),
    };
  }

  /**
   * The vault's effective rebalance whitelist: its own list, else the default one of the registry
   * it checks against (the list its isRebalanceAllowed falls back to, read from the same place).
   */
  async rebalanceTokens(vault: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    const count = await this.#read<bigint>(vault, vaultAbi, "rebalanceTokenCount");
    if (count > 0n) {
      const tokens = await this.#read<Address[]>(vault, vaultAbi, "getRebalanceTokens");
      return { source: "on_chain", tokens: tokens.map((t) => getAddress(t)), rebalanceTokenCount: Number(count) };
    }
    const registry = await this.#read<Address>(vault, vaultAbi, "registry");
    const tokens = await this.#read<Address[]>(registry, registryAbi, "getDefaultRebalanceTokens");
    return { source: "default", tokens: tokens.map((t) => getAddress(t)), rebalanceTokenCount: 0 };
  }

  /** Whether the vault itself allows swaps into `token` (isRebalanceAllowed, the rule it enforces). */
  async rebalanceToken(vault: Address, token: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    const [count, allowed] = await Promise.all([
      this.#read<bigint>(vault, vaultAbi, "rebalanceTokenCount"),
      this.#read<boolean>(vault, vaultAbi, "isRebalanceAllowed", [token]),
    ]);
    return { allowed, source: count > 0n ? "on_chain" : "default" };
  }

  async balance(vault: Address, token: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    return { balance: (await this.#balanceOf(vault, token)).toString() };
  }

  async balances(vault: Address, tokens: readonly Address[]): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    const values = await Promise.all(tokens.map((t) => this.#balanceOf(vault, t)));
    return { balances: Object.fromEntries(tokens.map((t, i) => [t, values[i]!.toString()])) };
  }

  async botStatus(vault: Address, bot: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    return { isActive: await this.#read<boolean>(vault, vaultAbi, "isBotActive", [bot]) };
  }

  async info(vault: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    const [owner, operator, paused, version, trackUsedIntents] = await Promise.all([
      this.#read<Address>(vault, vaultAbi, "owner"),
      this.#read<Address>(vault, vaultAbi, "operator"),
      this.#read<boolean>(vault, vaultAbi, "paused"),
      this.#read<string>(vault, vaultAbi, "version"),
      this.#read<boolean>(vault, vaultAbi, "trackUsedIntents"),
    ]);
    return { owner, operator, paused, version, trackUsedIntents };
  }

  async destination(vault: Address, bot: Address, to: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    const [allowed, reason] = await this.#read<[boolean, string]>(vault, vaultAbi, "checkDestination", [bot, to]);
    return allowed ? { allowed } : { allowed, reason };
  }

  async protocol(vault: Address, protocol: Address): Promise<Record<string, unknown>> {
    await this.#requireVault(vault);
    return { approved: await this.#read<boolean>(vault, vaultAbi, "isContractApproved", [protocol]) };
  }
}
