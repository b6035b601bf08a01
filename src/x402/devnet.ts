// The x402 server of one devnet chain: its USDC, a facilitator account and a merchant account of the
// well-known test mnemonic (#6 and #7, which no devnet role uses), the demo priced at 0.01 USDC.
import { getAddress } from "viem";
import type { Devnet } from "../devnet/start.ts";
import { devKeyPair } from "../devnet/accounts.ts";
import { TOKENS, tokenName, USDC_EIP712_VERSION } from "../devnet/tokens.ts";
import { startX402Server, type X402Server } from "./server.ts";

export type { X402Server };

/** The dev accounts (test mnemonic index) that settle x402 payments and receive the demo's. */
export const X402_FACILITATOR_INDEX = 6;
export const X402_MERCHANT_INDEX = 7;
/** The demo resource's price: 0.01 USDC (6 decimals). */
export const DEMO_PRICE_ATOMIC = "10000";

export function startDevnetX402(devnet: Pick<Devnet, "chain" | "manifest">): Promise<X402Server> {
  const { manifest } = devnet;
  const usdc = manifest.tokens.USDC;
  if (usdc === undefined) throw new Error(`the devnet on chain ${manifest.chainId} has no USDC`);
  const spec = TOKENS.find((t) => t.symbol === "USDC")!;
  return startX402Server({
    provider: devnet.chain.provider,
    chainId: manifest.chainId,
    usdc: getAddress(usdc.address),
    usdcName: tokenName(spec, manifest.chainId),
    usdcVersion: USDC_EIP712_VERSION,
    facilitator: devKeyPair(X402_FACILITATOR_INDEX).address,
    merchant: devKeyPair(X402_MERCHANT_INDEX).address,
    priceAtomic: DEMO_PRICE_ATOMIC,
  });
}
