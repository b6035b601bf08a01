// relay's CPU and latency goals, stated against the floor this machine measures (bench/floor.bench.ts)
// rather than as fixed figures: 250 µs of CPU and 1.5 ms of added latency sat below the floor itself
// (what no design can skip), so those lines could only print UNDER. The goals we hold:
//   - relay's CPU per fast-path payment <= 1.5 × the floor with relay's own ledger in place of the
//     minimal record (what the policy read, rate limits, framework, logs and metrics may add: half);
//   - relay's added p50 latency <= the lean relayer's added p50 + 1 ms, the lean relayer's measured
//     beside relay's on the same chain in the same round (support/lean-beside.ts): a node's calls
//     cost more as its chain ages, and the floor bench's lean relayer runs on a fresh chain.
// The floor bench records its figures in .bench/floor.json (gitignored); bench/all.sh runs it before
// the benches that read them (relayer, profile). The CPU goal comes from that record; the latency
// goal from the lean relayer beside relay, the record's fresh-chain figure printed for comparison.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Target } from "./target.ts";

const FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../.bench/floor.json");

export const CPU_FACTOR = 1.5;
export const LATENCY_MARGIN_MS = 1;

export interface Floor {
  /** The floor of relay's CPU per payment with relay's own ledger, µs. */
  cpuWithRelayLedgerUs: number;
  /** p50 relayed by the lean relayer − p50 direct, ms. */
  leanAddedP50Ms: number;
  measuredAt: string;
  node: string;
}

export function recordFloor(floor: Omit<Floor, "measuredAt" | "node">): void {
  mkdirSync(path.dirname(FILE), { recursive: true });
  writeFileSync(FILE, `${JSON.stringify({ ...floor, measuredAt: new Date().toISOString(), node: process.version }, null, 2)}\n`);
}

export interface Goals {
  cpu: Target;
  /** The added-latency goal from the floor bench's own lean relayer, on its fresh chain. */
  addedP50: Target;
  /** That lean relayer's added p50, ms. */
  leanAddedP50Ms: number;
  /** Where the goals come from, for the lines that print them; cpuSource: the CPU goal's alone. */
  source: string;
  cpuSource: string;
}

/** The added-latency goal beside a lean relayer that added `leanAddedP50Ms` at p50. */
export function addedP50Goal(leanAddedP50Ms: number): Target {
  return { op: "<=", value: Number((leanAddedP50Ms + LATENCY_MARGIN_MS).toFixed(3)) };
}

export function goalsFrom(floor: Pick<Floor, "cpuWithRelayLedgerUs" | "leanAddedP50Ms">): Goals {
  return {
    cpu: { op: "<=", value: Math.round(CPU_FACTOR * floor.cpuWithRelayLedgerUs) },
    addedP50: addedP50Goal(floor.leanAddedP50Ms),
    leanAddedP50Ms: floor.leanAddedP50Ms,
    source: `${CPU_FACTOR} × the floor of ${floor.cpuWithRelayLedgerUs.toFixed(0)} µs; the lean relayer's ${floor.leanAddedP50Ms.toFixed(3)} ms + ${LATENCY_MARGIN_MS} ms`,
    cpuSource: `${CPU_FACTOR} × the floor of ${floor.cpuWithRelayLedgerUs.toFixed(0)} µs`,
  };
}

/** The goals from the last floor run on this machine, or undefined (with why) when there was none. */
export function recordedGoals(): Goals | { missing: string } {
  let floor: Floor;
  try {
    floor = JSON.parse(readFileSync(FILE, "utf8")) as Floor;
  } catch {
    return { missing: `no floor recorded in ${FILE}: run \`npm run bench:floor\` first (bench/all.sh does)` };
  }
  const goals = goalsFrom(floor);
  // The machine's speed drifts between stretches by more than a cut gains: a floor from another
  // stretch makes a goal relay may meet or miss for that alone. Its age is said with it.
  const minutes = Math.round((Date.now() - Date.parse(floor.measuredAt)) / 60_000);
  const age = minutes <= 15 ? "" : `, ${minutes} minutes ago: run \`npm run bench:floor\` again for a goal from this stretch of the machine`;
  const when = ` (floor measured ${floor.measuredAt}, Node ${floor.node}${age})`;
  return { ...goals, source: `${goals.source}${when}`, cpuSource: `${goals.cpuSource}${when}` };
}
