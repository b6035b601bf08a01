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
import { clusterRun } from "./deployment.ts";

const vaultAbi = readArtifact("ServiceVault").abi;

async function ownerAuth(env: Env): Promise<Record<string, string>> {
  const login = await signInWithEthereum(new RelayClient({ baseUrl: env.url }), env.ownerAccount, { chainId: env.manifest.chainId, baseUrl: env.url });
  return { authorization: `Bearer ${login.token}` };
}

async function cancelsOf(env: Env, intentHash: Hex): Promise<Address[]> {
  const logs = await env.clients.publicClient.getLogs({ address: env.vault, fromBlock: 0n });
  return (parseEventLogs({ abi: vaultAbi, logs, eventName: "IntentCancelled" }) as unknown as Array<{ args: { intentHash: Hex; by: Address } }>)
    .filter((e) => e.args.intentHash.toLowerCase() === intentHash.toLowerCase())
    .map((e) => e.args.by);
}

/** A payment of the `reviewed` bot, held for the owner: its request id and intent hash. */
async function hold(env: Env, auth: Record<string, string>): Promise<{ requestId: string; intentHash: Hex }> {
  const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { amount: 1_000_000n }, { signer: env.reviewedBot }));
  expect(res.body.status).toBe("pending_review");
  const review = await get(`${env.url}/v1/reviews/${res.body.requestId}`, auth);
  return { requestId: res.body.requestId, intentHash: review.body.intentHash };
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("rejections cancelled on-chain by the relayer", () => {
  let env: Env;
  let auth: Record<string, string>;

  beforeAll(async () => {
    env = await startEnv();
    auth = await ownerAuth(env);
  });
  afterAll(() => env?.close());

  it("three rejected reviews: each intent cancelled once by the relayer key, nothing left pending, and the answers unchanged", async () => {
    const relayer = env.manifest.accounts.relayer.address;
    const held = [await hold(env, auth), await hold(env, auth), await hold(env, auth)];
    for (const { requestId } of held) {
      const rejected = await post(`${env.url}/v1/reviews/${requestId}/reject`, { reason: "no" }, auth);
      expect(rejected.body).toEqual({ requestId, status: "rejected", reason: "no", errorCode: "OWNER_REJECTED" });
    }
    for (const { intentHash } of held) await until(`${intentHash} cancelled on-chain`, async () => (await cancelsOf(env, intentHash)).length > 0);
    // Longer than a pass of every instance (inFlight.checkEveryMs, 5 s): none sends a second cancel.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    for (const { intentHash } of held) expect(await cancelsOf(env, intentHash)).toEqual([relayer]);
    expect(await env.store.listCancels()).toEqual([]);
    for (const { requestId } of held) expect((await get(`${env.url}/v1/payments/${requestId}`)).body).toMatchObject({ status: "rejected", reason: "no" });
  });
});

// The relayer's own process: its log and metrics are read here (the cluster run's are other processes).
describe.skipIf(clusterRun())("a cancel that fails", () => {
  let env: Env;
  let auth: Record<string, string>;
  const lines: string[] = [];

  beforeAll(async () => {
    env = await startEnv({ inFlight: { checkEveryMs: 200 } }, { log: (line) => lines.push(line) });
    auth = await ownerAuth(env);
  });
  afterAll(() => env?.close());

  it("is retried with backoff, counted and logged without secrets, and lands once the key can pay for it", async () => {
    const relayer = env.manifest.accounts.relayer;
    const counted = (result: string) => env.relayer.metrics.intentCancels.get({ chain_id: env.manifest.chainId, result });
    const setBalance = (wei: bigint) => env.clients.publicClient.request({ method: "hardhat_setBalance" as never, params: [relayer.address, `0x${wei.toString(16)}`] as never });
    const funds = await env.clients.publicClient.getBalance({ address: relayer.address as Address });
    const { requestId, intentHash } = await hold(env, auth);

    // A relayer key without gas: the node refuses the cancel.
    await setBalance(0n);
    try {
      await post(`${env.url}/v1/reviews/${requestId}/reject`, { reason: "no" }, auth);
      await until("a failed attempt counted", () => counted("failed") >= 1);
      const [pending] = await env.store.listCancels();
      expect(pending).toMatchObject({ intentHash: intentHash.toLowerCase(), requestId, status: "pending" });
      expect(pending!.attempts).toBeGreaterThanOrEqual(1);
      // Backoff: the next attempt no sooner than a second after the failure.
      expect(pending!.notBefore).toBeGreaterThanOrEqual(pending!.updatedAt + 1_000);
      expect(pending!.lastError).toMatch(/^the node refused the relayer's transaction: Sender doesn't have enough funds/);
      const failure = lines.find((line) => line.startsWith(`cancelling intent ${intentHash.toLowerCase()} of rejected request ${requestId} on-chain failed (attempt 1, next in 1 s)`));
      expect(failure).toBeDefined();
      expect(lines.join("\n")).not.toContain(relayer.privateKey.slice(2).toLowerCase());
      expect(await cancelsOf(env, intentHash)).toEqual([]);
    } finally {
      await setBalance(funds);
    }

    await until(`${intentHash} cancelled on-chain`, async () => (await cancelsOf(env, intentHash)).length > 0);
    expect(await cancelsOf(env, intentHash)).toEqual([relayer.address]);
    await until("the cancel counted", () => counted("cancelled") === 1);
    expect(await env.store.listCancels()).toEqual([]);
    expect((await get(`${env.url}/v1/payments/${requestId}`)).body).toMatchObject({ status: "rejected", reason: "no" });
  });
});
