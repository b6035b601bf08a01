// The quick check of a devnet manifest, without zod: the CLI reads one on every call, and loading
// zod to check it cost about a tenth of a `relay pay` (~25 ms of CPU, ~4 MB). It accepts only what
// the schema (manifest-schema.ts) accepts unchanged, and returns what the schema's parse would: the
// same fields in the same order, unknown ones left out. Anything it does not accept goes to the schema,
// for zod's verdict and its message (manifest.ts); test/devnet/manifest-shape.test.ts holds the two
// to agreement.
import type { Manifest } from "./manifest-schema.ts";

type Fields = Record<string, unknown>;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** The manifest, as the schema would return it, when `raw` is plainly one; else undefined. */
export function plainManifest(raw: unknown): Manifest | undefined {
  if (!isObject(raw) || raw.version !== 1 || !isPositiveInt(raw.chainId) || !isUrl(raw.rpcUrl)) return undefined;
  if (raw.relayerUrl !== undefined && !isUrl(raw.relayerUrl)) return undefined;
  if (raw.devnet !== undefined && typeof raw.devnet !== "boolean") return undefined;
  const { x402 } = raw;
  if (x402 !== undefined && (!isObject(x402) || !isUrl(x402.facilitatorUrl) || !isUrl(x402.demoUrl))) return undefined;
  const { domain, contracts, tokens, accounts } = raw;
  if (!isObject(domain) || typeof domain.name !== "string" || typeof domain.version !== "string" || !isPositiveInt(domain.chainId) || !isAddress(domain.verifyingContract)) return undefined;
  if (!isObject(contracts) || !isObject(tokens) || !isObject(accounts) || !isObject(accounts.bots)) return undefined;
  const contractNames = ["registry", "factory", "vault", "router", "nft", "marketplace", "lending"] as const;
  if (!contractNames.every((name) => isAddress(contracts[name]))) return undefined;
  const priceFeeds = record(contracts.priceFeeds, (feed) => (isAddress(feed) ? feed : undefined));
  const tokenList = record(tokens, (token) =>
    isObject(token) && isAddress(token.address) && isDecimals(token.decimals) ? { address: token.address, decimals: token.decimals } : undefined,
  );
  const [owner, operator, relayer] = [keyPair(accounts.owner), keyPair(accounts.operator), keyPair(accounts.relayer)];
  const deployer = accounts.deployer === undefined ? undefined : keyPair(accounts.deployer);
  const bots = record(accounts.bots, keyPair);
  if (priceFeeds === undefined || tokenList === undefined || !owner || !operator || !relayer || (accounts.deployer !== undefined && !deployer)) return undefined;
  if (bots === undefined || !bots.default || !bots.reviewed) return undefined;
  const { default: defaultBot, reviewed, ...otherBots } = bots;
  return {
    version: 1,
    chainId: raw.chainId,
    rpcUrl: raw.rpcUrl,
    ...(raw.relayerUrl === undefined ? {} : { relayerUrl: raw.relayerUrl as string }),
    ...(x402 === undefined ? {} : { x402: { facilitatorUrl: x402.facilitatorUrl as string, demoUrl: x402.demoUrl as string } }),
    ...(raw.devnet === undefined ? {} : { devnet: raw.devnet as boolean }),
    domain: { name: domain.name, version: domain.version, chainId: domain.chainId, verifyingContract: domain.verifyingContract },
    contracts: {
      registry: contracts.registry as string,
      factory: contracts.factory as string,
      vault: contracts.vault as string,
      router: contracts.router as string,
      nft: contracts.nft as string,
      marketplace: contracts.marketplace as string,
      lending: contracts.lending as string,
      priceFeeds,
    },
    tokens: tokenList,
    accounts: {
      owner,
      operator,
      relayer,
      ...(deployer === undefined ? {} : { deployer }),
      // The schema's two named bots first, then the others in the file's order (zod's catchall).
      bots: { default: defaultBot, reviewed, ...otherBots },
    },
  };
}

// A plain object (JSON.parse makes no other kind); zod takes any non-array object, so this is no looser.
function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

// z.number().int(): a safe integer.
function isPositiveInt(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

function isDecimals(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 77;
}

function isAddress(value: unknown): value is string {
  return typeof value === "string" && ADDRESS.test(value);
}

// z.string().url() parses the text trimmed, and returns it without tabs and line breaks: only a URL
// it returns unchanged passes here.
function isUrl(value: unknown): value is string {
  return typeof value === "string" && value === value.trim() && !/[\t\n\r]/.test(value) && URL.canParse(value);
}

function keyPair(value: unknown): { address: string; privateKey: string } | undefined {
  if (!isObject(value) || !isAddress(value.address) || typeof value.privateKey !== "string" || !PRIVATE_KEY.test(value.privateKey)) return undefined;
  return { address: value.address, privateKey: value.privateKey };
}

/** Each value of a JSON object mapped by `check`; undefined when it is not one or a value fails. */
function record<T>(value: unknown, check: (entry: unknown) => T | undefined): Record<string, T> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, T> = {};
  for (const [key, entry] of Object.entries(value)) {
    // "__proto__" would set the copy's prototype rather than a field: left to the schema.
    if (key === "__proto__") return undefined;
    const checked = check(entry);
    if (checked === undefined) return undefined;
    out[key] = checked;
  }
  return out;
}
