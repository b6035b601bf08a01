// Token buckets on a fake clock: refill, all-or-none, Retry-After rounding, unlimited scopes, the
// memory bound, and the 429 the client-address hook answers with.
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/server/app.ts";
import { RateLimiter, registerClientRateLimit } from "../../src/server/rate-limit.ts";
import {
  admitUnauthenticated,
  chargeFailure,
  defaultRateLimits,
  spendUnauthenticated,
  takeOrThrow,
  type RateLimitConfig,
} from "../../src/relayer/rate-limiter.ts";

const BOT = "0xAbCdEf0000000000000000000000000000000001";
const VAULT = "0x00000000000000000000000000000000000000Aa";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const config = (over: Partial<RateLimitConfig> = {}): RateLimitConfig => ({
  bot: { capacity: 2, refillPerSecond: 1 },
  vault: { capacity: 3, refillPerSecond: 0.5 },
  client: { capacity: 0, refillPerSecond: 0 },
  unauthenticated: { capacity: 0, refillPerSecond: 0 },
  reads: { capacity: 0, refillPerSecond: 0 },
  ...over,
});

describe("RateLimiter", () => {
  it("allows a burst of `capacity`, then refuses until a token is refilled", () => {
    const t = clock();
    const limiter = new RateLimiter(config(), t.now);
    const bot = [{ scope: "bot", key: BOT }] as const;
    expect(limiter.take(bot)).toEqual({ ok: true });
    expect(limiter.take(bot)).toEqual({ ok: true });
    expect(limiter.take(bot)).toEqual({ ok: false, scope: "bot", retryAfterSeconds: 1 });
    t.advance(999);
    expect(limiter.take(bot).ok).toBe(false);
    t.advance(1);
    expect(limiter.take(bot)).toEqual({ ok: true });
    expect(limiter.take(bot).ok).toBe(false);
  });

  it("never refills above capacity", () => {
    const t = clock();
    const limiter = new RateLimiter(config(), t.now);
    const bot = [{ scope: "bot", key: BOT }] as const;
    t.advance(3_600_000);
    expect(limiter.take(bot).ok).toBe(true);
    expect(limiter.take(bot).ok).toBe(true);
    expect(limiter.take(bot).ok).toBe(false);
  });

  it("takes from every named bucket or from none", () => {
    const t = clock();
    const limiter = new RateLimiter(config({ bot: { capacity: 1, refillPerSecond: 1 } }), t.now);
    const botA = { scope: "bot", key: BOT } as const;
    const botB = { scope: "bot", key: "0x0000000000000000000000000000000000000002" } as const;
    const vault = { scope: "vault", key: VAULT } as const;
    expect(limiter.take([botA, vault]).ok).toBe(true); // vault: 2 left
    // botA is empty, so the vault keeps its tokens: botB can still spend two of them.
    expect(limiter.take([botA, vault])).toEqual({ ok: false, scope: "bot", retryAfterSeconds: 1 });
    expect(limiter.take([botB, vault]).ok).toBe(true);
    t.advance(1000); // both bots refilled, vault at 1.5
    expect(limiter.take([botA, vault]).ok).toBe(true);
    expect(limiter.take([botB, vault])).toEqual({ ok: false, scope: "vault", retryAfterSeconds: 1 });
    expect(limiter.take([botB]).ok).toBe(true); // botB's token was not taken by the refused call
  });

  it("names the scope that must wait longest, rounded up to whole seconds", () => {
    const t = clock();
    const limiter = new RateLimiter(
      config({ bot: { capacity: 1, refillPerSecond: 2 }, vault: { capacity: 1, refillPerSecond: 0.4 } }),
      t.now,
    );
    const keys = [
      { scope: "bot", key: BOT },
      { scope: "vault", key: VAULT },
    ] as const;
    expect(limiter.take(keys).ok).toBe(true);
    // bot needs 0.5 s, vault 2.5 s: the answer is the vault's, rounded up.
    expect(limiter.take(keys)).toEqual({ ok: false, scope: "vault", retryAfterSeconds: 3 });
    t.advance(2000); // vault at 0.8: 0.5 s to go, still at least one second
    expect(limiter.take(keys)).toEqual({ ok: false, scope: "vault", retryAfterSeconds: 1 });
    t.advance(500);
    expect(limiter.take(keys).ok).toBe(true);
  });

  it("waiting Retry-After seconds is always enough", () => {
    const t = clock();
    const limiter = new RateLimiter(config({ bot: { capacity: 1, refillPerSecond: 0.3 } }), t.now);
    const bot = [{ scope: "bot", key: BOT }] as const;
    for (let i = 0; i < 20; i++) {
      const first = limiter.take(bot);
      if (first.ok) continue;
      t.advance(first.retryAfterSeconds * 1000);
      expect(limiter.take(bot).ok).toBe(true);
      t.advance(137);
    }
  });

  it("compares bot and vault addresses case-insensitively", () => {
    const limiter = new RateLimiter(config({ bot: { capacity: 1, refillPerSecond: 1 } }), clock().now);
    expect(limiter.take([{ scope: "bot", key: BOT }]).ok).toBe(true);
    expect(limiter.take([{ scope: "bot", key: BOT.toLowerCase() }]).ok).toBe(false);
    expect(limiter.take([{ scope: "bot", key: BOT.toUpperCase().replace("0X", "0x") }]).ok).toBe(false);
  });

  it("treats a capacity or refill of 0 as unlimited and keeps no bucket for it", () => {
    const limiter = new RateLimiter(
      config({ bot: { capacity: 0, refillPerSecond: 5 }, vault: { capacity: 5, refillPerSecond: 0 } }),
      clock().now,
    );
    for (let i = 0; i < 1000; i++) {
      expect(limiter.take([{ scope: "bot", key: BOT }, { scope: "vault", key: VAULT }, { scope: "client", key: "::1" }]).ok).toBe(true);
    }
    expect(limiter.size).toBe(0);
  });

  it("one key alone is taken, refused and left unlimited as it is among several", () => {
    const t = clock();
    const limiter = new RateLimiter(config({ bot: { capacity: 2, refillPerSecond: 0.5 }, vault: { capacity: 0, refillPerSecond: 1 } }), t.now);
    const bot = { scope: "bot", key: BOT } as const;
    expect(limiter.take([bot])).toEqual({ ok: true });
    expect(limiter.take([bot, bot])).toEqual({ ok: false, scope: "bot", retryAfterSeconds: 2 }); // one left, two wanted
    expect(limiter.take([bot])).toEqual({ ok: true });
    expect(limiter.take([bot])).toEqual({ ok: false, scope: "bot", retryAfterSeconds: 2 });
    t.advance(2000);
    expect(limiter.take([{ scope: "bot", key: BOT.toLowerCase() }])).toEqual({ ok: true });
    const before = limiter.size;
    for (let i = 0; i < 100; i++) expect(limiter.take([{ scope: "vault", key: VAULT }])).toEqual({ ok: true });
    expect(limiter.take([{ scope: "vault", key: VAULT }, { scope: "vault", key: VAULT }])).toEqual({ ok: true });
    expect(limiter.size).toBe(before);
  });

  it("keeps at most maxKeys buckets, dropping full-again buckets before recently used ones", () => {
    const t = clock();
    const limiter = new RateLimiter(config({ bot: { capacity: 1, refillPerSecond: 1 } }), t.now, 10);
    const bot = (i: number) => [{ scope: "bot", key: `0x${i.toString(16).padStart(40, "0")}` }] as const;
    for (let i = 0; i < 5; i++) expect(limiter.take(bot(i)).ok).toBe(true);
    t.advance(1000); // bots 0..4 are full again
    for (let i = 5; i < 10; i++) expect(limiter.take(bot(i)).ok).toBe(true);
    expect(limiter.size).toBe(10);
    expect(limiter.take(bot(10)).ok).toBe(true);
    expect(limiter.size).toBe(6); // the five full ones went; 5..10 remain
    for (let i = 5; i <= 10; i++) expect(limiter.take(bot(i)).ok).toBe(false); // still empty, not forgotten
  });

  it("drops the least recently used buckets when none is full", () => {
    const limiter = new RateLimiter(config({ bot: { capacity: 1, refillPerSecond: 1 } }), clock().now, 10);
    const bot = (i: number) => [{ scope: "bot", key: `0x${i.toString(16).padStart(40, "0")}` }] as const;
    for (let i = 0; i < 10; i++) limiter.take(bot(i));
    limiter.take(bot(0)); // refused, but now the most recently used
    limiter.take(bot(10));
    expect(limiter.size).toBeLessThanOrEqual(10);
    expect(limiter.take(bot(0)).ok).toBe(false); // kept
    expect(limiter.take(bot(1)).ok).toBe(true); // the oldest: forgotten, so full again
    for (let i = 0; i < 1000; i++) limiter.take(bot(100 + i));
    expect(limiter.size).toBeLessThanOrEqual(10);
  });

  it("refuses nonsense configurations", () => {
    expect(() => new RateLimiter(config({ bot: { capacity: -1, refillPerSecond: 1 } }))).toThrow(/bot/);
    expect(() => new RateLimiter(config({ vault: { capacity: 1, refillPerSecond: Number.NaN } }))).toThrow(/vault/);
    expect(() => new RateLimiter(config(), Date.now, 0)).toThrow(/maxKeys/);
  });

  it("check says what take would answer, and takes nothing", () => {
    const t = clock();
    const limiter = new RateLimiter(config({ unauthenticated: { capacity: 2, refillPerSecond: 0.5 } }), t.now);
    const client = [{ scope: "unauthenticated", key: "127.0.0.2" }] as const;
    for (let i = 0; i < 5; i++) expect(limiter.check(client)).toEqual({ ok: true });
    expect(limiter.size).toBe(0); // checking makes no bucket
    expect(limiter.take(client).ok).toBe(true);
    expect(limiter.take(client).ok).toBe(true);
    expect(limiter.check(client)).toEqual({ ok: false, scope: "unauthenticated", retryAfterSeconds: 2 });
    expect(limiter.check([{ scope: "unauthenticated", key: "127.0.0.1" }])).toEqual({ ok: true }); // another address
    t.advance(2000);
    expect(limiter.check(client)).toEqual({ ok: true });
    expect(limiter.take(client).ok).toBe(true);
  });

  it("has generous defaults with a limit in every scope", () => {
    for (const scope of ["bot", "vault", "client"] as const) {
      expect(defaultRateLimits[scope].capacity).toBeGreaterThanOrEqual(50);
      expect(defaultRateLimits[scope].refillPerSecond).toBeGreaterThanOrEqual(20);
    }
  });

  it("keeps the unauthenticated bucket small but limited: far below what one core verifies per second", () => {
    expect(defaultRateLimits.unauthenticated.capacity).toBeGreaterThan(0);
    expect(defaultRateLimits.unauthenticated.refillPerSecond).toBeGreaterThan(0);
    expect(defaultRateLimits.unauthenticated.refillPerSecond).toBeLessThanOrEqual(50);
  });
});

