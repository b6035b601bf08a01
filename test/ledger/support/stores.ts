// The store implementations the ledger tests run against (describe.each over `storeFactories`):
// every test of the Store's behaviour runs once per implementation: SQLite in a temporary file, and
// PostgreSQL on a real server (test/support/postgres.ts) started by the first test file that asks
// for it and stopped after that file, with a fresh database per test.
import path from "node:path";
import { afterAll } from "vitest";
import { openLedger } from "../../../src/ledger/index.ts";
import { openPostgresStore } from "../../../src/ledger/postgres/index.ts";
import type { Store, StoreClock } from "../../../src/relayer/store.ts";
import { startPostgres, type PostgresServer } from "../../support/postgres.ts";
import { onCleanup, tempDir } from "../support.ts";

/** A store under test, and how to reach the same data again. */
export interface OpenedStore {
  store: Store;
  /**
   * Another connection to the same data, closed after the test: what a restarted relayer, or
   * another instance, sees.
   */
  connect(now?: () => number): Promise<Store>;
}

/** Each chain's clock, apart from the wall clock. */
export type ChainClocks = Pick<StoreClock, "chainNow" | "latestNow">;

export interface StoreFactory {
  /** Shown in the test names. */
  readonly name: string;
  /**
   * A fresh, empty store whose clock is `now` (unix ms), closed after the test; with `chains`, each
   * chain's clock is `chains.chainNow` (StoreClock) and `now` is the wall clock only.
   */
  fresh(now?: () => number, chains?: ChainClocks): Promise<OpenedStore>;
}

export const sqliteStore: StoreFactory = {
  name: "sqlite",
  async fresh(now, chains) {
    const file = path.join(tempDir(), "ledger.sqlite");
    const connect = async (clock?: () => number): Promise<Store> => {
      const store = openLedger(file, { ...(clock ? { now: clock } : {}), ...chains });
      onCleanup(() => store.close());
      return store;
    };
    return { store: await connect(now), connect };
  },
};

let server: Promise<PostgresServer> | undefined;
afterAll(async () => {
  const started = server;
  server = undefined;
  if (started) await (await started).stop();
});

export const postgresStore: StoreFactory = {
  name: "postgres",
  async fresh(now, chains) {
    server ??= startPostgres();
    const url = await (await server).newDatabase();
    const connect = async (clock?: () => number): Promise<Store> => {
      const store = await openPostgresStore(url, { ...(clock ? { now: clock } : {}), ...chains });
      onCleanup(() => store.close());
      return store;
    };
    return { store: await connect(now), connect };
  },
};

export const storeFactories: readonly StoreFactory[] = [sqliteStore, postgresStore];
