// Stores on a real PostgreSQL server for tests: one server per test file, a fresh database per
// test, every store opened on it closed after the test, and the server stopped after the file.
import { afterAll, afterEach, beforeAll } from "vitest";
import { openPostgresStore } from "../../../src/ledger/postgres/index.ts";
import type { Store } from "../../../src/relayer/store.ts";
import { startPostgres, type PostgresServer } from "../../support/postgres.ts";
import { manualClock } from "../support.ts";
import type { ContractStore } from "./store-contract.ts";

/** A fresh PostgreSQL store (see ContractStore) and its database's URL, for stores opened in other processes. */
export interface FreshStore extends ContractStore {
  url: string;
}

/** Starts one PostgreSQL server for the calling test file and returns a factory of fresh stores. */
export function postgresStores(): (() => Promise<FreshStore>) & { newDatabase(): Promise<string> } {
  let server: PostgresServer;
  const open: Store[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    await server?.stop();
  });
  const factory = async () => {
    const url = await server.newDatabase();
    const clock = manualClock();
    const openOne = async (now: () => number = clock.now) => {
      const store = await openPostgresStore(url, { now });
      open.push(store);
      return store;
    };
    return { store: await openOne(), clock, another: openOne, url };
  };
  /** The URL of a fresh database on the file's server, for tests that open stores themselves. */
  return Object.assign(factory, { newDatabase: () => server.newDatabase() });
}
