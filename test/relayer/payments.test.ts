// POST /v1/payments end to end: a real devnet, a real relayer over HTTP, payments signed as a bot
// signs them. Every path of SPEC.md's state table and the payment error codes, each for real.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { zeroAddress, type Address } from "viem";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import type { BotConfigParams } from "../../src/chain/vault-config.ts";
import { balanceOf, fresh, get, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";

const usd = (n: number) => BigInt(n) * 1_000_000n;
const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));

describe("POST /v1/payments", () => {
  let env: Env;
  let payments: string;

  beforeAll(async () => {
    env = await startEnv();
    payments = `${env.url}/v1/payments`;
  });
  afterAll(() => env?.close());

  /** A new bot on the vault with `config` (permissive by default). */
  async function newBot(config: Partial<BotConfigParams> = {}) {
    const bot = privateKeyToAccount(generatePrivateKey());
    await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, ...config }]);
    return bot;
  }

  it("fast path: approved with the transaction hash, and the recipient is paid on-chain", async () => {
    const to = fresh();
    const res = await post(payments, await paymentBody(env, { to, amount: USDC(5) }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "approved", requestId: expect.stringMatching(/^req_/), txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(5));
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: res.body.txHash });
    expect(receipt.status).toBe("success");
    const status = await get(`${payments}/${res.body.requestId}`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ requestId: res.body.requestId, status: "approved", txHash: res.body.txHash });
  });

  it("mandatory human review: pending_review with a pollUrl, nothing paid (no simulationResult: the vault runs it only with the owner's approval, and it is simulated then)", async () => {
    const to = fresh();
    const res = await post(payments, await paymentBody(env, { to }, { signer: env.reviewedBot }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requestId: expect.any(String), status: "pending_review", pollUrl: `/v1/payments/${res.body.requestId}` });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    expect((await get(`${env.url}${res.body.pollUrl}`)).body.status).toBe("pending_review");
  });

  it("AI scan, 2 of 3 approve: approved with txHash and estimatedResolutionMs", async () => {
    const bot = await newBot({ aiTriggerThreshold: usd(10) });
    const res = await post(payments, await paymentBody(env, { bot: bot.address, amount: USDC(20), to: fresh() }, { signer: bot, metadata: { scenario: "ai-approve" } }));
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.any(String), estimatedResolutionMs: expect.any(Number) });
  });

  it("AI scan by the default rules: an ordinary invoice above the threshold is approved", async () => {
    const bot = await newBot({ aiTriggerThreshold: usd(10) });
    const res = await post(payments, await paymentBody(env, { bot: bot.address, amount: USDC(20), to: fresh() }, { signer: bot, memo: "invoice 42 for October hosting" }));
    expect(res.status).toBe(200);
    expect(["approved", "pending_review"]).toContain(res.body.status);
  });

  it("AI scan without consensus: pending_review with a pollUrl", async () => {
    const bot = await newBot({ requireAiVerification: true });
    const res = await post(payments, await paymentBody(env, { bot: bot.address }, { signer: bot, metadata: { scenario: "ai-no-consensus" } }));
    expect(res.body).toMatchObject({ status: "pending_review", pollUrl: expect.stringMatching(/^\/v1\/payments\/req_/) });
    expect(res.body.estimatedResolutionMs).toBeUndefined();
  });

  it("AI agents that do not answer in time: 500 AI_VERIFICATION_TIMEOUT, nothing executed, the key can be retried", async () => {
    const bot = await newBot({ requireAiVerification: true });
    const to = fresh();
    const body = await paymentBody(env, { bot: bot.address, to }, { signer: bot, metadata: { scenario: "ai-timeout" } });
    const res = await post(payments, body);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: "AI_VERIFICATION_TIMEOUT" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    expect((await post(payments, body)).body.code).toBe("AI_VERIFICATION_TIMEOUT");
  });

  it("an unknown devnet scenario is a 400 naming metadata.scenario", async () => {
    const res = await post(payments, await paymentBody(env, {}, { metadata: { scenario: "ai-maybe" } }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_REQUEST", details: expect.stringMatching(/metadata\.scenario/) });
  });

  describe("idempotency", () => {
    it("replays the original response byte for byte and does not execute again", async () => {
      const to = fresh();
      const body = await paymentBody(env, { to, amount: USDC(1) });
      const first = await post(payments, body);
      const again = await post(payments, body);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
    });

    it("the Idempotency-Key header works, and the body field wins over it", async () => {
      const body = await paymentBody(env, { to: fresh() });
      const { idempotencyKey, ...withoutKey } = body;
      const viaHeader = await post(payments, withoutKey, { "idempotency-key": idempotencyKey });
      expect(viaHeader.body.status).toBe("approved");
      const bodyWins = await post(payments, body, { "idempotency-key": crypto.randomUUID() });
      expect(bodyWins.text).toBe(viaHeader.text);
    });

    it("the same key with different intent data is 409 IDEMPOTENCY_CONFLICT without the cached response", async () => {
      const body = await paymentBody(env, { to: fresh() });
      await post(payments, body);
      const other = await paymentBody(env, { to: fresh() }, { idempotencyKey: body.idempotencyKey });
      const res = await post(payments, other);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.any(String), code: "IDEMPOTENCY_CONFLICT", details: expect.any(String) });
    });

    it("20 concurrent requests with one key execute once and all get the same answer", async () => {
      const to = fresh();
      const body = await paymentBody(env, { to, amount: USDC(2) });
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(payments, body)));
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
      expect(new Set(answers.map((a) => a.text)).size).toBe(1);
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(2));
    });

    it("one signed intent under two keys at once executes once (the other is DUPLICATE_INTENT)", async () => {
      const to = fresh();
      const body = await paymentBody(env, { to, amount: USDC(3) });
      const [a, b] = await Promise.all([post(payments, body), post(payments, { ...body, idempotencyKey: crypto.randomUUID() })]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      expect([a.body.code, b.body.code]).toContain("DUPLICATE_INTENT");
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(3));
    });
  });

  describe("refusals", () => {
    it("400 INVALID_SIGNATURE when the signer is not bot", async () => {
      const body = await paymentBody(env);
      const forged = await paymentBody(env, { bot: env.bot.address }, { signer: privateKeyToAccount(generatePrivateKey()) });
      const res = await post(payments, { ...body, signature: forged.signature });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("INVALID_SIGNATURE");
    });

    it("400 DEADLINE_EXPIRED", async () => {
      const res = await post(payments, await paymentBody(env, { deadline: BigInt(Math.floor(Date.now() / 1000) - 5) }));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("DEADLINE_EXPIRED");
    });

    it("400 INVALID_CHAIN_ID for a chain the relayer does not serve", async () => {
      const res = await post(payments, { ...(await paymentBody(env)), chainId: 8453 });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("INVALID_CHAIN_ID");
    });

    it("404 VAULT_NOT_FOUND for an address that is not a vault", async () => {
      const res = await post(payments, { ...(await paymentBody(env)), vaultAddress: fresh() });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("VAULT_NOT_FOUND");
    });

    it("403 BOT_NOT_ACTIVE for a bot the vault does not know", async () => {
      const stranger = privateKeyToAccount(generatePrivateKey());
      const res = await post(payments, await paymentBody(env, { bot: stranger.address }, { signer: stranger }));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("BOT_NOT_ACTIVE");
    });

    it("403 EXCEEDS_PER_TX_LIMIT above the bot's maxPerTxAmount", async () => {
      const bot = await newBot({ maxPerTxAmount: usd(10) });
      const res = await post(payments, await paymentBody(env, { bot: bot.address, amount: USDC(11) }, { signer: bot }));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_PER_TX_LIMIT");
    });

    it("403 EXCEEDS_DAILY_LIMIT and EXCEEDS_VELOCITY_LIMIT from the rolling windows", async () => {
      const daily = await newBot({ spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: 86_400n }] });
      expect((await post(payments, await paymentBody(env, { bot: daily.address, amount: USDC(6) }, { signer: daily }))).body.status).toBe("approved");
      const over = await post(payments, await paymentBody(env, { bot: daily.address, amount: USDC(6) }, { signer: daily }));
      expect(over.status).toBe(403);
      expect(over.body.code).toBe("EXCEEDS_DAILY_LIMIT");
      const hourly = await newBot({ spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: 3_600n }] });
      const res = await post(payments, await paymentBody(env, { bot: hourly.address, amount: USDC(11) }, { signer: hourly }));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_VELOCITY_LIMIT");
    });

    it("20 concurrent payments each worth 10% of the remaining daily limit never exceed it", async () => {
      const bot = await newBot({ spendingLimits: [{ amount: usd(100), maxCount: 0n, windowSeconds: 86_400n }] });
      const to = fresh();
      const bodies = await Promise.all(Array.from({ length: 20 }, () => paymentBody(env, { bot: bot.address, amount: USDC(10), to }, { signer: bot })));
      const answers = await Promise.all(bodies.map((b) => post(payments, b)));
      const approved = answers.filter((a) => a.body.status === "approved").length;
      expect(approved).toBe(10);
      expect(answers.filter((a) => a.body.code === "EXCEEDS_DAILY_LIMIT").length).toBe(10);
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(100));
    });

    it("a velocity burst (over a window's maxCount) is scanned, not refused", async () => {
      const bot = await newBot({ spendingLimits: [{ amount: 0n, maxCount: 1n, windowSeconds: 3_600n }] });
      await post(payments, await paymentBody(env, { bot: bot.address }, { signer: bot }));
      const res = await post(payments, await paymentBody(env, { bot: bot.address }, { signer: bot, metadata: { scenario: "ai-no-consensus" } }));
      expect(res.body.status).toBe("pending_review");
    });

    it("403 DESTINATION_NOT_ALLOWED for a blacklisted or non-whitelisted recipient", async () => {
      const bad = fresh();
      await ownerCall(env, "addGlobalBlacklist", [bad]);
      const res = await post(payments, await paymentBody(env, { to: bad }));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: "DESTINATION_NOT_ALLOWED", details: expect.stringMatching(/blacklist/) });
      const bot = await newBot();
      const allowed = fresh();
      await ownerCall(env, "addBotDestination", [bot.address, allowed]);
      const off = await post(payments, await paymentBody(env, { bot: bot.address, to: fresh() }, { signer: bot }));
      expect(off.body.code).toBe("DESTINATION_NOT_ALLOWED");
      const on = await post(payments, await paymentBody(env, { bot: bot.address, to: allowed }, { signer: bot }));
      expect(on.body.status).toBe("approved");
    });

    it("409 DUPLICATE_INTENT for an intent already executed on-chain", async () => {
      const body = await paymentBody(env);
      expect((await post(payments, body)).body.status).toBe("approved");
      const res = await post(payments, { ...body, idempotencyKey: crypto.randomUUID() });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("DUPLICATE_INTENT");
    });

    it("an intent held for review, re-sent under a new key, is 409 DUPLICATE_INTENT even where a later check would now fail it (simulation, policy): §7 puts the ledger's replay first", async () => {
      const bot = await newBot({ requireHumanReview: true });
      const to = fresh();
      const body = await paymentBody(env, { bot: bot.address, to }, { signer: bot });
      expect((await post(payments, body)).body.status).toBe("pending_review");
      const simulationFails = await post(payments, { ...body, idempotencyKey: crypto.randomUUID(), metadata: { scenario: "simulation-failed" } });
      expect(simulationFails.status).toBe(409);
      expect(simulationFails.body.code).toBe("DUPLICATE_INTENT");
      // The bot may now pay another destination only: a new intent to `to` fails the policy.
      await ownerCall(env, "addBotDestination", [bot.address, fresh()]);
      const fresher = await post(payments, await paymentBody(env, { bot: bot.address, to }, { signer: bot }));
      expect(fresher.body.code).toBe("DESTINATION_NOT_ALLOWED");
      const policyFails = await post(payments, { ...body, idempotencyKey: crypto.randomUUID() });
      expect(policyFails.status).toBe(409);
      expect(policyFails.body.code).toBe("DUPLICATE_INTENT");
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    });

    it("422 INSUFFICIENT_BALANCE when the vault holds less than the amount", async () => {
      const bot = await newBot({ maxPerTxAmount: 0n, spendingLimits: [] });
      const res = await post(payments, await paymentBody(env, { bot: bot.address, amount: 10n ** 30n }, { signer: bot }));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("INSUFFICIENT_BALANCE");
    });

    it("422 SIMULATION_FAILED with the revert reason when the call would revert (ETH to a contract that refuses it)", async () => {
      const before = await env.clients.publicClient.getBalance({ address: env.vault });
      const res = await post(payments, await paymentBody(env, { token: zeroAddress, amount: 1000n, to: env.manifest.contracts.nft as Address }));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: "SIMULATION_FAILED", details: expect.any(String) });
      expect(await env.clients.publicClient.getBalance({ address: env.vault })).toBe(before);
    });

    it("403 VAULT_PAUSED while the owner has paused the vault", async () => {
      await ownerCall(env, "pause");
      try {
        const res = await post(payments, await paymentBody(env));
        expect(res.status).toBe(403);
        expect(res.body.code).toBe("VAULT_PAUSED");
      } finally {
        await ownerCall(env, "unpause");
      }
    });

    it("404 NOT_FOUND for an unknown request id", async () => {
      const res = await get(`${payments}/req_doesnotexist`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    });
  });
});
