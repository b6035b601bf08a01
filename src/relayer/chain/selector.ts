// A call's function selector: the first 4 bytes of its calldata, lower-case. What the path
// (route/path.ts), the policy's protocol rule, the outflow and token-transfer reads key on.
import type { Hex } from "viem";

export function selectorOf(callData: Hex): Hex | undefined {
  return callData.length >= 10 ? (callData.slice(0, 10).toLowerCase() as Hex) : undefined;
}
