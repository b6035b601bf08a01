// A fresh anvil node (the `@foundry-rs/anvil` devDependency, the node most bot authors and CIs run)
// on a free loopback port, for the benchmarks and the tests that run relay against an external node.
// It starts with the well-known test mnemonic's 20 accounts funded like the in-process devnet's, keeps
// no state on disk (anvil otherwise leaves large state snapshots in its temp folder) but the last
// RECENT_STATES blocks' states in memory, as a full node does, and runs with its
// own temp folder, removed by stop(), which ends only the process it started.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEV_ACCOUNT_BALANCE, DEV_ACCOUNT_COUNT, TEST_MNEMONIC } from "../../src/chain/hardhat.ts";
import { freePort } from "./free-port.ts";

/** How many recent blocks' states anvil keeps in memory: geth's full-node default. */
const RECENT_STATES = 128;

export interface Anvil {
  url: string;
  port: number;
  pid: number;
  /** SIGTERM, then SIGKILL after 5 s; removes anvil's temp folder. */
  stop(): Promise<void>;
}

export interface AnvilOptions {
  chainId?: number;
  /** Extra command-line arguments (e.g. ["--block-time", "1"]). */
  args?: string[];
}

/** The anvil binary shipped in the platform's `@foundry-rs/anvil-<os>-<arch>` package. */
export function anvilBinary(): string {
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string];
  if (!arch || !["linux", "darwin"].includes(process.platform)) throw new Error(`anvil: no binary package for ${process.platform}/${process.arch}`);
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
  return path.join(path.dirname(manifest), "bin", "anvil");
}

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const temp = mkdtempSync(path.join(tmpdir(), "relay-anvil-"));
  const port = await freePort();
  const args = [
    "--host", "127.0.0.1",
    "--port", String(port),
    "--chain-id", String(options.chainId ?? 84532),
    "--mnemonic", TEST_MNEMONIC,
    "--accounts", String(DEV_ACCOUNT_COUNT),
    "--balance", String(DEV_ACCOUNT_BALANCE / 10n ** 18n),
    "--hardfork", "cancun",
    // A count: a bare --prune-history keeps only the latest state, so a read pinned to a block that
    // is no longer the newest fails (the relayer pins each group of reads to one block).
    "--prune-history", String(RECENT_STATES),
    "--silent",
    ...(options.args ?? []),
  ];
  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TMPDIR: temp } });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child, temp);
  try {
    await waitForRpc(url, child, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, pid: child.pid!, stop };
}

async function waitForRpc(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr().trim()}`);
    try {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`anvil did not answer on ${url} within 20 s: ${stderr().trim()}`);
}

async function stopChild(child: ChildProcess, temp: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(temp, { recursive: true, force: true });
}
