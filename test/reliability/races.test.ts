// Races against a real relayer on a real devnet. The chain changes exactly between the relayer's
// simulation and its broadcast (the vault paused, the bot removed, the balance drained): the
// request ends `rejected` with the on-chain reason, nothing is retried and the relayer's nonces
// stay contiguous, for a single payment and for every payment of a batch. Concurrent requests never
// spend past a vault-level or a velocity limit, and one intent under ten keys executes once.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Address } from "viem";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent, VaultDomain } from "../../packages/client/src/intent-types.ts";
import type { PrivateKeyAccount } from "viem/accounts";
import { balanceOf, fresh, get, ownerCall, paymentBody, post, type Env } from "../relayer/harness.ts";
import { deployVault, newBot, usd } from "../relayer/harness-extra.ts";
import { EXECUTE_PAYMENT_BATCH, startTappedEnv, type Tap } from "./support/race-env.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe("races", () => {
  let env: Env & { tap: Tap };
  let payments: string;

  beforeAll(async () => {
    const open = { capacity: 100_000, refillPerSecond: 100_000 };
    env = await startTappedEnv({ rateLimits: { bot: open, vault: open, client: open } });
    payments = `${env.url}/v1/payments`;
  });
  afterAll(() => env?.close());

  /** Nonces of the relayer's broadcasts from index `from` on: each one more than the one before. */
  function expectContiguousNonces(from: number): void {
    const nonces = env.tap.broadcasts.slice(Math.max(0, from - 1)).map((b) => b.nonce);
    for (let i = 1; i < nonces.length; i++) expect(nonces[i], `nonces ${nonces.join(", ")}`).toBe(nonces[i - 1]! + 1);
  }

  /** The request is rejected for good: its status reads rejected and nothing of it is still in flight. */
  async function expectSettledRejected(requestId: string, reason: RegExp): Promise<void> {
    const status = await get(`${payments}/${requestId}`);
    expect(status.body.status).toBe("rejected");
    expect(status.body.errorCode).toBe("EXECUTION_FAILED");
    expect(status.body.reason).toMatch(reason);
    expect((await env.relayer.store.listInFlight()).map((r) => r.id)).not.toContain(requestId);
  }

  describe("the chain changes between simulation and broadcast", () => {
    const scenarios: Array<{ name: string; setup: () => Promise<{ bot: PrivateKeyAccount; token: Address; action: () => Promise<unknown>; undo?: () => Promise<unknown> }>; reason: RegExp }> = [
      {
        name: "the owner pauses the vault",
        setup: async () => ({ bot: env.bot, token: env.token("USDC"), action: () => ownerCall(env, "pause"), undo: () => ownerCall(env, "unpause") }),
        reason: /VaultPaused/,
      },
      {
        name: "the owner removes the bot",
        setup: async () => {
          const bot = await newBot(env);
          return { bot, token: env.token("USDC"), action: () => ownerCall(env, "removeBot", [bot.address]) };
        },
        reason: /BotNotActive/,
      },
      {
        name: "the owner drains the vault's balance of the token",
        setup: async () => {
          const token = env.token("DAI");
          const held = await balanceOf(env, token, env.vault);
          return { bot: env.bot, token, action: () => ownerCall(env, "withdraw", [token, held, env.ownerAccount.address]) };
        },
        reason: /InsufficientBalance/,
      },
    ];

    for (const { name, setup, reason } of scenarios) {
      it(`${name}: rejected with the revert reason, sent once, nonces contiguous`, async () => {
        const { bot, token, action, undo } = await setup();
        let undone = false;
        try {
          const to = fresh();
          const amount = token === env.token("DAI") ? 10n ** 18n : USDC(1);
          const from = env.tap.broadcasts.length;
          env.tap.beforeNextBroadcast(action);
          const body = await paymentBody(env, { bot: bot.address, to, token, amount }, { signer: bot });
          const res = await post(payments, body);
          expect(res.status, res.text).toBe(200);
          expect(res.body.status).toBe("rejected");
          expect(res.body.errorCode).toBe("EXECUTION_FAILED");
          expect(res.body.reason).toMatch(reason);
          // The answer was stored with the rejection: the row and the key's replay hold its exact bytes.
          expect((await env.relayer.store.getRequest(res.body.requestId))?.response).toBe(res.text);
          const replay = await post(payments, body);
          expect(replay.status).toBe(200);
          expect(replay.text).toBe(res.text);
          expect(env.tap.broadcasts.length, "the replay sends nothing").toBe(from + 1);
          expect((await env.relayer.store.getRequest(res.body.requestId))?.txHash).toBe(env.tap.broadcasts[from]?.hash);
          expect(env.tap.broadcasts.length, "one transaction for the request, no retry").toBe(from + 1);
          expect(await balanceOf(env, token, to)).toBe(0n);
          await expectSettledRejected(res.body.requestId, reason);
          // The next request uses the next nonce: nothing was skipped, nothing re-sent.
          await undo?.();
          undone = true;
          const next = await post(payments, await paymentBody(env, { to: fresh() }));
          expect(next.body.status).toBe("approved");
          expect(env.tap.broadcasts.length).toBe(from + 2);
          expectContiguousNonces(from);
        } finally {
          // A failure must not leave the vault paused for the next tests (the undo reverts if the action never ran).
          if (!undone) await undo?.().catch(() => {});
        }
      });
    }

    it("the owner pauses the vault while a batch is queued: every payment of the batch is rejected with the reason", async () => {
      const count = 6;
      const from = env.tap.broadcasts.length;
      const recipients = Array.from({ length: count }, () => fresh());
      const bodies = await Promise.all(recipients.map((to) => paymentBody(env, { to })));
      const held = env.tap.holdNextBroadcast();
      let paused = false;
      try {
        // The first payment goes alone; its transaction is held at the node's door. The relayer
        // groups what queued behind it only once the node has taken it, so the other five, all in
        // its queue by then, go out together as one executePaymentBatch after the pause is mined.
        const first = post(payments, bodies[0]!);
        await held.reached;
        const rest = bodies.slice(1).map((body) => post(payments, body));
        await vi.waitUntil(() => env.relayer.queuedJobs === count - 1, { timeout: 30_000, interval: 2 });
        held.release(async () => {
          await ownerCall(env, "pause");
          paused = true;
        });
        const answers = await Promise.all([first, ...rest]);
        const sent = env.tap.broadcasts.slice(from);
        expect(sent.map((b) => b.selector)).toContain(EXECUTE_PAYMENT_BATCH);
        expect(sent.length, "one transaction per group, no retry").toBe(2);
        // Every payment went out exactly once: no intent broadcast twice, none left out.
        const refs = sent.flatMap((b) => b.paymentRefs.map((ref) => ref.toLowerCase()));
        expect(refs.sort()).toEqual(bodies.map((body) => body.ref.toLowerCase()).sort());
        for (const answer of answers) {
          expect(answer.status, answer.text).toBe(200);
          expect(answer.body.status).toBe("rejected");
          expect(answer.body.errorCode).toBe("EXECUTION_FAILED");
          expect(answer.body.reason).toMatch(/VaultPaused/);
          await expectSettledRejected(answer.body.requestId, /VaultPaused/);
        }
        for (const to of recipients) expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
        await ownerCall(env, "unpause");
        paused = false;
        expect((await post(payments, await paymentBody(env, { to: fresh() }))).body.status).toBe("approved");
        expect(env.tap.broadcasts.length).toBe(from + 3);
        expectContiguousNonces(from);
      } finally {
        // A failure here must not leave the relayer's broadcast held or the vault paused for the next tests.
        held.release(async () => {});
        if (paused) await ownerCall(env, "unpause");
      }
    });
  });

  describe("concurrent spending never passes a limit", () => {
    // payments.test.ts covers a bot's daily limit; these are the vault-level and velocity variants.
    it("20 concurrent payments by two bots, each 10% of the vault's daily limit: exactly 10 pass", async () => {
      const vault = await deployVault(env, env.owner);
      await ownerCall(env, "withdraw", [env.token("USDC"), USDC(1_000), vault]);
      const bots = [await newBotOn(vault), await newBotOn(vault)];
      await env.owner.call(vault, "ServiceVault", "setVaultSpendingLimits", [[{ amount: usd(100), maxCount: 0n, windowSeconds: 86_400n }]]);
      const domain = { ...(env.manifest.domain as VaultDomain), verifyingContract: vault };
      const to = fresh();
      const bodies = await Promise.all(Array.from({ length: 20 }, (_, i) => signedPayment(domain, bots[i % 2]!, to, USDC(10))));
      const answers = await Promise.all(bodies.map((b) => post(payments, b)));
      expect(answers.filter((a) => a.body.status === "approved").length).toBe(10);
      expect(answers.filter((a) => a.body.code === "EXCEEDS_DAILY_LIMIT").length).toBe(10);
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(100));
      expect(await balanceOf(env, env.token("USDC"), vault)).toBe(USDC(900));
    });

    it("20 concurrent payments, each 10% of a bot's hourly (velocity) limit: exactly 10 pass", async () => {
      const bot = await newBot(env, { spendingLimits: [{ amount: usd(100), maxCount: 0n, windowSeconds: 3_600n }] });
      const to = fresh();
      const bodies = await Promise.all(Array.from({ length: 20 }, () => paymentBody(env, { bot: bot.address, to, amount: USDC(10) }, { signer: bot })));
      const answers = await Promise.all(bodies.map((b) => post(payments, b)));
      expect(answers.filter((a) => a.body.status === "approved").length).toBe(10);
      expect(answers.filter((a) => a.body.code === "EXCEEDS_VELOCITY_LIMIT").length).toBe(10);
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(100));
    });

    /** A bot with the seed's permissive limits on `vault` (owned by the env's owner). */
    async function newBotOn(vault: Address): Promise<PrivateKeyAccount> {
      const { generatePrivateKey, privateKeyToAccount } = await import("viem/accounts");
      const { PERMISSIVE_LIMITS } = await import("../../src/devnet/seed.ts");
      const bot = privateKeyToAccount(generatePrivateKey());
      await env.owner.call(vault, "ServiceVault", "addBotWithPolicy", [bot.address, PERMISSIVE_LIMITS]);
      return bot;
    }

    async function signedPayment(domain: VaultDomain, bot: PrivateKeyAccount, to: Address, amount: bigint) {
      const intent: PaymentIntent = { bot: bot.address, to, token: env.token("USDC"), amount, deadline: defaultDeadline(), ref: randomRef() };
      return paymentRequestBody(domain, intent, await signPaymentIntent(bot, domain, intent), { idempotencyKey: crypto.randomUUID() });
    }
  });

  it("one signed intent under ten idempotency keys at once executes once; the other nine are DUPLICATE_INTENT", async () => {
    // payments.test.ts covers two keys; ten at once press the duplicate check harder.
    const to = fresh();
    const from = env.tap.broadcasts.length;
    const body = await paymentBody(env, { to, amount: USDC(3) });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(payments, { ...body, idempotencyKey: crypto.randomUUID() })));
    expect(answers.filter((a) => a.status === 200 && a.body.status === "approved").length).toBe(1);
    expect(answers.filter((a) => a.status === 409 && a.body.code === "DUPLICATE_INTENT").length).toBe(9);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(3));
    expect(env.tap.broadcasts.length).toBe(from + 1);
  });
});
