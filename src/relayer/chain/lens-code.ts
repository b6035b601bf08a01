// The code the relayer places at its keys' addresses for a lens call (an eth_call state override).
// Where the simulating lens is deployed at its deterministic address (src/devnet/simulating-lens.ts)
// with exactly our code, and the node follows EIP-7702 delegations in overrides, that is a 23-byte
// delegation to it; otherwise the lens's whole runtime code, about 9.6 KB (19 KB of hex in every
// call's JSON, which the node parses and analyses on every call).
//
// The simulation decides what the policy lets through, so the code it runs must be ours: the
// address is where only our init code can land (CREATE2), and its code is compared byte for byte
// with the artifact's before the first delegation; anything else there, and the whole code is sent.
import type { Address, Hex, PublicClient } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import { deterministicAddress } from "../../chain/deterministic-deployer.ts";
import { rpcFailure } from "../rpc-errors.ts";
import { decodeReadAndSimulate, readAndSimulateCalldata } from "./simulating-lens-codec.ts";

const simulatingLens = readArtifact("lens/SimulatingLens");

/** Where the deterministic deployment proxy puts the simulating lens, on every chain. */
export const SIMULATING_LENS_ADDRESS: Address = deterministicAddress(simulatingLens.bytecode);

/** The lens's whole runtime code, for nodes where it is not deployed. */
export const WHOLE_LENS_CODE: Hex = simulatingLens.deployedBytecode;

/** An EIP-7702 delegation designator (0xef0100 ‖ address): the account runs `to`'s code. */
export const DELEGATION_TO_LENS: Hex = `0xef0100${SIMULATING_LENS_ADDRESS.slice(2).toLowerCase()}`;

/** An address no key holds, where the probe's delegation is placed. */
const PROBE_ADDRESS: Address = "0x00000000000000000000000000000000000042ab";

/**
 * DELEGATION_TO_LENS when the lens is deployed with our code and a call through a delegation placed
 * by a state override runs it (an empty readAndSimulate answers with its empty encoding); else
 * WHOLE_LENS_CODE. Only an unreachable node throws (RPC_ERROR; the caller asks again later).
 */
export async function lensOverrideCode(client: PublicClient): Promise<Hex> {
  try {
    const code = await rpcFailure(() => client.getCode({ address: SIMULATING_LENS_ADDRESS }));
    if (code === undefined || code.toLowerCase() !== WHOLE_LENS_CODE.toLowerCase()) return WHOLE_LENS_CODE;
    const out = (await rpcFailure(() =>
      client.request({
        method: "eth_call",
        params: [{ to: PROBE_ADDRESS, data: readAndSimulateCalldata([], []) }, "latest", { [PROBE_ADDRESS]: { code: DELEGATION_TO_LENS } }],
      } as never),
    )) as Hex;
    const { snapshots, outcomes } = decodeReadAndSimulate(out);
    return outcomes.length === 0 && decodesEmpty(snapshots) ? DELEGATION_TO_LENS : WHOLE_LENS_CODE;
  } catch (error) {
    if ((error as { code?: string }).code === "RPC_ERROR") throw error;
    return WHOLE_LENS_CODE; // the node refused the delegation, or ran something else
  }
}

/** Whether `snapshots` is the ABI encoding of an empty Snapshot[] (offset 32, length 0). */
function decodesEmpty(snapshots: Buffer): boolean {
  return snapshots.length === 64 && snapshots.readUInt8(31) === 32 && snapshots.subarray(32).every((byte) => byte === 0);
}
