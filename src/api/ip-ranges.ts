// IP addresses and CIDR ranges as an operator writes them: the reverse proxies whose X-Forwarded-For
// the relayer believes (config `trustedProxies`, `relay serve --trust-proxy`; see config.ts).
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
