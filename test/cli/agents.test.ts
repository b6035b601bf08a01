// `relay agents` refuses what it cannot serve with one line and a non-zero exit: an unreachable
// node, a keys file that is not its own, a port in use; its keys file is made 0600 in a 0700
// directory and reused on the next start.
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChain, type LocalChain } from "../../src/chain/hardhat.ts";
import { startRpcServer, type RpcServer } from "../../src/chain/rpc-server.ts";
import { runMain } from "../helpers/cli.ts";
import { removeTempDir, tempDir } from "../helpers/temp-dir.ts";

describe("relay agents", () => {
  let dir: string;
  let chain: LocalChain;
  let rpc: RpcServer;
  beforeAll(async () => {
    dir = tempDir("relay-agents-cli-");
    chain = await startChain({ chainId: 84532 });
    rpc = await startRpcServer(chain.provider, 0);
  });
  afterAll(async () => {
    await rpc?.close();
    await chain?.close();
    removeTempDir(dir);
  });

  it("an unreachable node: `relay: cannot reach …`, exit non-zero", async () => {
    const run = runMain(["agents", "--rpc-url", "http://127.0.0.1:1", "--state-dir", path.join(dir, "a"), "--port", "0"]);
    expect(await run.done).not.toBe(0);
    expect(run.output.stderr).toMatch(/^relay: cannot reach a JSON-RPC node at http:\/\/127\.0\.0\.1:1\n$/);
  });

  it("makes its keys 0600 in agents/ 0700, prints only addresses, and reuses them", async () => {
    const state = path.join(dir, "b");
    const first = runMain(["agents", "--rpc-url", rpc.url, "--state-dir", state, "--port", "0", "--json"]);
    await first.waitFor(/agents ready/);
    const ready = JSON.parse(first.output.stdout) as { url: string; scanners: string[] };
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.scanners).toHaveLength(3);
    expect(first.output.stderr + first.output.stdout).not.toMatch(/0x[0-9a-fA-F]{64}/);
    first.stop();
    expect(await first.done).toBe(0);
    expect(statSync(path.join(state, "agents")).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(state, "agents", "keys")).mode & 0o777).toBe(0o600);
    const again = runMain(["agents", "--rpc-url", rpc.url, "--state-dir", state, "--port", "0", "--json"]);
    await again.waitFor(/agents ready/);
    expect((JSON.parse(again.output.stdout) as { scanners: string[] }).scanners).toEqual(ready.scanners);
    again.stop();
    await again.done;
    expect(readFileSync(path.join(state, "agents", "keys"), "utf8")).toMatch(/"keys"/);
  });

  it("a keys file that is not the agents' three keys: one line, exit non-zero", async () => {
    const state = path.join(dir, "c");
    mkdirSync(path.join(state, "agents"), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(state, "agents", "keys"), "{\"keys\":[\"0x12\"]}\n", { mode: 0o600 });
    const run = runMain(["agents", "--rpc-url", rpc.url, "--state-dir", state, "--port", "0"]);
    expect(await run.done).not.toBe(0);
    expect(run.output.stderr).toMatch(/^relay: .*agents\/keys does not hold the agents' three keys\n$/);
  });

  it("a port in use: one line naming --port", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = runMain(["agents", "--rpc-url", rpc.url, "--state-dir", path.join(dir, "d"), "--port", String(port)]);
      expect(await run.done).not.toBe(0);
      expect(run.output.stderr).toMatch(new RegExp(`^relay: port ${port} \\(--port\\) is in use`));
    } finally {
      blocker.close();
    }
  });
});
