// Native ETH's two names where a token address goes: the zero address, and the 0xEeee… marker that
// wallets and SDKs sign. The vault, the registry and the policy lens read both as ETH on-chain; an
// intent keeps the name its bot signed (its hash depends on it), only balances, transfers and prices
// map it.
import { zeroAddress, type Address } from "viem";

/** The native-ETH marker, EIP-55. `relay pay --token ETH` signs this name. */
export const ETH_MARKER: Address = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";

/** Symbol and decimals of native ETH. */
export const ETH_TOKEN = { symbol: "ETH", decimals: 18 } as const;

/** Whether `token` names native ETH (the zero address or the marker, any letter case). */
export function isEth(token: string): boolean {
  const lower = token.toLowerCase();
  return lower === zeroAddress || lower === ETH_MARKER.toLowerCase();
}