describe("429 RATE_LIMITED", () => {
  it("unauthenticated work: admit refuses an empty bucket, spend takes, chargeFailure takes only on a throw", async () => {
    const limiter = new RateLimiter(config({ unauthenticated: { capacity: 2, refillPerSecond: 0.25 } }), clock().now);
    const ip = "127.0.0.2";
    expect(await chargeFailure(limiter, ip, () => "verified")).toBe("verified");
    await admitUnauthenticated(limiter, ip, 0); // still two tokens
    await spendUnauthenticated(limiter, ip, 0);
    await expect(chargeFailure(limiter, ip, () => { throw new Error("bad signature"); })).rejects.toThrow("bad signature");
    await expect(admitUnauthenticated(limiter, ip, 0)).rejects.toMatchObject({
      code: "RATE_LIMITED", status: 429, retryAfterSeconds: 4, details: expect.stringMatching(/bad signatures/),
    });
    await expect(spendUnauthenticated(limiter, ip, 0)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    // An empty bucket stays empty: a failure then still throws its own error, not a 429.
    await expect(chargeFailure(limiter, ip, () => { throw new Error("bad signature"); })).rejects.toThrow("bad signature");
    await admitUnauthenticated(limiter, "127.0.0.1", 0);
  });

  it("a refusal of unauthenticated work is answered only after the pause (a flooder cannot resend at once)", async () => {
    const limiter = new RateLimiter(config({ unauthenticated: { capacity: 1, refillPerSecond: 0.1 } }), clock().now);
    await spendUnauthenticated(limiter, "127.0.0.2", 200);
    const started = performance.now();
    await expect(admitUnauthenticated(limiter, "127.0.0.2", 200)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("takeOrThrow throws the error with its Retry-After seconds", async () => {
    const limiter = new RateLimiter(config({ bot: { capacity: 1, refillPerSecond: 0.25 } }), clock().now);
    await takeOrThrow(limiter, [{ scope: "bot", key: BOT }]);
    expect(() => takeOrThrow(limiter, [{ scope: "bot", key: BOT }])).toThrow(
      expect.objectContaining({ code: "RATE_LIMITED", status: 429, retryAfterSeconds: 4, details: "bot rate limit exceeded" }),
    );
  });

  it("the client-address hook answers 429 with Retry-After, and spares health and metrics", async () => {
    const limiter = new RateLimiter(config({ client: { capacity: 2, refillPerSecond: 0.5 } }), clock().now);
    const app = buildApp({ chainIds: [84532] });
    registerClientRateLimit(app, limiter);
    app.get("/v1/thing", async () => ({ ok: true }));
    try {
      expect((await app.inject({ method: "GET", url: "/v1/thing" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/v1/thing?x=1" })).statusCode).toBe(200);
      const refused = await app.inject({ method: "GET", url: "/v1/thing" });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("2");
      expect(refused.json()).toEqual({ error: "Rate limit exceeded", code: "RATE_LIMITED", details: "client rate limit exceeded" });
      expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/healthz?probe=1" })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("the client-address hook waits for a shared limiter's answer (a promise), and answers its refusal the same way", async () => {
    const inner = new RateLimiter(config({ client: { capacity: 1, refillPerSecond: 0.5 } }), clock().now);
    const shared = { check: async (keys: Parameters<typeof inner.check>[0]) => inner.check(keys), take: async (keys: Parameters<typeof inner.take>[0]) => inner.take(keys) };
    const app = buildApp({ chainIds: [84532] });
    registerClientRateLimit(app, shared);
    app.get("/v1/thing", async () => ({ ok: true }));
    try {
      expect((await app.inject({ method: "GET", url: "/v1/thing" })).statusCode).toBe(200);
      const refused = await app.inject({ method: "GET", url: "/v1/thing" });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("2");
      expect(refused.json()).toEqual({ error: "Rate limit exceeded", code: "RATE_LIMITED", details: "client rate limit exceeded" });
    } finally {
      await app.close();
    }
  });
});
