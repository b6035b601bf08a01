// The relayer makes each rejection final on-chain, once: after the owner rejects a held payment, the
// relayer key serving the vault sends one `cancelIntent` for its intent, and the ledger keeps no
// cancel pending. In the cluster run (three instances on one PostgreSQL ledger behind a proxy, each
// sending due cancels every few seconds) it is still exactly one cancel transaction per intent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEventLogs, type Address, type Hex } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { signInWithEthereum } from "../../packages/client/src/siwe.ts";
import { get, paymentBody, post, startEnv, type Env } from "./harness.ts";

const vaultAbi = readArtifact("ServiceVault").abi;

describe("rejections cancelled on-chain by the relayer", () => {
  let env: Env;
  let auth: Record<string, string>;

  beforeAll(async () => {
    env = await startEnv();
    const login = await signInWithEthereum(new RelayClient({ baseUrl: env.url }), env.ownerAccount, { chainId: env.manifest.chainId, baseUrl: env.url });
    auth = { authorization: `Bearer ${login.token}` };
  });
  afterAll(() => env?.close());

  const cancelsOf = async (intentHash: Hex): Promise<Address[]> => {
    const logs = await env.clients.publicClient.getLogs({ address: env.vault, fromBlock: 0n });
    return (parseEventLogs({ abi: vaultAbi, logs, eventName: "IntentCancelled" }) as unknown as Array<{ args: { intentHash: Hex; by: Address } }>)
      .filter((e) => e.args.intentHash.toLowerCase() === intentHash.toLowerCase())
      .map((e) => e.args.by);
  };

  it("three rejected reviews: each intent cancelled once by the relayer key, nothing left pending, and the answers unchanged", async () => {
    const relayer = env.manifest.accounts.relayer.address;
    const held: Array<{ requestId: string; intentHash: Hex }> = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { amount: 1_000_000n }, { signer: env.reviewedBot }));
      expect(res.body.status).toBe("pending_review");
      const review = await get(`${env.url}/v1/reviews/${res.body.requestId}`, auth);
      held.push({ requestId: res.body.requestId, intentHash: review.body.intentHash });
    }
    for (const { requestId } of held) {
      const rejected = await post(`${env.url}/v1/reviews/${requestId}/reject`, { reason: "no" }, auth);
      expect(rejected.body).toEqual({ requestId, status: "rejected", reason: "no", errorCode: "OWNER_REJECTED" });
    }
    for (const { intentHash } of held) {
      const until = Date.now() + 30_000;
      while ((await cancelsOf(intentHash)).length === 0) {
        if (Date.now() > until) throw new Error(`${intentHash} was not cancelled on-chain`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // Longer than a pass of every instance (inFlight.checkEveryMs, 5 s): none sends a second cancel.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    for (const { intentHash } of held) expect(await cancelsOf(intentHash)).toEqual([relayer]);
    expect(await env.store.listCancels()).toEqual([]);
    for (const { requestId } of held) expect((await get(`${env.url}/v1/payments/${requestId}`)).body).toMatchObject({ status: "rejected", reason: "no" });
  });
});
