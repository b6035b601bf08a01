// The CLI's access to the chain: viem clients for the settings' RPC URL, the vault's EIP-712 domain,
// token decimals, and addresses given by name (`marketplace`, `reviewed`, …) from the devnet manifest.
import { erc20Abi, type Address } from "viem";
import { clientsFor, type Clients } from "../../chain/clients.ts";
import { parseAddress } from "../../crypto/address.ts";
import { readVaultDomain } from "../../../packages/client/src/sign.ts";
import type { VaultDomain } from "../../../packages/client/src/intent-types.ts";
import { CliError, EXIT } from "../io.ts";
import { didYouMean } from "../did-you-mean.ts";
import type { ResolvedToken, Settings } from "../settings.ts";

/** No JSON-RPC node answered at the settings' URL (exit 1: the chain is unreachable). */
export class ChainUnreachableError extends CliError {
  constructor(message: string) {
    super(message, EXIT.FAILURE);
    this.name = "ChainUnreachableError";
  }
}

// A command makes a few calls and exits: node:http starts lighter than the relayer's pooled client.
const transport = "node:http";

/** Clients for the settings' chain, after checking the node answers and is that chain. */
export async function connectChain(settings: Settings): Promise<Clients> {
  let chainId: number;
  try {
    chainId = await clientsFor(settings.rpcUrl, settings.chainId, { transport }).publicClient.getChainId();
  } catch {
    throw new ChainUnreachableError(`cannot reach ${chainDescription(settings)}${startHint(settings)} (--rpc-url, RELAY_RPC_URL)`);
  }
  if (chainId !== settings.chainId && settings.sources.chainId !== "default") {
    throw new CliError(`the node at ${settings.rpcUrl} is chain ${chainId}, not chain ${settings.chainId} (from ${settings.sources.chainId})`);
  }
  return clientsFor(settings.rpcUrl, chainId, { transport });
}

/** "a JSON-RPC node at …", naming where the URL came from when the user did not give it. */
export function chainDescription(settings: Settings): string {
  const from = settings.sources.rpcUrl === "manifest" ? ` (the devnet manifest's, in ${settings.stateDir})` : settings.sources.rpcUrl === "default" ? " (the default)" : "";
  return `a JSON-RPC node at ${settings.rpcUrl}${from}`;
}

/**
 * A devnet's chain runs only while the `relay serve` or `relay devnet` that started it runs: when the
 * URL is that devnet's (from its manifest) or the default one they listen on, say so.
 */
function startHint(settings: Settings): string {
  const devnetUrl = (settings.sources.rpcUrl === "manifest" && settings.manifest?.devnet === true) || settings.sources.rpcUrl === "default";
  return devnetUrl ? "; is `relay serve` (or `relay devnet`) running?" : "";
}

/** The vault's EIP-712 domain, read from the vault (EIP-5267). */
export async function vaultDomain(clients: Clients, vault: Address): Promise<VaultDomain> {
  try {
    return await readVaultDomain(clients.publicClient, vault);
  } catch {
    throw new CliError(`${vault} is not a vault on chain ${clients.chain.id} (no eip712Domain)`);
  }
}

/** The token with its decimals, read from the chain when the settings do not know them. */
export async function withDecimals(clients: Clients, token: ResolvedToken): Promise<ResolvedToken> {
  if (token.decimals !== undefined) return token;
  try {
    const decimals = await clients.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: "decimals" });
    return { ...token, decimals };
  } catch {
    return token; // parseAmount then asks for --base-units
  }
}

/**
 * An address given as `0x…` or by name from the devnet manifest: a contract (`vault`, `router`,
 * `nft`, `marketplace`, `lending`, `registry`, `factory`), `owner`, or a bot (`default`, `reviewed`);
 * else a known token's symbol in any case (`USDC`), e.g. the protocol of an `approve` call.
 */
export function resolveAddress(settings: Settings, text: string, what: string): Address {
  if (/^0x/i.test(text)) {
    const checked = parseAddress(text);
    if (!checked.ok) throw new CliError(`${what} ${text} is not a valid address (${checked.reason === "checksum" ? "wrong EIP-55 checksum" : "expected 0x + 40 hex digits"})`, EXIT.USAGE);
    return checked.address;
  }
  const manifest = settings.manifest;
  const named: Record<string, string> = manifest
    ? {
        ...Object.fromEntries(Object.entries(manifest.accounts.bots).map(([name, pair]) => [name, pair.address])),
        owner: manifest.accounts.owner.address,
        ...Object.fromEntries(Object.entries(manifest.contracts).filter((entry): entry is [string, string] => typeof entry[1] === "string")),
      }
    : {};
  const found = named[text] ?? settings.tokens[text.toUpperCase()]?.address;
  if (found === undefined) {
    const names = [...Object.keys(named), ...Object.keys(settings.tokens)];
    const hint = didYouMean(text, names);
    const list = hint !== "" ? hint : names.length ? ` (known: ${names.join(", ")})` : "";
    throw new CliError(`${what} "${text}" is not an address, a name in the devnet manifest or a token symbol${list}`, EXIT.USAGE);
  }
  return found as Address;
}
