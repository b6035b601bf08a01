// The devnet manifest (DESIGN.md section 8): what a chain has deployed and who holds which key.
// Written atomically (temp file + rename) so that a reader never sees half a file, and 0600: it
// holds the devnet's private keys.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Suite } from "./deploy.ts";
import { projectRoot } from "../paths.ts";
import { writePrivateFile } from "../private-files.ts";
import type { Manifest } from "./manifest-schema.ts";
import { plainManifest } from "./manifest-shape.ts";

export type { Manifest };

// The schema, and zod with it, loaded on first use: a CLI call reads its manifest through the quick
// check (manifest-shape.ts) and needs zod only when that fails. Loaded synchronously (require of an
// ES module, Node >= 22.12), since reading settings is; by its path in the checkout, which is the same
// from src/ and from the CLI's bundle in dist/ (scripts/build-cli.ts), where Node strips its types.
type Schema = typeof import("./manifest-schema.ts");
let schema: Schema | undefined;
const loadSchema = (): Schema => (schema ??= createRequire(import.meta.url)(path.join(projectRoot, "src", "devnet", "manifest-schema.ts")) as Schema);

export interface Deployed {
  chainId: number;
  rpcUrl: string;
  domain: Manifest["domain"];
  suite: Suite;
  vault: string;
  accounts: Manifest["accounts"];
  /** Deployed on a development node (see `Manifest.devnet`). */
  devnet: boolean;
}

/** The manifest of a deployed and seeded suite. */
export function buildManifest({ chainId, rpcUrl, domain, suite, vault, accounts, devnet }: Deployed): Manifest {
  return {
    version: 1,
    chainId,
    rpcUrl,
    ...(devnet ? { devnet: true } : {}),
    domain,
    contracts: {
      registry: suite.registry,
      factory: suite.factory,
      vault,
      router: suite.router,
      nft: suite.nft,
      marketplace: suite.marketplace,
      lending: suite.lending,
      priceFeeds: suite.priceFeeds,
    },
    tokens: suite.tokens,
    accounts,
  };
}

export const MANIFEST_FILE = "devnet.json";

/** The manifest with `relayerUrl` set to `url`, or without it when `url` is undefined. */
export function withRelayerUrl(manifest: Manifest, url: string | undefined): Manifest {
  const { relayerUrl: _previous, ...rest } = manifest;
  return url === undefined ? rest : { ...rest, relayerUrl: url };
}

/** The manifest with the x402 URLs set, or without them when `x402` is undefined. */
export function withX402(manifest: Manifest, x402: Manifest["x402"]): Manifest {
  const { x402: _previous, ...rest } = manifest;
  if (x402 === undefined) return rest;
  // In the schema's order: after relayerUrl.
  const { version, chainId, rpcUrl, relayerUrl, ...others } = rest;
  return { version, chainId, rpcUrl, ...(relayerUrl === undefined ? {} : { relayerUrl }), x402, ...others };
}

/** `<stateDir>/devnet.json`: the manifest of the devnet's first (or only) chain. */
export function manifestPath(stateDir: string): string {
  return path.join(stateDir, MANIFEST_FILE);
}

/** `<stateDir>/devnet-<chainId>.json`: the manifest of one chain, for devnets running several. */
export function chainManifestPath(stateDir: string, chainId: number): string {
  return path.join(stateDir, `devnet-${chainId}.json`);
}

export function writeManifest(file: string, manifest: Manifest): void {
  const checked = loadSchema().manifestSchema.parse(manifest);
  // It holds private keys: 0600 (see private-files.ts).
  writePrivateFile(file, `${JSON.stringify(checked, null, 2)}\n`);
}

/** Reads and validates a manifest; errors name the file and the first bad field. */
export function readManifest(file: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : "not valid JSON";
    throw new Error(`devnet manifest ${file}: ${reason}`);
  }
  return plainManifest(raw) ?? loadSchema().checkedManifest(file, raw);
}
