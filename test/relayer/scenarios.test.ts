// metadata.scenario on a devnet, one test per row of the table (docs/guides/bot-authors.md, "Outcomes on demand and time
// travel", src/relayer/intake/scenarios.ts): real HTTP against a real relayer on a real devnet, and the
// chain read to see what moved. Every payment is $2 from the default bot, whose config sends it on
// the fast path: the scenario alone decides the outcome, whatever the amount and path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { createSender } from "../../src/chain/sender.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { balanceOf, fresh, get, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));

describe("metadata.scenario on a devnet: every outcome on demand", () => {
  let env: Env;
  let payments: string;
  let usdc: Address;

  beforeAll(async () => {
    env = await startEnv();
    payments = `${env.url}/v1/payments`;
    usdc = env.token("USDC");
  });
  afterAll(() => env?.close());

  /** A $2 payment to a fresh address with `scenario`, posted (to `url`, by default the relayer's); with the payee and the vault's balance before. */
  async function pay(scenario: string, extras: { signer?: ReturnType<typeof privateKeyToAccount>; url?: string } = {}) {
    const to = fresh();
    const vaultBefore = await balanceOf(env, usdc, env.vault);
    const signer = extras.signer ?? env.bot;
    const body = await paymentBody(env, { bot: signer.address, to, amount: USDC(2) }, { signer, metadata: { scenario } });
    return { to, body, vaultBefore, res: await post(extras.url ?? payments, body) };
  }

  async function nothingMoved(to: Address, vaultBefore: bigint) {
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await balanceOf(env, usdc, env.vault)).toBe(vaultBefore);
  }

  /** Polls GET /v1/payments/:id until it is no longer pending_review. */
  async function settled(requestId: string, timeoutMs = 15_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const res = await get(`${payments}/${requestId}`);
      if (res.body.status !== "pending_review" || Date.now() > until) return res;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const verdictsOf = async (requestId: string) => JSON.parse((await env.store.getRequest(requestId))!.agents!) as Array<{ agent: string; approve: boolean; reason: string }>;

  it("control: without a scenario the $2 payment takes the fast path and is paid", async () => {
    const to = fresh();
    const res = await post(payments, await paymentBody(env, { to, amount: USDC(2) }));
    expect(res.body).toMatchObject({ status: "approved" });
    expect((await env.store.getRequest(res.body.requestId))!.agents).toBeUndefined();
    expect(await balanceOf(env, usdc, to)).toBe(USDC(2));
  });

  it("ai-approve: scanned, 3 of 3 approve, executed → 200 approved, and the recipient is paid", async () => {
    const { to, res } = await pay("ai-approve");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect((await verdictsOf(res.body.requestId)).map((v) => v.approve)).toEqual([true, true, true]);
    expect(await balanceOf(env, usdc, to)).toBe(USDC(2));
  });

  it("ai-no-consensus: a $2 payment is scanned, 1 of 3 approve → 200 pending_review, nothing moves", async () => {
    const { to, vaultBefore, res } = await pay("ai-no-consensus");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "pending_review", pollUrl: `/v1/payments/${res.body.requestId}` });
    expect((await verdictsOf(res.body.requestId)).filter((v) => v.approve).map((v) => v.agent)).toEqual(["safety"]);
    expect((await env.store.getRequest(res.body.requestId))!.heldBecause).toMatch(/did not reach consensus \(scanned because of metadata\.scenario=ai-no-consensus\)/);
    await nothingMoved(to, vaultBefore);
  });

  it("ai-reject: 0 of 3 approve, the verdicts say the agents refuse → 200 pending_review, nothing moves", async () => {
    const { to, vaultBefore, res } = await pay("ai-reject");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("pending_review");
    const verdicts = await verdictsOf(res.body.requestId);
    expect(verdicts.map((v) => v.approve)).toEqual([false, false, false]);
    for (const verdict of verdicts) expect(verdict.reason).toMatch(/refuses.*metadata\.scenario=ai-reject/);
    await nothingMoved(to, vaultBefore);
  });

  it("ai-timeout: 500 AI_VERIFICATION_TIMEOUT, nothing executed", async () => {
    const { to, vaultBefore, res } = await pay("ai-timeout");
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: "AI_VERIFICATION_TIMEOUT" });
    await nothingMoved(to, vaultBefore);
  });

  it("simulation-failed: 422 SIMULATION_FAILED with the forced reason, nothing moves", async () => {
    const { to, vaultBefore, res } = await pay("simulation-failed");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: "Transaction simulation failed", code: "SIMULATION_FAILED", details: "forced by metadata.scenario" });
    await nothingMoved(to, vaultBefore);
  });

  it("rpc-error-once: the first submission is RPC_ERROR (retryable) and stores and reserves nothing; the retry with the same key is approved, paid once", async () => {
    // A daily limit of $3: had the failed first try reserved its $2, the retry would exceed it.
    const bot = privateKeyToAccount(generatePrivateKey());
    await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, spendingLimits: [{ amount: USDC(3), maxCount: 0n, windowSeconds: 86_400n }] }]);
    // The forced failure is remembered by the process that forced it (scenarios.ts FailedOnce, in
    // memory, as a flaky node of that process would be): in the cluster run the first try and the
    // retry go to one instance directly, and the replay below goes through the proxy.
    const instance = `${env.instanceUrls[0]}/v1/payments`;
    const { to, body, vaultBefore, res } = await pay("rpc-error-once", { signer: bot, url: instance });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: "RPC_ERROR", details: expect.stringMatching(/^forced by metadata\.scenario=rpc-error-once; retry with the same idempotencyKey$/) });
    await nothingMoved(to, vaultBefore);
    const retry = await post(instance, body);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
    expect(await balanceOf(env, usdc, to)).toBe(USDC(2));
    // The stored outcome is the retry's: a third send replays it byte for byte.
    expect((await post(payments, body)).text).toBe(retry.text);
    expect(await balanceOf(env, usdc, to)).toBe(USDC(2));
  });

  it("rate-limited[:N]: 429 RATE_LIMITED with Retry-After N (default 1), nothing moves", async () => {
    for (const [scenario, seconds] of [["rate-limited", "1"], ["rate-limited:7", "7"]] as const) {
      const { to, vaultBefore, res } = await pay(scenario);
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe(seconds);
      expect(res.body).toMatchObject({ code: "RATE_LIMITED", details: "forced by metadata.scenario" });
      await nothingMoved(to, vaultBefore);
    }
  });

  it("review-approve[:N]: 200 pending_review, then the review approves itself → executed → approved, and the recipient is paid", async () => {
    const { to, vaultBefore, res } = await pay("review-approve:1");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "pending_review", pollUrl: `/v1/payments/${res.body.requestId}` });
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    const final = await settled(res.body.requestId);
    expect(final.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await balanceOf(env, usdc, to)).toBe(USDC(2));
    expect(await balanceOf(env, usdc, env.vault)).toBe(vaultBefore - USDC(2));
  });

  it("review-reject[:N]: 200 pending_review, then the review rejects itself → rejected OWNER_REJECTED, nothing moves", async () => {
    const { to, vaultBefore, res } = await pay("review-reject:1");
    expect(res.body.status).toBe("pending_review");
    const final = await settled(res.body.requestId);
    expect(final.body).toMatchObject({ status: "rejected", errorCode: "OWNER_REJECTED" });
    await nothingMoved(to, vaultBefore);
  });

  it("review-approve on a bot the owner must review: held for the owner, and the review does not decide itself; nothing moves", async () => {
    const { to, vaultBefore, res } = await pay("review-approve:1", { signer: env.reviewedBot });
    expect(res.body.status).toBe("pending_review");
    expect((await env.store.getRequest(res.body.requestId))!.heldBecause).toMatch(/does not decide a review the owner must make$/);
    expect((await settled(res.body.requestId, 2_500)).body.status).toBe("pending_review");
    await nothingMoved(to, vaultBefore);
  });

  it("an unknown value is 400 INVALID_REQUEST naming the valid ones", async () => {
    const { to, vaultBefore, res } = await pay("review-maybe");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_REQUEST", details: expect.stringContaining("ai-approve, ai-no-consensus, ai-reject, ai-timeout, simulation-failed, rpc-error-once, rate-limited[:N], review-approve[:N], review-reject[:N]") });
    await nothingMoved(to, vaultBefore);
  });

  // Last: it hands the vault to an owner whose key is no development key.
  it("review-approve is refused with 400 INVALID_REQUEST when the vault's owner is not a development account (the relayer may not sign for it)", async () => {
    const newKey = generatePrivateKey();
    const newOwner = privateKeyToAccount(newKey);
    await ownerCall(env, "transferOwnership", [newOwner.address]);
    // Two-step: the vault is the new owner's once it accepts.
    await env.clients.publicClient.request({ method: "hardhat_setBalance" as never, params: [newOwner.address, "0xde0b6b3a7640000"] as never });
    await createSender(env.clients, newKey).call(env.vault, "ServiceVault", "acceptOwnership", []);
    const { to, vaultBefore, res } = await pay("review-approve");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_REQUEST", details: expect.stringMatching(/review-approve needs the owner's ReviewApproval.*is not$/) });
    await nothingMoved(to, vaultBefore);
    // Rejecting needs no signature: review-reject still works.
    const rejected = await pay("review-reject:0");
    expect(rejected.res.body.status).toBe("pending_review");
    expect((await settled(rejected.res.body.requestId)).body).toMatchObject({ status: "rejected", errorCode: "OWNER_REJECTED" });
  });
});

describe("a self-deciding review across a relayer restart", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(() => env?.close());

  it("the relayer stops before the timer fires: the next start re-arms it from the ledger, and the review approves itself (once)", async () => {
    const to = fresh();
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(2) }, { metadata: { scenario: "review-approve:2" } }));
    expect(res.body.status).toBe("pending_review");
    await env.stopRelayers();
    await new Promise((r) => setTimeout(r, 2_500)); // past the timer: nobody decided it meanwhile
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);

    await env.startRelayers();
    let status = "pending_review";
    for (let i = 0; i < 75 && status === "pending_review"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await get(`${env.url}/v1/payments/${res.body.requestId}`)).body.status;
    }
    expect(status).toBe("approved");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(2));
  }, 60_000);
});
