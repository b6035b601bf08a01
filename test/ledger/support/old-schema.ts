// Stores as an earlier version of the schema left them, for the migration tests: the first
// `version` migrations applied, nothing after; the caller writes the old rows (PostgreSQL: through
// the callback), then opens the store, which upgrades it.
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterAll } from "vitest";
import { migrations } from "../../../src/ledger/index.ts";
import { migrations as pgMigrations } from "../../../src/ledger/postgres/schema.ts";
import { startPostgres, type PostgresServer } from "../../support/postgres.ts";

/** A SQLite ledger file at schema `version`, open for the old rows (close it before opening the ledger). */
export function sqliteAtVersion(file: string, version: number): DatabaseSync {
  const db = new DatabaseSync(file);
  db.exec("BEGIN");
  for (let v = 0; v < version; v++) db.exec(migrations[v]!);
  db.exec(`PRAGMA user_version = ${version}; COMMIT`);
  return db;
}

/** Brings a PostgreSQL database to schema `version`, then has `write` put the old rows in through its client (ended after). */
export async function postgresAtVersion(url: string, version: number, write: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
    for (let v = 0; v < version; v++) {
      await client.query(pgMigrations[v]!);
      await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [v + 1]);
    }
    await write(client);
  } finally {
    await client.end();
  }
}

/** New databases on a PostgreSQL server started on first use and stopped after the test file. Call at the file's top level or in a describe. */
export function postgresDatabases(): () => Promise<string> {
  let server: Promise<PostgresServer> | undefined;
  afterAll(async () => {
    if (server) await (await server).stop();
  });
  return async () => (await (server ??= startPostgres())).newDatabase();
}
