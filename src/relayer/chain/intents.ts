// The vault's and the router's ABIs and the calls shared by the kinds: a batch of payments and a
// swap's router call. Each kind's own vault call is in its descriptor (kinds/).
import { encodeFunctionData, type Address, type Hex } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import type { PaymentRequest, SwapRequest } from "../../api/validate.ts";
import { paymentBatchCalldata } from "./payment-calldata.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const routerAbi = readArtifact("mocks/MockSwapRouter").abi;

/** The swap route the relayer chose: a router and the calldata the vault sends it. */
export interface SwapRoute {
  router: Address;
  swapCalldata: Hex;
  quotedOut: bigint;
}

/** The owner's approval of a held request. */
export interface OwnerApproval {
  deadline: bigint;
  signature: Hex;
}

/** Calldata of one `executePaymentBatch` carrying several fast-path payments. */
export function batchCalldata(requests: readonly PaymentRequest[]): Hex {
  return paymentBatchCalldata(requests);
}

/** The router call a swap executes: exact input, at least `minOut`, output to the vault itself. */
export function routerCalldata(request: SwapRequest, vault: Address, minOut: bigint): Hex {
  const i = request.intent;
  return encodeFunctionData({
    abi: routerAbi,
    functionName: "swapExactIn",
    args: [i.fromToken, i.toToken, i.maxFromAmount, minOut, vault],
  });
}

export { vaultAbi, routerAbi };
