// `npm run load`: drives a fresh devnet's relayer with distinct signed payment intents at a fixed
// open-loop rate, re-sends a share of them with the same idempotency key, then prints latency
// percentiles, the count of every status and error code, and the invariant check read from the
// chain (each approved request executed exactly once, no execution without its request, contiguous
// relayer nonces). Exits 1 when a check fails.
//   npm run load -- --duration 600 --rate 200 --bots 50 --vaults 5 --retry-fraction 0.1 [--json]
//   npm run load -- --instances 3 [--database-url postgres://…] [--kill-one-after <s>]: the same run
//   against several `relay serve --database-url` processes behind nginx (a PostgreSQL server is
//   started for the run without --database-url), optionally kill -9 of one of them mid-run.
import { parseArgs } from "node:util";
import { formatReport } from "./load/report.ts";
import { DEFAULT_LOAD_OPTIONS, runLoad, type LoadOptions } from "./load/run.ts";

const USAGE = `usage: npm run load -- [--duration <s>] [--rate <req/s>] [--bots <n>] [--vaults <n>]
                       [--retry-fraction <0..1>] [--max-in-flight <n>] [--in-process] [--json]
                       [--instances <n>] [--database-url <postgres://…>] [--kill-one-after <s>]`;

function parse(): { options: LoadOptions; json: boolean } {
  const { values } = parseArgs({
    options: {
      duration: { type: "string" },
      rate: { type: "string" },
      bots: { type: "string" },
      vaults: { type: "string" },
      "retry-fraction": { type: "string" },
      "max-in-flight": { type: "string" },
      "in-process": { type: "boolean", default: false },
      instances: { type: "string" },
      "database-url": { type: "string" },
      "kill-one-after": { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const number = (flag: string, value: string | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n)) throw new Error(`--${flag} must be a number, got "${value}"`);
    return n;
  };
  const d = DEFAULT_LOAD_OPTIONS;
  return {
    json: values.json,
    options: {
      durationSeconds: number("duration", values.duration, d.durationSeconds),
      rate: number("rate", values.rate, d.rate),
      bots: number("bots", values.bots, d.bots),
      vaults: number("vaults", values.vaults, d.vaults),
      retryFraction: number("retry-fraction", values["retry-fraction"], d.retryFraction),
      maxInFlight: number("max-in-flight", values["max-in-flight"], d.maxInFlight),
      inProcess: values["in-process"],
      instances: number("instances", values.instances, 1),
      databaseUrl: values["database-url"],
      killOneAfterSeconds: values["kill-one-after"] === undefined ? undefined : number("kill-one-after", values["kill-one-after"], 0),
      log: (line) => process.stderr.write(`load: ${line}\n`),
    },
  };
}

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (error) {
  process.stderr.write(`load: ${(error as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
const report = await runLoad(parsed.options);
process.stdout.write(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
process.exitCode = report.ok ? 0 : 1;
