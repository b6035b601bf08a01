// The spend windows bind on-chain. Attack: a leaked relayer key together with the bot keys sends
// payments straight to the vault, as much as the vault lets through, again and again as the devnet's
// time moves on. Before, the windows were the relayer's alone and $24 moved against a $10 daily
// limit. Now each limit of X per W is also a token bucket in the vault, and over any span T at most
// X + X·T/W moves: read from the recipients' balances. And honest traffic through the relayer, in
// bursts exactly at the limit, never reverts on a bucket: every payment of each burst is approved
// and its transaction has no failed item.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAbiItem, toEventSelector, type AbiEvent, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { balanceOf, fresh, ownerCall, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";
import { advanceChain, newBot, readOf, usd } from "../relayer/harness-extra.ts";
import { asRelayer } from "./support/leaked-relayer.ts";

const DAY = 86_400n;
const HOUR = 3_600n;
type Bucket = readonly [bigint, bigint, bigint, bigint];

describe("spend windows on-chain, against a leaked relayer key with the bots' keys", () => {
  let env: Env;
  let usdc: Address;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
  });
  afterAll(() => env?.close());

  const domain = () => env.manifest.domain as never;
  const now = async () => (await env.clients.publicClient.getBlock()).timestamp;
  const advance = (seconds: bigint) => advanceChain(env, seconds);
  const buckets = (bot: Address) => readOf<readonly [readonly Bucket[], readonly Bucket[], Bucket]>(env, env.vault, "ServiceVault", "spendBuckets", [bot]);

  /** The bot's payment of `amount` to `to`, forced on-chain by the relayer key; the block's timestamp when it executed. */
  async function force(bot: PrivateKeyAccount, to: Address, amount: bigint): Promise<{ ok: boolean; refusal: string; at: bigint }> {
    const intent: PaymentIntent = { bot: bot.address, to, token: usdc, amount, deadline: (await now()) + HOUR, ref: randomRef() };
    const attempt = await asRelayer(env, "executePayment", [intent, await signPaymentIntent(bot, domain(), intent)]);
    return { ok: attempt.status === "success", refusal: attempt.refusal, at: await now() };
  }

  /**
   * The attack: every `step` seconds for `steps` steps, pay as much as the vault would take (the
   * bucket's own view says how much; 10 cents more, more than the seconds between the read and the
   * block refill, is tried first and must revert on-chain). Returns
   * what moved and the span from the first payment to the last.
   */
  async function drain(bots: PrivateKeyAccount[], available: () => Promise<bigint>, step: bigint, steps: number) {
    const sink = fresh();
    let first: bigint | undefined;
    let last = 0n;
    for (let k = 0; k < steps; k++) {
      const bot = bots[k % bots.length]!;
      const room = await available();
      const over = await force(bot, sink, room + usd(1) / 10n);
      expect(over).toMatchObject({ ok: false, refusal: "ExceedsSpendWindow" });
      if (room > 0n) {
        const paid = await force(bot, sink, room);
        expect(paid.ok).toBe(true);
        first ??= paid.at;
        last = paid.at;
      }
      await advance(step);
    }
    return { moved: await balanceOf(env, usdc, sink), span: last - (first ?? last) };
  }

  it("a bot's daily limit of $10: over two days the attack moves at most 10 + 10·T/W, and one large payment none", async () => {
    const bot = await newBot(env, { spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: DAY }] });
    const sink = fresh();
    expect(await force(bot, sink, usd(24))).toMatchObject({ ok: false, refusal: "ExceedsSpendWindow" });
    expect(await balanceOf(env, usdc, sink)).toBe(0n);

    const { moved, span } = await drain([bot], async () => (await buckets(bot.address))[0][0]![2], 6n * HOUR, 9);
    const bound = usd(10) + (usd(10) * span) / DAY;
    expect(span).toBeGreaterThanOrEqual(2n * DAY);
    expect(moved).toBeLessThanOrEqual(bound);
    // The bucket is the bound, not far under it: the attack gets nearly all of it (a few seconds of refill short).
    expect(moved).toBeGreaterThan(bound - usd(1) / 10n);
  });

  it("a vault-wide velocity limit of $10 an hour, spent by two bots in turn: at most 10 + 10·T/W over T", async () => {
    await ownerCall(env, "setVaultSpendingLimits", [[{ amount: usd(10), maxCount: 0n, windowSeconds: HOUR }]]);
    try {
      const bots = [await newBot(env, { spendingLimits: [] }), await newBot(env, { spendingLimits: [] })];
      const { moved, span } = await drain(bots, async () => (await buckets(bots[0]!.address))[1][0]![2], 15n * 60n, 10);
      const bound = usd(10) + (usd(10) * span) / HOUR;
      expect(span).toBeGreaterThanOrEqual(2n * HOUR);
      expect(moved).toBeLessThanOrEqual(bound);
      expect(moved).toBeGreaterThan(bound - usd(1) / 10n);
    } finally {
      await ownerCall(env, "setVaultSpendingLimits", [[]]);
    }
  });

  describe("honest traffic through the relayer", () => {
    const vaultAbi = readArtifact("ServiceVault").abi;
    const failedTopic = toEventSelector(getAbiItem({ abi: vaultAbi, name: "PaymentFailed" }) as AbiEvent);

    /** `n` concurrent payments of `each` by `bot`: every one approved, paid, and no item of their transactions failed. */
    async function burst(bot: PrivateKeyAccount, n: number, each: bigint): Promise<void> {
      const payees = Array.from({ length: n }, () => fresh());
      const deadline = (await now()) + HOUR; // the devnet's time has moved on from the wall clock's
      const answers = await Promise.all(payees.map(async (to) => post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: each, deadline }, { signer: bot }))));
      expect(answers.map((a) => a.body.status ?? `${a.body.code}: ${a.body.details}`)).toEqual(payees.map(() => "approved"));
      for (const hash of new Set(answers.map((a) => a.body.txHash as Hex))) {
        const receipt = await env.clients.publicClient.getTransactionReceipt({ hash });
        expect(receipt.status).toBe("success");
        expect(receipt.logs.filter((l) => l.topics[0] === failedTopic)).toEqual([]);
      }
      for (const to of payees) expect(await balanceOf(env, usdc, to)).toBe(each);
    }

    it("bursts exactly at a $10 daily limit, a day apart, and at a $10-an-hour vault-wide limit, all execute", async () => {
      const bot = await newBot(env, { spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: DAY }] });
      await burst(bot, 5, usd(2));
      expect((await buckets(bot.address))[0][0]![2]).toBeLessThan(usd(1) / 100n);
      // One unit more is refused by the relayer (its window), not sent.
      const more = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to: fresh(), amount: usd(1), deadline: (await now()) + HOUR }, { signer: bot }));
      expect(more.body.code).toBe("EXCEEDS_DAILY_LIMIT");
      await advance(DAY);
      await burst(bot, 5, usd(2));

      // The vault-wide hour counts every bot's payments: an hour on, the first bot's are out of it.
      await advance(HOUR);
      await ownerCall(env, "setVaultSpendingLimits", [[{ amount: usd(10), maxCount: 0n, windowSeconds: HOUR }]]);
      try {
        const other = await newBot(env, { spendingLimits: [] });
        await burst(other, 4, 2_500_000n);
        await advance(HOUR);
        await burst(other, 10, usd(1));
      } finally {
        await ownerCall(env, "setVaultSpendingLimits", [[]]);
      }
    });
  });
});
