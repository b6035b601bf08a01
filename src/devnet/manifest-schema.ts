// The devnet manifest's schema (zod): what manifest.ts checks a manifest against when it writes one,
// and when one read fails the quick check (manifest-shape.ts), for zod's verdict and the message
// naming the first bad field. Kept apart from manifest.ts so that reading a manifest, as every CLI
// call does, does not load zod.
import { z } from "zod";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address");
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a 32-byte hex key");
const keyPair = z.object({ address, privateKey });

export const manifestSchema = z.object({
  version: z.literal(1),
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  relayerUrl: z.string().url().optional(),
  /** Where `relay serve`'s x402 facilitator and demo paid resource answer, while it runs. */
  x402: z.object({ facilitatorUrl: z.string().url(), demoUrl: z.string().url() }).optional(),
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

/** `raw` as the schema returns it, or an error naming `file` and the first bad field. */
export function checkedManifest(file: string, raw: unknown): Manifest {
  const result = manifestSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`devnet manifest ${file}: ${issue?.path.join(".") || "(root)"} ${issue?.message ?? "is invalid"}`);
  }
  return result.data;
}
