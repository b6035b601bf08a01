// Accepting the relayer's terms of service as a vault's owner: read the status, and when the current
// version is not yet accepted, sign the text the relayer offers (personal_sign) and send it.
//
//   const owner = privateKeyToAccount(ownerKey);
//   const status = await acceptTerms(new RelayClient({ baseUrl }), owner);
import type { LocalAccount } from "viem";
import type { CallOptions, RelayClient } from "./relay-client.ts";
import { normalizeSignature } from "./sign.ts";
import type { TosStatus } from "./types.ts";

/**
 * Accepts the relayer's current terms for `owner` unless nothing is required or they are accepted
 * already; answers the status afterwards.
 */
export async function acceptTerms(client: RelayClient, owner: LocalAccount, options?: CallOptions): Promise<TosStatus> {
  const status = await client.tosStatus(owner.address, options);
  if (status.accepted || status.version === null || status.message === undefined) return status;
  const signature = normalizeSignature(await owner.signMessage({ message: status.message }));
  await client.acceptTos({ wallet: owner.address, version: status.version, message: status.message, signature }, options);
  return client.tosStatus(owner.address, options);
}
