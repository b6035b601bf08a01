// The human-readable summary a devnet prints on stderr when it is ready.
import type { Manifest } from "./manifest.ts";

export function formatBanner(manifest: Manifest, manifestFile: string): string {
  const { accounts, contracts, tokens } = manifest;
  const row = (label: string, value: string) => `  ${label.padEnd(14)} ${value}`;
  const key = (label: string, pair: { address: string; privateKey: string }) =>
    [row(label, pair.address), row("", `key ${pair.privateKey}`)];
  const lines = [
    "",
    `relay devnet — chain ${manifest.chainId}`,
    "",
    "URLs",
    row("JSON-RPC", manifest.rpcUrl),
    ...(manifest.relayerUrl ? [row("relayer", manifest.relayerUrl)] : []),
    row("manifest", manifestFile),
    "",
    "Accounts (well-known test keys: never use them on a real network)",
    ...key("owner", accounts.owner),
    ...key("operator", accounts.operator),
    ...key("relayer", accounts.relayer),
    ...key("bot default", accounts.bots.default),
    ...key("bot reviewed", accounts.bots.reviewed),
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
    `EIP-712 domain: ${manifest.domain.name} v${manifest.domain.version}, chain ${manifest.domain.chainId}, vault ${manifest.domain.verifyingContract}`,
    "",
  ];
  return lines.join("\n");
}
