// Several relayer instances on one PostgreSQL database: two stores with their own pools (two
// "relayers") run the same operations at once, and the database keeps every claim atomic.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore, schemaVersion } from "../../../src/ledger/postgres/index.ts";
import type { SpendLimits } from "../../../src/ledger/index.ts";
import type { Store } from "../../../src/relayer/store.ts";
import { bot, newRequest, relayer, vault } from "../support.ts";
import { postgresStores } from "./harness.ts";

const fresh = postgresStores();
const newDatabase = fresh.newDatabase;
const usd = (dollars: number): bigint => BigInt(dollars) * 1_000_000n;

/** Two instances on one database, and `pick(i)` alternating between them. */
async function twoInstances() {
  const { store, clock, another } = await fresh();
  const other = await another();
  return { store, other, clock, pick: (i: number): Store => (i % 2 ? other : store) };
}

describe("several instances on one PostgreSQL database", () => {
  it("20 concurrent claims of one idempotency key from two instances: exactly one new, the rest in flight on it", async () => {
    const { pick } = await twoInstances();
    for (let round = 0; round < 5; round++) {
      const key = `key-${round}`;
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => pick(i).claimIdempotency("payment", key, "fp", `req_${i}`)));
      expect(outcomes.filter((o) => o.outcome === "new")).toHaveLength(1);
      const winner = outcomes.findIndex((o) => o.outcome === "new");
      for (const o of outcomes.filter((o) => o.outcome !== "new")) expect(o).toEqual({ outcome: "in_flight", requestId: `req_${winner}` });
    }
  });

  it("concurrent spend reservations from two instances never together pass a bot's or a vault's limit", async () => {
    const { store, pick } = await twoInstances();
    const bots = ["0x2222222222222222222222222222222222222222", "0x5555555555555555555555555555555555555555"];
    for (let round = 0; round < 10; round++) {
      const roundVault = "0x" + (0xa000 + round).toString(16).padStart(40, "0");
      // The bot may spend 50, the vault 70 over both bots: at most 10 + 4 of the 30 requests pass.
      const limits: SpendLimits = {
        botLimits: [{ amount: usd(50), maxCount: 0n, windowSeconds: 86_400n }],
        vaultLimits: [{ amount: usd(70), maxCount: 0n, windowSeconds: 3_600n }],
      };
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          pick(i).reserveSpend({ chainId: 84532, vault: roundVault, bot: bots[i % 2]!, requestId: `req_${round}_${i}`, usd: usd(5) }, limits),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(14);
      for (const who of bots) {
        expect((await store.spentInWindow({ chainId: 84532, vault: roundVault, bot: who, windowSeconds: 86_400n })).usd).toBeLessThanOrEqual(usd(50));
      }
      expect(await store.spentInWindow({ chainId: 84532, vault: roundVault, windowSeconds: 3_600n })).toEqual({ usd: usd(70), count: 14n });
    }
  });

  it("concurrent intent claims (refusal and duplicate checks, then create and link) from two instances record one request", async () => {
    const { store, pick } = await twoInstances();
    for (let round = 0; round < 10; round++) {
      const intentHash = "0x" + round.toString(16).padStart(64, "c");
      const swapHash = "0x" + round.toString(16).padStart(64, "d");
      const claim = (i: number) =>
        pick(i).transaction(async (tx) => {
          // A swap-and-pay carries a second intent: every other claimer sees it as a duplicate too.
          const hashes = i % 3 === 0 ? [swapHash, intentHash] : [intentHash];
          for (const h of hashes) {
            if (await tx.findRefusal(84532, vault, h)) return "refused";
            if (await tx.findByIntentHash(84532, vault, h)) return "duplicate";
          }
          const r = await tx.createRequest(newRequest({ intentHash: hashes.at(-1)! }));
          if (hashes.length === 2) await tx.linkIntent(84532, vault, swapHash, r.id);
          return "created";
        });
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => claim(i)));
      expect(outcomes.filter((o) => o === "created")).toHaveLength(1);
      expect(outcomes.filter((o) => o === "duplicate")).toHaveLength(11);
      expect((await store.listUnsettled()).filter((r) => r.intentHash === intentHash)).toHaveLength(1);
    }
  });

  it("an owner's refusal racing a new claim of the same intent: the claim is either a duplicate or refused, never recorded", async () => {
    const { store, other } = await twoInstances();
    for (let round = 0; round < 15; round++) {
      const intentHash = "0x" + round.toString(16).padStart(64, "e");
      const held = await store.createRequest(newRequest({ intentHash, status: "held", heldBecause: "review" }));
      const [claim] = await Promise.all([
        other.transaction(async (tx) => {
          if (await tx.findRefusal(84532, vault, intentHash)) return "refused";
          if (await tx.findByIntentHash(84532, vault, intentHash)) return "duplicate";
          await tx.createRequest(newRequest({ intentHash }));
          return "created";
        }),
        store.rejectReview(held.id, "owner said no"),
      ]);
      expect(["refused", "duplicate"]).toContain(claim);
      expect(await store.findRefusal(84532, vault, intentHash)).toMatchObject({ requestId: held.id });
      expect(await store.findByIntentHash(84532, vault, intentHash)).toBeUndefined();
    }
  });

  it("submitters on two instances never get one nonce twice: the nonces are contiguous", async () => {
    const { store, pick } = await twoInstances();
    const nonces = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const s = pick(i);
        const r = await s.createRequest(newRequest());
        for (;;) {
          const nonce = await s.nextNonce(84532, relayer, 0n);
          const recorded = await s.recordSubmission(r.id, {
            signer: relayer,
            nonce,
            txHash: "0x" + i.toString(16).padStart(64, "0"),
            rawTx: "0x01",
          });
          if (recorded.ok) return nonce;
          expect(recorded).toMatchObject({ ok: false, code: "NONCE_MISMATCH" });
        }
      }),
    );
    expect([...nonces].sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 40 }, (_, i) => BigInt(i)));
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(40n);
    expect((await store.listInFlight()).map((r) => r.nonce).sort((a, b) => Number(a! - b!))).toEqual(nonces.sort((a, b) => Number(a - b)));
  });

  it("a review decided on two instances at once is decided once", async () => {
    const { store, other } = await twoInstances();
    const held = await store.createRequest(newRequest({ status: "held", heldBecause: "review" }));
    await store.reserveSpend({ chainId: 84532, vault, bot, requestId: held.id, usd: usd(5) }, { botLimits: [], vaultLimits: [] });
    const [rejected, approved] = await Promise.all([
      store.rejectReview(held.id, "no"),
      other.recordSubmission(held.id, { signer: relayer, nonce: 0n, txHash: "0x" + "1".repeat(64), rawTx: "0x01", from: ["held"] }),
    ]);
    // Exactly one decision took effect, and the spend is released only if it was the rejection.
    expect(Number(rejected !== undefined) + Number(approved.ok)).toBe(1);
    const spent = await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n });
    expect(spent.usd).toBe(rejected ? 0n : usd(5));
  });

  it("stores opening a new database together migrate it once", async () => {
    const url = await newDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
    try {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query("SELECT version FROM schema_migrations ORDER BY version");
      await client.end();
      expect(rows.map((r) => r.version)).toEqual(Array.from({ length: schemaVersion }, (_, i) => i + 1));
      // Each works on the shared schema.
      const created = await stores[0]!.createRequest(newRequest());
      expect((await stores[3]!.getRequest(created.id))?.id).toBe(created.id);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("ping answers while the database is there, and rejects once it is gone", async () => {
    const url = await newDatabase();
    const store = await openPostgresStore(url);
    try {
      await expect(store.ping()).resolves.toBeUndefined();
      const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, "/postgres") });
      await admin.connect();
      await admin.query(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
      await expect(store.ping()).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it("refuses a database migrated by a newer relay", async () => {
    const url = await newDatabase();
    const first = await openPostgresStore(url);
    await first.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [schemaVersion + 1]);
    await client.end();
    await expect(openPostgresStore(url)).rejects.toThrow(/newer than this relay supports/);
  });
});

/** Starts hold-intent.ts in its own process and waits until it holds `intentHash`'s claim. */
async function frozenClaimer(url: string, intentHash: string, idleMs?: number): Promise<ChildProcess> {
  const script = fileURLToPath(new URL("./hold-intent.ts", import.meta.url));
  const child = spawn(process.execPath, [script, url, intentHash, vault, ...(idleMs ? [String(idleMs)] : [])], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("holding") && resolve());
    child.once("exit", (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return child;
}

/** A claim of `intentHash` on `store`, and whether it is still waiting after `ms`. */
function claimOn(store: Store, intentHash: string) {
  const claim = store.transaction(async (tx) => {
    if (await tx.findByIntentHash(84532, vault, intentHash)) return "duplicate";
    await tx.createRequest(newRequest({ intentHash }));
    return "created";
  });
  const stillWaitingAfter = (ms: number) => Promise.race([claim, new Promise((resolve) => setTimeout(() => resolve("waiting"), ms))]);
  return { claim, stillWaitingAfter };
}

describe("an instance lost in the middle of a claim", () => {
  it("kill -9 of an instance holding an intent claim: its claim is rolled back and another instance's goes on at once", async () => {
    const { store, url } = await fresh();
    const intentHash = "0x" + "de".repeat(32);
    const child = await frozenClaimer(url, intentHash);
    try {
      const { claim, stillWaitingAfter } = claimOn(store, intentHash);
      // The other instance holds the intent: this claim waits for it rather than racing it.
      expect(await stillWaitingAfter(1_000)).toBe("waiting");
      const killedAt = Date.now();
      child.kill("SIGKILL");
      expect(await claim).toBe("created");
      expect(Date.now() - killedAt).toBeLessThan(5_000);
      const recorded = (await store.listUnsettled()).filter((r) => r.intentHash === intentHash);
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.idempotencyKey).not.toBe("00000000-0000-4000-8000-00000000dead");
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("an instance frozen (SIGSTOP) inside a transaction loses it after the idle-transaction timeout", async () => {
    const { store, url } = await fresh();
    const intentHash = "0x" + "df".repeat(32);
    const child = await frozenClaimer(url, intentHash, 1_500);
    try {
      child.kill("SIGSTOP");
      const started = Date.now();
      const { claim } = claimOn(store, intentHash);
      expect(await claim).toBe("created");
      expect(Date.now() - started).toBeLessThan(6_000);
      expect((await store.listUnsettled()).filter((r) => r.intentHash === intentHash)).toHaveLength(1);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
