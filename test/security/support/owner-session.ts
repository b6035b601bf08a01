// The vault owner's session at a real relayer (Sign-In with Ethereum), as the review routes need it.
import { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { signInWithEthereum } from "../../../packages/client/src/siwe.ts";
import type { Env } from "../../relayer/harness.ts";

/** An Authorization header carrying the owner's session token. */
export async function ownerSession(env: Env): Promise<Record<string, string>> {
  const client = new RelayClient({ baseUrl: env.url });
  const login = await signInWithEthereum(client, env.ownerAccount, { chainId: env.manifest.chainId, baseUrl: env.url });
  return { authorization: `Bearer ${login.token}` };
}
