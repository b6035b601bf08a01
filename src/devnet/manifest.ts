// The devnet manifest (DESIGN.md section 8): what a chain has deployed and who holds which key.
// Written atomically (temp file + rename) so that a reader never sees half a file, and 0600: it
// holds the devnet's private keys.
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Suite } from "./deploy.ts";
import { writePrivateFile } from "../private-files.ts";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address");
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a 32-byte hex key");
const keyPair = z.object({ address, privateKey });

export const manifestSchema = z.object({
  version: z.literal(1),
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  relayerUrl: z.string().url().optional(),
  /**
   * True when relay deployed this suite on a development node: written by `relay devnet`, and by
   * `relay deploy` when the node said it is one. `relay serve --rpc-url` honours `metadata.scenario`
   * only with it, and only while the node still says so.
   */
  devnet: z.boolean().optional(),
  domain: z.object({
    name: z.string(),
    version: z.string(),
    chainId: z.number().int().positive(),
    verifyingContract: address,
  }),
  contracts: z.object({
    registry: address,
    factory: address,
    vault: address,
    router: address,
    nft: address,
    marketplace: address,
    lending: address,
    priceFeeds: z.record(z.string(), address),
  }),
  tokens: z.record(z.string(), z.object({ address, decimals: z.number().int().min(0).max(77) })),
  accounts: z.object({
    owner: keyPair,
    operator: keyPair,
    relayer: keyPair,
    deployer: keyPair.optional(),
    bots: z.object({ default: keyPair, reviewed: keyPair }).catchall(keyPair),
  }),
});

export type Manifest = z.infer<typeof manifestSchema>;

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

/** `<stateDir>/devnet.json`: the manifest of the devnet's first (or only) chain. */
export function manifestPath(stateDir: string): string {
  return path.join(stateDir, MANIFEST_FILE);
}

/** `<stateDir>/devnet-<chainId>.json`: the manifest of one chain, for devnets running several. */
export function chainManifestPath(stateDir: string, chainId: number): string {
  return path.join(stateDir, `devnet-${chainId}.json`);
}

export function writeManifest(file: string, manifest: Manifest): void {
  const checked = manifestSchema.parse(manifest);
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
  const result = manifestSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`devnet manifest ${file}: ${issue?.path.join(".") || "(root)"} ${issue?.message ?? "is invalid"}`);
  }
  return result.data;
}
