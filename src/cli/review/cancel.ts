// Cancelling a review's signed intent on its vault with the owner key: `cancelIntent(intentHash)`,
// simulated and sent by the same helper as `relay owner cancel`. After it, no relayer and no leaked
// relayer key can execute that signature: the vault refuses it with IntentCancelled.
import { BaseError, type Hex } from "viem";
import { connectChain } from "../commands/chain.ts";
import { transact } from "../commands/owner.ts";
import { CliError } from "../io.ts";
import type { Settings } from "../settings.ts";
import type { CancelTarget } from "./source.ts";

export function intentCanceller(settings: Settings, ownerKey: Hex): (review: CancelTarget) => Promise<Hex> {
  return async (review) => {
    const clients = await connectChain(settings);
    if (clients.chain.id !== review.chainId) {
      throw new CliError(`the review is on chain ${review.chainId}, but ${settings.rpcUrl} serves chain ${clients.chain.id} (--rpc-url)`);
    }
    try {
      return await transact(clients, ownerKey, review.vault, "ServiceVault", "cancelIntent", [review.intentHash]);
    } catch (error) {
      // viem's first line is often generic ("Missing or invalid parameters."); the node's own words are its details.
      if (error instanceof BaseError && error.details) throw new CliError(error.details.split("\n")[0]!);
      throw error;
    }
  };
}
