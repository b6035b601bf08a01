// The registry of intent kinds: one descriptor per kind (kind.ts). Adding a kind adds its line here.
// Also in this folder: swap-required.ts, a payment's SWAP_REQUIRED answer at the balance step.
import type { Hex } from "viem";
import type { IntentKind } from "../../../packages/client/src/intent-types.ts";
import type { RelayRequest, RequestByKind } from "../../api/validate.ts";
import type { SnapshotQuery } from "../chain/chain-runtime.ts";
import type { OwnerApproval, SwapRoute } from "../chain/intents.ts";
import { execute } from "./execute.ts";
import type { KindDescriptor } from "./kind.ts";
import { payment } from "./payment.ts";
import { swap } from "./swap.ts";
import { x402 } from "./x402.ts";

/** Every kind the client signs (its `intentKinds`, which orders the routes), with its descriptor. */
export const kinds: { readonly [K in IntentKind]: KindDescriptor<RequestByKind[K]> } = {
  payment,
  execute,
  swap,
  x402,
};

/** The descriptor of a request (or of a kind by name). */
export function kindOf(of: RelayRequest | IntentKind): KindDescriptor {
  return kinds[typeof of === "string" ? of : of.kind] as KindDescriptor;
}

/** The policy lens query of a request. */
export function snapshotQuery(request: RelayRequest, intentHash: Hex): SnapshotQuery {
  const kind = kindOf(request);
  return { vault: request.vaultAddress, bot: request.intent.bot, intentHash, ...kind.movedFunds(request), ...kind.lensFields(request) };
}

/** Calldata of the vault call executing `request` (see KindDescriptor.calldata). */
export function executionCalldata(request: RelayRequest, route?: SwapRoute, approval?: OwnerApproval): Hex {
  return kindOf(request).calldata(request, route, approval);
}

export type { KindDescriptor } from "./kind.ts";
