// The spend windows on a busy vault: what recording and reserving one payment costs on a vault whose
// BOTS bots (default 50) have each paid every minute for the last 24 hours, against the same on a
// quiet vault in the same ledger, measured alternately. The ledger bench (ledger.bench.ts) spreads
// its million requests thinly (one a minute over 200 vault-bot pairs), so each window there holds a
// few entries; here a window holds a day of a busy vault's traffic. The windows are the relayer's
// usual ones: the bot's 24 h and 1 h, the vault's 24 h. The history is written straight into the
// ledger by SQL: one `spend` entry per bot and minute, and the totals the ledger keeps of them.
// The target: p50 busy ÷ p50 quiet ≤ 1.5 (the "cost independent of history" applied to a
// busy vault). Run: npm run bench:busy-vault (BOTS=5 for a smaller vault).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openLedger } from "../src/ledger/index.ts";
import { spendBucketsFromSpend } from "../src/ledger/spend-buckets.ts";
import { dayAndHourLimits as limits } from "./support/spend-limits.ts";
import { targetLine } from "./support/target.ts";

const BOTS = Number(process.env.BOTS ?? 50);
const SAMPLES = 500;
const busy = "0x" + "a1".repeat(20);
const quiet = "0x" + "a2".repeat(20);
const botAddress = (i: number) => "0x" + (i + 1).toString(16).padStart(40, "b");

const dir = mkdtempSync(path.join(tmpdir(), "relay-busy-vault-"));
try {
  const file = path.join(dir, "ledger.sqlite");
  openLedger(file).close(); // creates the schema
  const db = new DatabaseSync(file);
  const insert = db.prepare("INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) VALUES (?, 1, ?, ?, 100, ?)");
  const thisMinute = Math.floor(Date.now() / 60_000);
  db.exec("BEGIN");
  for (let bot = 0; bot < BOTS; bot++) {
    for (let ago = 1; ago <= 1440; ago++) insert.run(`req_day_${bot}_${ago}`, busy, botAddress(bot), (thisMinute - ago) * 60_000 + 30_000);
  }
  // The totals a day of those reservations leaves, as the ledger keeps them.
  db.exec(`INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count)
    SELECT chain_id, vault, bot, at / 60000, SUM(usd), COUNT(*) FROM spend GROUP BY chain_id, vault, bot, at / 60000`);
  db.exec(spendBucketsFromSpend);
  db.exec("COMMIT");
  db.close();

  const ledger = openLedger(file);
  let n = 0;
  /** Records one payment of `vault`'s first bot and reserves its spend: the relayer's record step. */
  const recordAndReserve = async (vault: string): Promise<number> => {
    const id = `req_${(n++).toString(36).padStart(24, "0")}`;
    const started = performance.now();
    await ledger.transaction(async (tx) => {
      await tx.createRequest({ id, kind: "payment", chainId: 1, vault, bot: botAddress(0), intentHash: "0x" + n.toString(16).padStart(64, "0"), idempotencyKey: id, fingerprint: id, usdValue: 1n, body: "{}", deadline: 1n });
      const reserved = await tx.reserveSpend({ chainId: 1, vault, bot: botAddress(0), requestId: id, usd: 1n }, limits);
      if (!reserved.ok) throw new Error(`reservation refused: ${reserved.code}`);
    }, { durable: false });
    return performance.now() - started;
  };
  for (let i = 0; i < 100; i++) await recordAndReserve(i % 2 ? busy : quiet);
  const times = { busy: [] as number[], quiet: [] as number[] };
  for (let i = 0; i < SAMPLES; i++) {
    times.quiet.push(await recordAndReserve(quiet));
    times.busy.push(await recordAndReserve(busy));
  }
  await ledger.close();
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`record + reserve, quiet vault: p50 ${p50(times.quiet).toFixed(3)} ms`);
  console.log(`record + reserve, busy vault (${BOTS} bots × 1,440 minutes of history): p50 ${p50(times.busy).toFixed(3)} ms`);
  console.log(targetLine("busy ÷ quiet vault, p50 of record + reserve", p50(times.busy) / p50(times.quiet), { op: "<=", value: 1.5 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
