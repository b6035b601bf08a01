// One line per ABI item, for pinning an ABI in a text file a reviewer can read.
import type { Abi } from "viem";

type Param = { type: string; indexed?: boolean; components?: readonly Param[] };
const typeOf = (p: Param): string =>
  (p.components ? `(${p.components.map(typeOf).join(",")})${p.type.slice("tuple".length)}` : p.type) + (p.indexed ? " indexed" : "");

/** "function getBotConfig(address) view returns ((uint256,…))", one line per ABI item, sorted. */
export function abiLines(abi: Abi): string[] {
  return abi
    .map((item) => {
      const inputs = "inputs" in item ? item.inputs.map(typeOf).join(",") : "";
      const name = "name" in item ? item.name : "";
      const mutability = "stateMutability" in item ? ` ${item.stateMutability}` : "";
      const outputs = "outputs" in item && item.outputs.length > 0 ? ` returns (${item.outputs.map(typeOf).join(",")})` : "";
      return `${item.type} ${name}(${inputs})${mutability}${outputs}`;
    })
    .sort();
}
