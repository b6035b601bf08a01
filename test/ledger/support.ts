// Shared helpers for ledger tests: a fresh store (support/stores.ts names the implementations), a
// temporary ledger file and a clock the test moves by hand.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { openLedger, type Ledger, type NewRequest } from "../../src/ledger/index.ts";
import type { StoreFactory } from "./support/stores.ts";

/** A clock starting at a fixed instant; `advance(ms)` moves it. */
export function manualClock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
    set(ms: number) {
      t = ms;
    },
  };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Runs `cleanup` after the test (the last registered first). */
export function onCleanup(cleanup: () => unknown): void {
  cleanups.push(cleanup);
}

/** A fresh directory removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "relay-ledger-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens a SQLite ledger closed after the test. */
export function open(file: string, now?: () => number): Ledger {
  const ledger = openLedger(file, now ? { now } : {});
  cleanups.unshift(() => ledger.close());
  return ledger;
}

/** A fresh SQLite ledger in a temporary directory, with a manual clock. */
export function freshLedger() {
  const clock = manualClock();
  const file = path.join(tempDir(), "ledger.sqlite");
  return { ledger: open(file, clock.now), clock, file };
}

/** A fresh store of `factory` on a manual clock; `connect` reaches the same data again. */
export async function freshStore(factory: StoreFactory) {
  const clock = manualClock();
  const { store, connect } = await factory.fresh(clock.now);
  return { store, clock, connect };
}

export const vault = "0x1111111111111111111111111111111111111111";
export const bot = "0x2222222222222222222222222222222222222222";
export const relayer = "0x3333333333333333333333333333333333333333";

let counter = 0;
/** A plausible new request; override any field. */
export function newRequest(overrides: Partial<NewRequest> = {}): NewRequest {
  counter++;
  return {
    kind: "payment",
    chainId: 84532,
    vault,
    bot,
    intentHash: "0x" + counter.toString(16).padStart(64, "0"),
    idempotencyKey: `00000000-0000-4000-8000-${counter.toString().padStart(12, "0")}`,
    fingerprint: `fp-${counter}`,
    usdValue: 5_000_000n,
    body: JSON.stringify({ n: counter }),
    deadline: 1_767_225_900n,
    ...overrides,
  };
}

/** Runs test/ledger/worker.ts in `n` worker threads at once (each its own connection) and collects their results. */
export async function raceWorkers<T>(n: number, data: Record<string, unknown>): Promise<T[][]> {
  const { Worker } = await import("node:worker_threads");
  const url = new URL("./worker.ts", import.meta.url);
  const barrier = new SharedArrayBuffer(4); // all workers start their loops together
  return Promise.all(
    Array.from(
      { length: n },
      (_, worker) =>
        new Promise<T[]>((resolve, reject) => {
          const w = new Worker(url, { workerData: { ...data, worker, workers: n, barrier } });
          w.once("message", resolve);
          w.once("error", reject);
          w.once("exit", (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
        }),
    ),
  );
}
