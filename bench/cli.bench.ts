// The CLI's start-up, as a user meets it: `./bin/relay …` from a shell, the launcher's toolchain check,
// Node and the command, against a running `relay serve` (its in-process devnet, started here).
//   1. `relay pay` (a 0.01 USDC payment from the devnet's default bot, approved and executed by the
//      relayer) and `relay --version`, one after the other, RUNS times each after WARM_UP calls (the
//      first call after a build fills the compile cache): the median wall time of each, beside its
//      target (0.3 s and 0.15 s; cast answers in ~0.1 s).
//   2. The peak resident memory (VmHWM) of `relay pay`, the heaviest of these calls: the highest over
//      MEMORY_RUNS calls, beside its target (80 MB). Read by /usr/bin/time (wait4's ru_maxrss) where
//      it is installed, else by reading /proc/<pid>/status while the call runs (bin/relay execs node,
//      so the pid is the CLI's own); those runs are apart from the timed ones, which nothing watches.
// Run: `bash scripts/run.sh node --disable-warning=ExperimentalWarning bench/cli.bench.ts`.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { targetLine } from "./support/target.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RELAY = path.join(ROOT, "bin", "relay");
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const WARM_UP = 2;
const MEMORY_RUNS = Number(process.env.BENCH_CLI_MEMORY_RUNS ?? 5);
const TIME = "/usr/bin/time";

interface Call {
  code: number | null;
  wallMs: number;
  /** Peak resident memory in MB, when measured. */
  peakMb?: number;
  stderr: string;
}

/** Runs `bin/relay args` to its end. `memory`: also its peak RSS (see the header). */
function call(args: string[], memory = false): Promise<Call> {
  const viaTime = memory && existsSync(TIME);
  const [command, argv] = viaTime ? [TIME, ["-f", "%M", RELAY, ...args]] : [RELAY, args];
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, argv, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    let polledKb = 0;
    const poll = memory && !viaTime
      ? setInterval(() => {
          try {
            const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
            if (hwm) polledKb = Math.max(polledKb, Number(hwm[1]));
          } catch {
            // the call has just ended
          }
        }, 2)
      : undefined;
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - start;
      if (poll) clearInterval(poll);
      let peakMb: number | undefined;
      if (viaTime) {
        const lines = stderr.trimEnd().split("\n");
        peakMb = Number(lines.pop()) / 1024;
        stderr = lines.join("\n");
      } else if (memory) {
        peakMb = polledKb / 1024;
      }
      resolve({ code, wallMs, ...(peakMb === undefined ? {} : { peakMb }), stderr });
    });
  });
}

async function ok(args: string[], memory = false): Promise<Call> {
  const result = await call(args, memory);
  if (result.code !== 0) throw new Error(`relay ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return result;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const stateDir = mkdtempSync(path.join(tmpdir(), "relay-cli-bench-"));
const serve = spawn(RELAY, ["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir], {
  cwd: ROOT,
  stdio: ["ignore", "ignore", "pipe"],
});
let serveLog = "";
serve.stderr!.on("data", (d: Buffer) => (serveLog += d.toString()));
process.on("exit", () => serve.kill("SIGKILL"));
try {
  // Ready once the manifest names the relayer's URL (serve writes it when it listens).
  const deadline = Date.now() + 180_000;
  const manifestFile = path.join(stateDir, "devnet.json");
  while (!(existsSync(manifestFile) && /"relayerUrl"/.test(readFileSync(manifestFile, "utf8")))) {
    if (serve.exitCode !== null) throw new Error(`relay serve exited ${serve.exitCode}:\n${serveLog}`);
    if (Date.now() > deadline) throw new Error(`relay serve did not get ready in 180 s:\n${serveLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const pay = ["pay", "--state-dir", stateDir, "--to", "owner", "--amount", "0.01", "--token", "USDC"];
  const version = ["--version"];
  for (let i = 0; i < WARM_UP; i++) {
    await ok(pay);
    await ok(version);
  }
  const payMs: number[] = [];
  const versionMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    payMs.push((await ok(pay)).wallMs);
    versionMs.push((await ok(version)).wallMs);
  }
  const peaks: number[] = [];
  for (let i = 0; i < MEMORY_RUNS; i++) peaks.push((await ok(pay, true)).peakMb!);

  console.log(`./bin/relay against a running relay serve (devnet), ${RUNS} calls each after ${WARM_UP} to warm up:`);
  console.log(targetLine("relay pay: median wall time", median(payMs) / 1000, { op: "<=", value: 0.3 }, "s", 3));
  console.log(`  (min ${(Math.min(...payMs) / 1000).toFixed(3)} s, max ${(Math.max(...payMs) / 1000).toFixed(3)} s; the relayer's own answer is part of it)`);
  console.log(targetLine("relay --version: median wall time", median(versionMs) / 1000, { op: "<=", value: 0.15 }, "s", 3));
  console.log(`  (min ${(Math.min(...versionMs) / 1000).toFixed(3)} s, max ${(Math.max(...versionMs) / 1000).toFixed(3)} s)`);
  const how = existsSync(TIME) ? "/usr/bin/time" : "/proc polling";
  console.log(targetLine(`relay pay: peak resident memory, highest of ${MEMORY_RUNS} calls (${how})`, Math.max(...peaks), { op: "<=", value: 80 }, "MB", 0));
} finally {
  serve.kill("SIGTERM");
  await new Promise((r) => (serve.exitCode !== null ? r(undefined) : serve.once("exit", r)));
  rmSync(stateDir, { recursive: true, force: true });
}
