// Sign-In with Ethereum (EIP-4361) for owners: get a nonce from the relayer, sign a SIWE message
// naming it with the owner's key, and exchange the signature for a bearer token that the client
// then sends on the owner routes.
//
//   const owner = privateKeyToAccount(ownerKey);
//   const relay = new RelayClient({ baseUrl });
//   await signInWithEthereum(relay, owner, { chainId: 31337, baseUrl });
//   const { reviews } = await relay.reviews();
import type { LocalAccount } from "viem";
import { buildSiweMessage, siweTarget } from "./siwe-message.ts";
import type { RelayClient } from "./relay-client.ts";
import { normalizeSignature } from "./sign.ts";
import type { LoginResult } from "./types.ts";

export interface SignInOptions {
  /** The chain the session is for; the relayer must serve it. */
  chainId: number;
  /** The relayer's base URL: its host[:port] becomes the message's domain and the URL its URI. */
  baseUrl: string;
  /** One human-readable line shown by the wallet; left out when not given. */
  statement?: string;
  signal?: AbortSignal;
}

/**
 * Signs `owner` in at the relayer and sets the session token on `client`.
 * @throws RelayApiError 401 UNAUTHORIZED when the relayer refuses the login (its details say why).
 */
export async function signInWithEthereum(client: RelayClient, owner: LocalAccount, options: SignInOptions): Promise<LoginResult> {
  const call = options.signal === undefined ? {} : { signal: options.signal };
  const { nonce } = await client.authNonce(call);
  const message = buildSiweMessage({
    ...siweTarget(options.baseUrl),
    address: owner.address,
    ...(options.statement === undefined ? {} : { statement: options.statement }),
    chainId: options.chainId,
    nonce,
    issuedAt: new Date(),
  });
  const signature = normalizeSignature(await owner.signMessage({ message }));
  const result = await client.login(message, signature, call);
  client.setAuthToken(result.token);
  return result;
}
