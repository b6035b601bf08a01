// The test PostgreSQL server (test/support/postgres.ts): loopback only, fresh databases on demand,
// and stop() ends the process it started and removes its directory.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import pg from "pg";
import { startPostgres } from "../../support/postgres.ts";

async function one<T>(url: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T;
  } finally {
    await client.end();
  }
}

describe("startPostgres", () => {
  it("serves a database on loopback only, makes fresh databases, and stop() ends its own process and directory", async () => {
    const server = await startPostgres();
    try {
      expect(server.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/relay$/);
      expect(await one(server.url, "SHOW listen_addresses")).toEqual({ listen_addresses: "127.0.0.1" });
      expect(await one(server.url, "SELECT current_database() AS db")).toEqual({ db: "relay" });
      // As root, the server runs as another user (PostgreSQL refuses root); otherwise as ours.
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))![1]);
      if (process.getuid!() === 0) expect(uid).not.toBe(0);
      else expect(uid).toBe(process.getuid!());
      const a = await server.newDatabase();
      const b = await server.newDatabase();
      expect(a).not.toBe(b);
      await one(a, "CREATE TABLE only_in_a (x int)");
      await expect(one(b, "SELECT * FROM only_in_a")).rejects.toThrow(/does not exist/);
      expect(() => process.kill(server.pid, 0)).not.toThrow();
      expect(existsSync(server.dir)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(() => process.kill(server.pid, 0)).toThrow();
    expect(existsSync(server.dir)).toBe(false);
  });
});
