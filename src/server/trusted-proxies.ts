// Which peers may tell the relayer who the client is. Behind a reverse proxy every request arrives
// from the proxy's address; the per-client buckets (rate-limit.ts) would then be one bucket for every
// client, and one client's flood would throttle all of them. The proxies listed in the configuration
// (`trustedProxies`, `relay serve --trust-proxy`) are believed when they name the client in
// X-Forwarded-For; no other peer is, so a client cannot choose whose bucket it spends.
import { isIP } from "node:net";

/** An IPv4 or IPv6 address, optionally with a /prefix no longer than the address. */
export function isIpOrCidr(text: string): boolean {
  const [address = "", prefix, extra] = text.split("/");
  if (extra !== undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
