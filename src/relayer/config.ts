// The relayer's configuration: validated once at start-up (zod) into a frozen object. Errors name
// the failing path, e.g. `chains[0].relayerKeys: at least one key is required`.
import { z } from "zod";
import { getAddress, type Address, type Hex } from "viem";
import { isSupportedChainId } from "../devnet/tokens.ts";
import type { Manifest } from "../devnet/manifest.ts";
import { defaultRateLimits, MAX_READ_COST } from "./rate-limiter.ts";
import { isIpOrCidr } from "../api/ip-ranges.ts";

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address")
  .transform((value) => getAddress(value));
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte hex private key");
const bucket = z.object({ capacity: z.number().nonnegative(), refillPerSecond: z.number().nonnegative() });

const chainSchema = z.object({
  chainId: z.number().int().refine(isSupportedChainId, "is not a supported chain id (8453, 84532, 42161, 421614, 31337)"),
  rpcUrl: z.string().url(),
  /** Longest wait for one JSON-RPC answer; past it the call fails as RPC_ERROR. */
  rpcTimeoutMs: z.number().int().positive().default(10_000),
  /**
   * A devnet: `metadata.scenario` overrides are honoured. A claim only: at start-up it stands for a
   * chain relay started in-process, or a node that says it is a development node; otherwise it is
   * dropped (see checkDevnetClaims in app/service.ts).
   */
  devnet: z.boolean().default(false),
  registry: address,
  factory: address,
  /** Swap routers the relayer may route through (the registry must approve them too). */
  routers: z.array(address).default([]),
  relayerKeys: z.array(privateKey).min(1, "at least one relayer key is required"),
  tokens: z.record(z.string(), z.object({ address, decimals: z.number().int().min(0).max(77) })).default({}),
  /**
   * No longer a setting: the rebalance whitelist of a vault that sets none is the registry's
   * (getDefaultRebalanceTokens), the list the vault enforces. A relayer-side list could only differ
   * from it, so a configuration that still gives one is refused rather than silently ignored.
   */
  defaultRebalanceTokens: z
    .undefined({ error: "is no longer a relayer setting: a vault without its own rebalance list uses the registry's (ServiceRegistry.addDefaultRebalanceToken), which the relayer reads" })
    .optional(),
});

