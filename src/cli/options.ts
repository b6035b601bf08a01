// Parsers for option values: each returns the typed value or throws a usage error naming the option.
import { CliError, EXIT } from "./io.ts";
import { isIpOrCidr } from "../api/ip-ranges.ts";
import { SUPPORTED_CHAIN_IDS, isSupportedChainId } from "../devnet/tokens.ts";

function usage(message: string): CliError {
  return new CliError(message, EXIT.USAGE);
}

export function parsePort(name: string) {
  return (value: string): number => {
    const port = Number(value);
    if (!/^\d+$/.test(value) || port > 65535) throw usage(`${name} must be a port number from 0 to 65535, got "${value}"`);
    return port;
  };
}

/**
 * A listen on a port that is taken, as the one-line hint naming the flag that chose it; any other
 * error is returned as it is. (`flag` is `--port` or `--rpc-port`.)
 */
export function portClash(error: unknown, port: number, flag: string): unknown {
  if ((error as { code?: string } | undefined)?.code !== "EADDRINUSE") return error;
  return new CliError(`port ${port} (${flag}) is in use; pick another with ${flag} or 0 for a free one`);
}

export function parseChainId(value: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value) || !isSupportedChainId(id)) {
    throw usage(`--chain-id ${value} is not supported (supported: ${SUPPORTED_CHAIN_IDS.join(", ")})`);
  }
  return id;
}

/**
 * A repeatable `--chain-id` (also `--chain-id 84532,421614`): the ids in the order given, each
 * supported and none twice. Commander passes the ids collected so far as `previous`.
 */
export function collectChainIds(value: string, previous: number[] | undefined): number[] {
  const ids = [...(previous ?? [])];
  for (const part of value.split(",")) {
    const id = parseChainId(part.trim());
    if (ids.includes(id)) throw usage(`--chain-id ${id} is given twice`);
    ids.push(id);
  }
  return ids;
}

/** `--trust-proxy`: repeatable, each value one or more comma-separated IPs or CIDR ranges. */
export function collectProxies(value: string, previous: string[] | undefined): string[] {
  const proxies = [...(previous ?? [])];
  for (const part of value.split(",").map((p) => p.trim())) {
    if (!isIpOrCidr(part)) throw usage(`--trust-proxy must be an IP address or a CIDR range (127.0.0.1, 10.0.0.0/8), got "${part}"`);
    if (!proxies.includes(part)) proxies.push(part);
  }
  return proxies;
}

export function parseUrl(name: string) {
  return (value: string): string => {
    try {
      const url = new URL(value);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
      return value;
    } catch {
      throw usage(`${name} must be an http(s) URL, got "${value}"`);
    }
  };
}

/** A postgres:// URL; a bad one is refused without echoing it (it may hold a password). */
export function parseDatabaseUrl(name: string) {
  return (value: string): string => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw usage(`${name} must be a postgres:// URL`);
    }
    if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw usage(`${name} must be a postgres:// URL, not ${url.protocol}`);
    return value;
  };
}

export function parsePrivateKey(name: string) {
  return (value: string): `0x${string}` => {
    const hex = value.startsWith("0x") ? value : `0x${value}`;
    if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw usage(`${name} must be a 32-byte hex private key`);
    return hex as `0x${string}`;
  };
}

export function parseDomainName(value: string): string {
  if (value.length === 0 || value.length > 64) throw usage("--domain-name must be 1 to 64 characters");
  return value;
}

export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || !Number.isSafeInteger(n)) throw usage(`${name} must be a positive integer, got "${value}"`);
    return n;
  };
}
