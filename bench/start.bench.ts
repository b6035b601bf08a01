// How long `./bin/relay serve` takes to be ready, the way a newcomer meets it.
//   1. First start: `git clone` of this checkout (its HEAD) into a temporary directory, then
//      `./bin/relay serve --port 0 --rpc-port 0` until it prints "relay: ready": the toolchain
//      provisions everything (Node 24 when the machine's Node cannot run relay, npm install, the
//      contracts) with npm's cache as it is, then the devnet and the relayer start. This checkout's
//      Node is taken off PATH, so the clone finds the machine's as a newcomer's would.
//   2. Warm start: the same command again in that clone, BENCH_START_RUNS times (default 5); the
//      median is the figure.
// Each is printed beside its target (first <= 60 s, warm <= 1 s), with the CPU time the start took
// (user + system of the process and the toolchain's children, from /proc): on a shared machine the
// wall-clock figure is what a person waits, the CPU one what the start costs.
// Run: npm run bench:start, or `bash scripts/run.sh node bench/start.bench.ts`. Linux only.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { projectRoot } from "../src/paths.ts";
import { targetLine } from "./support/target.ts";

const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** user + system time of `pid` and of its children it has waited for, in seconds (/proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / TICKS_PER_SECOND;
}

/** Starts `bin/relay serve` in `checkout` and stops it once ready: seconds to ready, CPU seconds. */
async function timeStart(checkout: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ wall: number; cpu: number; log: string }> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-start-state-"));
  const started = performance.now();
  const child = spawn(path.join(checkout, "bin", "relay"), ["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir], {
    cwd: checkout,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  try {
    const ready = await new Promise<{ wall: number; cpu: number; log: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/^relay: ready/m.test(stderr)) {
          clearTimeout(timer);
          resolve({ wall: (performance.now() - started) / 1000, cpu: cpuSeconds(child.pid!), log: stderr });
        }
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`relay serve exited (${code}) before it was ready; stderr:\n${stderr}`));
      });
    });
    return ready;
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.on("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(stateDir, { recursive: true, force: true });
  }
}

// The clone provisions itself: nothing of this checkout's toolchain on PATH or in the environment.
const ownBins = new Set([path.join(projectRoot, ".toolchain", "node", "bin"), path.join(projectRoot, "node_modules", ".bin")]);
const env: NodeJS.ProcessEnv = { ...process.env, PATH: (process.env.PATH ?? "").split(":").filter((dir) => !ownBins.has(dir)).join(":") };
for (const name of ["RELAY_ROOT", "RELAY_NODE", "RELAY_TOOLCHAIN_DIR", "NODE_COMPILE_CACHE", "RELAY_QUIET_TOOLCHAIN"]) delete env[name];

const scratch = mkdtempSync(path.join(tmpdir(), "relay-start-bench-"));
const checkout = path.join(scratch, "relay");
try {
  const head = execFileSync("git", ["-C", projectRoot, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  let machineNode = "none";
  try {
    machineNode = execFileSync("node", ["--version"], { env, encoding: "utf8" }).trim();
  } catch {
    // no Node on the remaining PATH: the clone fetches one
  }
  console.log(`fresh clone of ${projectRoot} at ${head}; the machine's node: ${machineNode}; ${RUNS} warm starts`);
  const cloneStarted = performance.now();
  execFileSync("git", ["clone", "--quiet", projectRoot, checkout]);
  const cloneSeconds = (performance.now() - cloneStarted) / 1000;

  const first = await timeStart(checkout, env, 15 * 60_000);
  // Where the first start's time went: the toolchain's phases (scripts/toolchain.sh) and the devnet's.
  for (const line of first.log.split("\n").filter((l) => /done in \d+s|installed in|chain ready in/.test(l))) console.log(`  ${line}`);
  console.log(`  (git clone ${cloneSeconds.toFixed(1)} s, not counted; first start's CPU ${first.cpu.toFixed(1)} s)`);
  console.log(targetLine("first ./bin/relay serve on a fresh clone, to ready", first.wall, { op: "<=", value: 60 }, "s", 1));

  const warm: { wall: number; cpu: number }[] = [];
  for (let run = 0; run < RUNS; run++) warm.push(await timeStart(checkout, env, 120_000));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`  (warm starts: ${warm.map((w) => `${w.wall.toFixed(2)} s`).join(", ")}; CPU median ${median(warm.map((w) => w.cpu)).toFixed(2)} s)`);
  console.log(targetLine("warm ./bin/relay serve, to ready (median)", median(warm.map((w) => w.wall)), { op: "<=", value: 1.0 }, "s", 2));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
