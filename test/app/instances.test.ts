// Several instances, one API: two `relay serve --database-url` instances on one PostgreSQL database
// and one devnet chain. Each signs with its own relayer key here (key leases let them share one:
// instance-leases.test.ts). Whatever instance a request lands on, the ledger, rate limits, spend
// windows, SIWE nonces and owner sessions are the same: payments execute once each, a bot gets no
// more than its rate limit and a vault no more than its daily limit by spreading its requests, and
// an owner signed in on one instance decides a review on the other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { buildSiweMessage, siweTarget } from "../../packages/client/src/siwe-message.ts";
import { signReviewApproval } from "../../packages/client/src/sign.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import type { BotConfigParams } from "../../src/chain/vault-config.ts";
import { balanceOf, fresh, get, ownerCall, paymentBody, post, type Env } from "../relayer/harness.ts";
import { startInstances, type Instances } from "./instances-harness.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
const DAY = 86_400n;
/** Every bot's bucket: 8 requests, refilled too slowly to matter during the test. */
const BOT_BURST = 8;

describe("two instances on one database and one chain", () => {
  let cluster: Instances;
  let env: Env;
  let urls: string[];

  beforeAll(async () => {
    cluster = await startInstances({
      count: 2,
      // Keys #6 and #7 of the test mnemonic: funded on the devnet, used by no other role.
      relayerKeys: (i) => [devKeyPair(6 + i).privateKey as Hex],
      config: { rateLimits: { bot: { capacity: BOT_BURST, refillPerSecond: 0.001 }, vault: { capacity: 1000, refillPerSecond: 100 }, client: { capacity: 10_000, refillPerSecond: 1000 } } },
    });
    env = cluster.env;
    urls = cluster.relayers.map((r) => r.url);
  }, 120_000);
  afterAll(() => cluster?.close());

  async function newBot(config: Partial<BotConfigParams> = {}) {
    const bot = privateKeyToAccount(generatePrivateKey());
    await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, ...config }]);
    return bot;
  }

  it("a stream of payments split across the instances: each executes exactly once, on both keys", async () => {
    const bots = await Promise.all([newBot(), newBot()]);
    const sends = Array.from({ length: 12 }, (_, i) => ({ bot: bots[i % 2]!, to: fresh(), url: urls[Math.floor(i / 2) % 2]! }));
    const answers = await Promise.all(
      sends.map(async ({ bot, to, url }) => post(`${url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(1) }, { signer: bot }))),
    );
    for (const answer of answers) expect(answer.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    for (const { to } of sends) expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
    // Every request is known to both instances.
    for (const answer of answers) {
      for (const url of urls) expect((await get(`${url}/v1/payments/${answer.body.requestId}`)).body.status).toBe("approved");
    }
    const senders = new Set<string>();
    for (const answer of answers) {
      const tx = await env.clients.publicClient.getTransaction({ hash: answer.body.txHash });
      senders.add(tx.from.toLowerCase());
    }
    expect(senders).toEqual(new Set([0, 1].map((i) => devKeyPair(6 + i).address.toLowerCase())));
  });

  it("a same-key retry on the other instance gets the first answer, byte for byte, whether the first run is under way or done; one transaction", async () => {
    const bot = await newBot();
    const to = fresh();
    const body = await paymentBody(env, { bot: bot.address, to, amount: USDC(3) }, { signer: bot });
    const [first, concurrent] = await Promise.all([post(`${urls[0]}/v1/payments`, body), post(`${urls[1]}/v1/payments`, body)]);
    expect(first.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    expect(concurrent.status).toBe(200);
    expect(concurrent.text).toBe(first.text);
    const later = await post(`${urls[1]}/v1/payments`, body);
    expect(later.text).toBe(first.text);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(3));
    // The same key with different data, on either instance: 409, nothing more paid.
    const other = await paymentBody(env, { bot: bot.address, to, amount: USDC(4) }, { signer: bot, idempotencyKey: body.idempotencyKey as string });
    for (const url of urls) {
      const refused = await post(`${url}/v1/payments`, other);
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("IDEMPOTENCY_CONFLICT");
    }
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(3));
  });

  it("a same-key retry landing on the other instance while the first run is still checking waits for its answer", async () => {
    // Many same-key copies at once over both instances: one run, one answer for all.
    const bot = await newBot();
    const to = fresh();
    const body = await paymentBody(env, { bot: bot.address, to, amount: USDC(1) }, { signer: bot });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(`${urls[i % 2]}/v1/payments`, body)));
    expect(answers[0]!.body.status).toBe("approved");
    for (const answer of answers) expect(answer.text).toBe(answers[0]!.text);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
  });

  it("a bot spreading its requests over the instances gets no more than its rate limit", async () => {
    const bot = await newBot();
    const answers = await Promise.all(
      Array.from({ length: BOT_BURST + 4 }, async (_, i) =>
        post(`${urls[i % 2]}/v1/payments`, await paymentBody(env, { bot: bot.address, to: fresh(), amount: USDC(1) }, { signer: bot }))),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(4);
    for (const a of limited) expect(a.body.code).toBe("RATE_LIMITED");
    expect(answers.filter((a) => a.body.status === "approved")).toHaveLength(BOT_BURST);
  });

  it("concurrent payments over the instances never pass the bot's daily limit together", async () => {
    const bot = await newBot({ spendingLimits: [{ amount: USDC(5), maxCount: 0n, windowSeconds: DAY }] });
    const recipients = Array.from({ length: BOT_BURST }, () => fresh());
    const answers = await Promise.all(
      recipients.map(async (to, i) => post(`${urls[i % 2]}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(1) }, { signer: bot }))),
    );
    expect(answers.filter((a) => a.body.status === "approved")).toHaveLength(5);
    let paid = 0n;
    for (const to of recipients) paid += await balanceOf(env, env.token("USDC"), to);
    expect(paid).toBe(USDC(5));
  });

  it("SIWE: a nonce from one instance signs in on the other, once; the session decides a review on the first", async () => {
    const [a, b] = urls as [string, string];
    const { nonce } = (await post(`${a}/v1/auth/nonce`, {})).body as { nonce: string };
    const message = buildSiweMessage({ ...siweTarget(b), address: env.ownerAccount.address, chainId: env.manifest.chainId, nonce, issuedAt: new Date() });
    const signature = await env.ownerAccount.signMessage({ message });
    const login = await post(`${b}/v1/auth/login`, { message, signature });
    expect(login.status).toBe(200);
    // The same nonce cannot sign in again on either instance.
    expect((await post(`${b}/v1/auth/login`, { message, signature })).status).toBe(401);
    const onA = buildSiweMessage({ ...siweTarget(a), address: env.ownerAccount.address, chainId: env.manifest.chainId, nonce, issuedAt: new Date() });
    const replay = await post(`${a}/v1/auth/login`, { message: onA, signature: await env.ownerAccount.signMessage({ message: onA }) });
    expect(replay.status).toBe(401);
    expect(replay.body.details).toMatch(/already used/);

    const auth = { authorization: `Bearer ${login.body.token}` };
    const to = fresh();
    const held = await post(`${b}/v1/payments`, await paymentBody(env, { to, amount: USDC(2) }, { signer: env.reviewedBot }));
    expect(held.body.status).toBe("pending_review");
    const id = held.body.requestId as string;
    const detail = await get(`${a}/v1/reviews/${id}`, auth);
    expect(detail.status).toBe(200);
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const approval = { deadline: deadline.toString(), signature: await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: detail.body.intentHash, deadline }) };
    const approved = await post(`${a}/v1/reviews/${id}/approve`, { approval }, auth);
    expect(approved.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(2));
    expect((await get(`${b}/v1/payments/${id}`)).body).toMatchObject({ status: "approved", txHash: approved.body.txHash });
    expect((await post(`${b}/v1/reviews/${id}/approve`, { approval }, auth)).body.code).toBe("REVIEW_ALREADY_DECIDED");
  });
});
