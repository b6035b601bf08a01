// The simulating lens deployed once per chain, at the address the deterministic deployment proxy
// gives its code (src/chain/deterministic-deployer.ts). The relayer then places only a 23-byte
// EIP-7702 delegation to it at its keys for each read-and-simulate call, instead of the lens's
// whole code (src/relayer/chain/lens-code.ts). Without it the relayer works as before.
import { getAddress, type Address } from "viem";
import type { Clients } from "../chain/clients.ts";
import { DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_CODE } from "../chain/deterministic-deployer.ts";
import type { Sender } from "../chain/sender.ts";

/**
 * Deploys the lens through the proxy (a no-op where it is already there). A development node that
 * lacks the proxy gets it first (`hardhat_setCode`, when `canSetCode`); on another chain without the
 * proxy nothing is deployed and undefined comes back.
 */
export async function placeSimulatingLens(clients: Clients, deployer: Sender, canSetCode: boolean): Promise<Address | undefined> {
  const proxyCode = (await clients.publicClient.getCode({ address: getAddress(DETERMINISTIC_DEPLOYER) })) ?? "0x";
  if (proxyCode === "0x") {
    if (!canSetCode) return undefined;
    await clients.publicClient.request({ method: "hardhat_setCode" as never, params: [DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_CODE] as never });
  } else if (proxyCode.toLowerCase() !== DETERMINISTIC_DEPLOYER_CODE) {
    return undefined; // something else lives at the proxy's address: nothing of ours goes through it
  }
  return deployer.deployDeterministic("lens/SimulatingLens");
}