export const relayerConfigSchema = z.object({
  stateDir: z.string().min(1),
  chains: z.array(chainSchema).min(1, "at least one chain is required"),
  rateLimits: z
    .object({
      bot: bucket,
      vault: bucket,
      client: bucket,
      /**
       * Per client address: bad signatures and reads before a signature can be checked (see
       * rate-limit.ts). Far below what the server verifies per second, so that one address's flood
       * of bad signatures cannot slow the others down.
       */
      unauthenticated: bucket.default({ ...defaultRateLimits.unauthenticated }),
      /** Per client address: the open reads that reach the chain (GET /v1/vault/…; see rate-limiter.ts). */
      reads: bucket
        .refine((b) => b.capacity === 0 || b.refillPerSecond === 0 || b.capacity >= MAX_READ_COST, `capacity must be 0 (unlimited) or at least ${MAX_READ_COST}: a read of ${MAX_READ_COST} balances spends ${MAX_READ_COST} tokens`)
        .default({ ...defaultRateLimits.reads }),
    })
    // The one set of defaults (rate-limiter.ts).
    .default({
      bot: { ...defaultRateLimits.bot },
      vault: { ...defaultRateLimits.vault },
      client: { ...defaultRateLimits.client },
      unauthenticated: { ...defaultRateLimits.unauthenticated },
      reads: { ...defaultRateLimits.reads },
    }),
  ai: z
    .object({
      timeoutMs: z.number().int().positive().default(30_000),
      endpoint: z.string().url().optional(),
      model: z.string().optional(),
      apiKey: z.string().optional(),
      /**
       * The in-process panel's keys, one per agent (safety, behavioral, reasoning): they sign the
       * verdicts a vault needs to execute a request it holds for the AI scan (docs/design.md, "AI
       * holds"). Default: the devnet's panel keys when every chain is a devnet, else keys kept in
       * the state directory (scanner-keys, 0600), made on first start.
       */
      scannerKeys: z.array(privateKey).length(3, "three keys, one per agent").optional(),
      /** A separate panel (`relay agents`) to ask for verdicts instead: the relayer then holds no scanner key. */
      agentsUrl: z.string().url().optional(),
    })
    .default({ timeoutMs: 30_000 }),
  /** How long an owner has to decide a held request before it becomes `rejected`. */
  reviewWindowSeconds: z.number().int().positive().default(86_400),
  /**
   * Farthest a bot's deadline may lie ahead, in seconds: a signed intent is a bearer cheque, so one
   * that stays valid for years is refused (400 DEADLINE_TOO_FAR).
   */
  maxDeadlineSeconds: z.number().int().positive().default(86_400),
  /** Longest wait for a receipt before a submitted request is answered from the ledger later. */
  receiptTimeoutMs: z.number().int().positive().default(120_000),
  /** How long a client may take to send a whole request (headers and body) before a 408. */
  requestTimeoutMs: z.number().int().positive().default(10_000),
  /**
   * The addresses (IPs or CIDR ranges) of reverse proxies in front of the relayer. A request that
   * arrives from one of them is charged to the client its X-Forwarded-For names (the nearest address
   * not itself a trusted proxy); any other request to the address it comes from. Without this,
   * every client behind a proxy shares the proxy's buckets, and one client's flood throttles all.
   * A header from a peer that is not listed is never believed, so a client cannot pick its bucket.
   */
  trustedProxies: z.array(z.string().refine(isIpOrCidr, "must be an IP address or a CIDR range (127.0.0.1, 10.0.0.0/8, ::1)")).default([]),
  /** Most fast-path payments coalesced into one `executePaymentBatch` transaction. */
  maxBatchSize: z.number().int().min(1).max(200).default(64),
  /**
   * Longest wait, in ms, of a batch about to be sent for the payments of its vault that were already
   * being checked then, so that a burst shares one transaction (submitter.ts); 0: none.
   */
  batchGatherMs: z.number().int().min(0).max(1_000).default(25),
  /**
   * The relayer's terms of service. When set, intents from a vault whose owner has not accepted
   * this version (POST /v1/tos/accept) are refused with 403 TERMS_NOT_ACCEPTED; unset, nothing is
   * required. The version is written into the text owners sign, so it is one line of plain text.
   */
  terms: z
    .object({
      version: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, "must be 1 to 64 letters, digits, '.', '_', '+' or '-'"),
      url: z.string().url().max(512).regex(/^https?:\/\/\S+$/, "must be an http(s) URL without spaces").optional(),
    })
    .optional(),
  /**
   * The bearer token GET /metrics wants for its detailed series (server/metrics.ts); without it a
   * caller gets only what says nothing about any vault. Unset: nobody gets the detailed series.
   * A secret: never logged, never in an answer.
   */
  metricsToken: z
    .string()
    .regex(/^[\x21-\x7e]{16,256}$/, "must be 16 to 256 printable ASCII characters, without spaces")
    .optional(),
  /** Watching the relayer's own transactions until they are mined (see stuck-watch.ts and reconcile.ts). */
  inFlight: z
    .object({
      /** How often in-flight transactions are checked. */
      checkEveryMs: z.number().int().positive().default(5_000),
      /** Age after which an unconfirmed request is settled from the chain by reconciliation. */
      reconcileAfterMs: z.number().int().nonnegative().default(15_000),
      /** Time a broadcast transaction may stay pending before it is replaced with higher fees. */
      replaceAfterMs: z.number().int().positive().default(60_000),
      /** Fee increase of each replacement, in percent (nodes require at least 10). */
      feeBumpPercent: z.number().int().min(10).max(1000).default(25),
      /** Most replacements signed for one nonce. */
      maxReplacements: z.number().int().min(0).max(50).default(5),
    })
    .prefault({}),
});

export type RelayerConfigInput = z.input<typeof relayerConfigSchema>;
export type RelayerConfig = Readonly<z.output<typeof relayerConfigSchema>>;
export type ChainConfig = RelayerConfig["chains"][number];

/** Validates and freezes a configuration; throws one Error listing every problem with its path. */
export function parseRelayerConfig(input: unknown): RelayerConfig {
  const parsed = relayerConfigSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.map(String).join(".") || "(config)"}: ${issue.message}`);
    throw new Error(`invalid relayer configuration: ${lines.join("; ")}`);
  }
  const chainIds = parsed.data.chains.map((chain) => chain.chainId);
  const dup = chainIds.find((id, i) => chainIds.indexOf(id) !== i);
  if (dup !== undefined) throw new Error(`invalid relayer configuration: chains: chain ${dup} is listed twice`);
  return deepFreeze(parsed.data);
}

/**
 * A chain's configuration from a devnet manifest (as written by `relay devnet` or `relay deploy`);
 * a devnet when the manifest says relay deployed the suite on a development node.
 */
export function chainFromManifest(manifest: Manifest, rpcUrl: string = manifest.rpcUrl, devnet = manifest.devnet === true): z.input<typeof chainSchema> {
  return {
    chainId: manifest.chainId,
    rpcUrl,
    devnet,
    registry: manifest.contracts.registry,
    factory: manifest.contracts.factory,
    routers: [manifest.contracts.router],
    relayerKeys: [manifest.accounts.relayer.privateKey],
    tokens: manifest.tokens,
  };
}

export type { Address, Hex };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
