// Permit2 and x402's exact-scheme Permit2 proxy at the addresses x402's packages call (the same on
// every chain), so that a bot pays an x402 "permit2" requirement on the devnet as on a real network.
// The code placed there is the devnet's own (contracts/mocks/DevnetPermit2.sol,
// DevnetX402Permit2Proxy.sol): each computes its EIP-712 domain from its address and chain id on
// every call and has no constructor state, so placing it with hardhat_setCode gives what deploying
// the original there would: the same domain, the same interface, empty storage.
import { getAddress, type Address } from "viem";
import type { Clients } from "../chain/clients.ts";
import { readArtifact } from "../chain/artifacts.ts";

/** Permit2's canonical address. */
export const PERMIT2_ADDRESS: Address = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
/** x402's exact-scheme Permit2 proxy (`x402ExactPermit2ProxyAddress` in @x402/evm). */
export const X402_EXACT_PERMIT2_PROXY_ADDRESS: Address = "0x402085c248EeA27D92E8b30b2C58ed07f9E20001";

const PLACED: readonly (readonly [Address, string])[] = [
  [PERMIT2_ADDRESS, "mocks/DevnetPermit2"],
  [X402_EXACT_PERMIT2_PROXY_ADDRESS, "mocks/DevnetX402Permit2Proxy"],
];

/**
 * Places both where their address is free (needs `hardhat_setCode`); leaves an address that holds
 * code already (ours from an earlier deployment on the same chain, or the real contract on a fork).
 */
export async function placePermit2(clients: Clients): Promise<void> {
  for (const [address, contract] of PLACED) {
    const code = (await clients.publicClient.getCode({ address: getAddress(address) })) ?? "0x";
    if (code !== "0x") continue;
    await clients.publicClient.request({ method: "hardhat_setCode" as never, params: [address, readArtifact(contract).deployedBytecode] as never });
  }
}
