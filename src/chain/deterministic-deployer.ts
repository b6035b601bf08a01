// The deterministic deployment proxy: a keyless CREATE2 factory at the same address on most EVM
// chains (and on anvil by default). Sent `salt ‖ init code`, it deploys that code at an address
// that depends only on the init code and the salt, so anyone can compute where a contract lives on
// every chain that has the proxy, and nobody can place other code there.
import { getAddress, getContractAddress, zeroHash, type Address, type Hex } from "viem";

export const DETERMINISTIC_DEPLOYER: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";

/** The proxy's runtime code (public, the same on every chain), placed on development nodes that lack it. */
export const DETERMINISTIC_DEPLOYER_CODE: Hex =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

/** Where the proxy deploys `initCode` with `salt`. */
export function deterministicAddress(initCode: Hex, salt: Hex = zeroHash): Address {
  return getAddress(getContractAddress({ opcode: "CREATE2", from: DETERMINISTIC_DEPLOYER, salt, bytecode: initCode }));
}

/** The transaction data that has the proxy deploy `initCode` with `salt`. */
export function deterministicDeployData(initCode: Hex, salt: Hex = zeroHash): Hex {
  return `${salt}${initCode.slice(2)}` as Hex;
}
