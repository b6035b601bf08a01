// The one revert decoder, used by the relayer (simulations, mined reverts) and the CLI (the owner's
// transactions): `Error(string)`, a panic, or a custom error of any contract a vault transaction
// reaches — the vault's, the swap router's, and OpenZeppelin's standard token errors (IERC20Errors,
// IERC721Errors, IERC1155Errors, Errors), which a token reverts with from inside a deposit, a payment
// or a protocol call. Their ABIs come from the compiled artifacts and OpenZeppelin's own build.
import { createRequire } from "node:module";
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, formatUnits, type Abi, type Hex } from "viem";
import { readArtifact } from "./artifacts.ts";

const require = createRequire(import.meta.url);
const openZeppelin = (name: string): Abi => (require(`@openzeppelin/contracts/build/contracts/${name}.json`) as { abi: Abi }).abi;

type AbiError = Extract<Abi[number], { type: "error" }>;
const errorsOf = (abi: Abi): AbiError[] => abi.filter((item): item is AbiError => item.type === "error");

/** Every custom error a revert may carry. */
export const revertErrorAbi: readonly AbiError[] = [
  ...errorsOf(readArtifact("ServiceVault").abi),
  ...errorsOf(readArtifact("mocks/MockSwapRouter").abi),
  ...["IERC20Errors", "IERC721Errors", "IERC1155Errors", "Errors"].flatMap((name) => errorsOf(openZeppelin(name))),
];

/** The token a reverting call moved, when the caller knows it: ERC-20 amounts are then shown in its units. */
export interface RevertContext {
  token?: { symbol: string; decimals: number };
}

/** Argument names that hold an amount of the token in OpenZeppelin's ERC-20 errors. */
const ERC20_AMOUNTS = new Set(["balance", "needed", "allowance"]);

/** A readable revert reason from revert data: `Error(string)`, a panic, or a decoded custom error. */
export function decodeRevert(data: Hex | undefined, context: RevertContext = {}): string {
  if (data === undefined || data === "0x") return "reverted without a reason";
  let decoded;
  try {
    decoded = decodeErrorResult({ abi: revertErrorAbi as Abi, data });
  } catch {
    return `reverted with data ${data.slice(0, 74)}${data.length > 74 ? "…" : ""}`;
  }
  const args = (decoded.args ?? []) as readonly unknown[];
  if (decoded.errorName === "Error") return String(args[0]);
  const inputs = decoded.abiItem.type === "error" ? decoded.abiItem.inputs : [];
  const token = decoded.errorName.startsWith("ERC20") ? context.token : undefined;
  const shown = args.map((arg, i) => {
    if (token !== undefined && typeof arg === "bigint" && ERC20_AMOUNTS.has(inputs[i]?.name ?? "")) return `${formatUnits(arg, token.decimals)} ${token.symbol}`;
    return typeof arg === "bigint" ? arg.toString() : String(arg);
  });
  return `${decoded.errorName}(${shown.join(", ")})`;
}

/** The revert data inside a viem error, if it carries any. */
export function revertDataOf(error: unknown): Hex | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (reverted?.raw) return reverted.raw;
  const withData = error.walk((e) => typeof (e as { data?: unknown }).data === "string") as { data?: Hex } | null;
  return withData?.data;
}
