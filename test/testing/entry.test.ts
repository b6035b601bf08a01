// `relay/testing` as a bot author's test suite uses it: a fresh folder whose package.json depends on
// this repository (`"relay": "file:<repo>"`, installed offline: npm links it), and a plain .mjs
// script run by a real Node 20 with no loader. The script starts relay, talks to the relayer and the
// chain for real, and stops it; the test then checks that the relay process is gone and its
// temporary state directory removed, and that a failed start rejects with relay's own reason.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { nodeMajor, node20 } from "../support/node20.ts";

const SCRIPT = `import { existsSync, readdirSync, readFileSync } from "node:fs";
import { startRelay } from "relay/testing";

const relay = await startRelay();
const { manifest, rpcUrl, relayerUrl, stateDir } = relay;
const readyz = await fetch(relayerUrl + "/readyz");
const rpc = await fetch(rpcUrl, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
});
const running = { readyz: readyz.status, rpcChainId: Number((await rpc.json()).result), processes: relayProcesses(stateDir) };
await relay.stop();
await relay.stop(); // a second stop is harmless
let reachable = true;
try { await fetch(relayerUrl + "/readyz"); } catch { reachable = false; }
const stopped = { processes: relayProcesses(stateDir), stateDirExists: existsSync(stateDir), relayerReachable: reachable };

let failure;
try { await startRelay({ chainId: 999 }); } catch (error) { failure = error.message; }

console.log(JSON.stringify({ node: process.versions.node, manifest, rpcUrl, relayerUrl, stateDir, running, stopped, failure }));

// The relay processes serving this state directory, by their command line read from /proc (a bare
// machine may have no ps: Debian's minimal images leave out procps).
function relayProcesses(dir) {
  const lines = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\\d+$/.test(name))) {
    let args;
    try { args = readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\\0").join(" "); } catch { continue; } // ended meanwhile
    if (args.includes("--state-dir " + dir)) lines.push(pid + " " + args);
  }
  return lines;
}
`;

describe("relay/testing from a bot's own folder under Node 20", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "relay-testing-entry-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("starts a devnet and relayer, answers for real, and stop() ends the process and removes its state dir", () => {
    writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "my-bot", private: true, type: "module", dependencies: { relay: `file:${projectRoot}` } }, null, 2));
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: folder, stdio: ["ignore", "ignore", "inherit"] });
    expect(lstatSync(path.join(folder, "node_modules", "relay")).isSymbolicLink()).toBe(true);
    writeFileSync(path.join(folder, "relay.test.mjs"), SCRIPT);

    const node = node20();
    expect(nodeMajor(node)).toBe(20);
    const run = spawnSync(node, ["relay.test.mjs"], { cwd: folder, encoding: "utf8", timeout: 600_000 });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split("\n").at(-1)!);

    expect(out.node).toMatch(/^20\./);
    const { manifest } = out;
    expect(manifest.chainId).toBe(84532);
    expect(out.rpcUrl).toBe(manifest.rpcUrl);
    expect(out.relayerUrl).toBe(manifest.relayerUrl);
    expect(out.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out.relayerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(manifest.contracts.vault).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(manifest.tokens.USDC.decimals).toBe(6);
    expect(Object.keys(manifest.accounts.bots)).toEqual(expect.arrayContaining(["default", "reviewed"]));
    expect(out.stateDir.startsWith(tmpdir())).toBe(true);

    expect(out.running.readyz).toBe(200);
    expect(out.running.rpcChainId).toBe(84532);
    expect(out.running.processes.length).toBeGreaterThan(0);

    expect(out.stopped.processes).toEqual([]);
    expect(out.stopped.relayerReachable).toBe(false);
    expect(out.stopped.stateDirExists).toBe(false);
    expect(existsSync(out.stateDir)).toBe(false);

    // A failed start rejects with relay's own one-line reason.
    expect(out.failure).toMatch(/^relay serve exited before it was ready \(exit code 2\): relay: --chain-id 999 is not supported/);
  }, 600_000);
});
