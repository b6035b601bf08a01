// The human-readable summary a devnet prints on stderr when it is ready: the well-known accounts
// once (they are the same on every chain), then each chain's URLs, contracts, tokens and domain.
import type { Manifest } from "./manifest.ts";

/** One running chain of the devnet and the manifest file that describes it. */
export interface BannerChain {
  manifest: Manifest;
  manifestFile: string;
}

const row = (label: string, value: string) => `  ${label.padEnd(14)} ${value}`;

export function formatBanner(chains: readonly BannerChain[]): string {
  const first = chains[0];
  if (first === undefined) return "";
  const ids = chains.map((c) => c.manifest.chainId);
  const { accounts } = first.manifest;
  const key = (label: string, pair: { address: string; privateKey: string }) =>
    [row(label, pair.address), row("", `key ${pair.privateKey}`)];
  const lines = [
    "",
    `relay devnet — ${ids.length === 1 ? "chain" : "chains"} ${ids.join(", ")}`,
    "",
    `Accounts (well-known test keys: never use them on a real network${ids.length === 1 ? "" : "; the same on every chain"})`,
    ...key("owner", accounts.owner),
    ...key("operator", accounts.operator),
    ...key("relayer", accounts.relayer),
    ...key("bot default", accounts.bots.default),
    ...key("bot reviewed", accounts.bots.reviewed),
    ...chains.flatMap((chain) => chainSection(chain, ids.length > 1)),
    "",
  ];
  return lines.join("\n");
}

function chainSection({ manifest, manifestFile }: BannerChain, titled: boolean): string[] {
  const { contracts, tokens, domain } = manifest;
  return [
    ...(titled ? ["", `=== chain ${manifest.chainId} ===`] : []),
    "",
    "URLs",
    row("JSON-RPC", manifest.rpcUrl),
    ...(manifest.relayerUrl ? [row("relayer", manifest.relayerUrl)] : []),
    ...(manifest.x402 ? [row("x402 facil.", manifest.x402.facilitatorUrl), row("x402 demo", manifest.x402.demoUrl)] : []),
    row("manifest", manifestFile),
    "",
    "Contracts",
    row("vault", contracts.vault),
    row("registry", contracts.registry),
    row("factory", contracts.factory),
    row("router", contracts.router),
    row("nft", contracts.nft),
    row("marketplace", contracts.marketplace),
    row("lending", contracts.lending),
    "",
    "Tokens",
    ...Object.entries(tokens).map(([symbol, t]) => row(symbol, `${t.address} (${t.decimals} decimals)`)),
    "",
    `EIP-712 domain: ${domain.name} v${domain.version}, chain ${domain.chainId}, vault ${domain.verifyingContract}`,
  ];
}
