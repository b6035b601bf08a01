// `relay serve --database-url`: a URL that is not postgres:// is a usage error, and a database that
// cannot be reached ends the start with one `relay: …` line that names the database without its
// password.
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.ts";
import { runMain } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("relay serve --database-url", () => {
  it("refuses a URL that is not postgres:// without echoing it", async () => {
    const run = runMain(["serve", "--database-url", "http://user:hunter2@db.example/relay"]);
    expect(await run.done).toBe(EXIT.USAGE);
    expect(run.output.stderr).toMatch(/--database-url must be a postgres:\/\/ URL/);
    expect(run.output.stderr).not.toContain("hunter2");
  });

  it("an unreachable database: one line naming it without the password, exit non-zero", async () => {
    const stateDir = tempDir("relay-serve-db-");
    const run = runMain(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--database-url", "postgres://relay:hunter2@127.0.0.1:1/relay"]);
    const code = await run.done;
    expect(code).not.toBe(EXIT.OK);
    const lines = run.output.stderr.split("\n").filter((line) => /database/.test(line));
    expect(lines).toEqual([expect.stringMatching(/^relay: cannot open the database postgres:\/\/relay:\*\*\*@127\.0\.0\.1:1\/relay: /)]);
    expect(run.output.stderr + run.output.stdout).not.toContain("hunter2");
  }, 60_000);
});
