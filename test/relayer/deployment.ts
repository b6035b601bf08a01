// Which deployment the end-to-end relayer tests run against. By default one relayer in the test's
// process on its own SQLite ledger. With RELAY_TEST_DEPLOYMENT=cluster (the second run of
// `npm test`, see vitest.config.ts), the same test files run against three `relay serve` processes
// on one PostgreSQL ledger behind nginx (test/support/cluster.ts): the harness points its client at
// the proxy. RELAY_CLUSTER_STORE=sqlite runs the instances on their own embedded ledgers instead
// (only to debug the harness: they then share no state).
import type { RelayerConfigInput } from "../../src/relayer/config.ts";

/** True in the cluster run. */
export function clusterRun(): boolean {
  return process.env.RELAY_TEST_DEPLOYMENT === "cluster";
}

/** The cluster's store: PostgreSQL unless RELAY_CLUSTER_STORE=sqlite. */
export function clusterStore(): "postgres" | "sqlite" {
  return process.env.RELAY_CLUSTER_STORE === "sqlite" ? "sqlite" : "postgres";
}

/**
 * The `relay serve` flags for the config settings a test gives startEnv, and the settings that
 * have no flag (`rest`): those reach the instances through a `--config` file (clusterEnv).
 */
export function serveFlags(overrides: Partial<RelayerConfigInput>): { flags: string[]; rest: Record<string, unknown> } {
  const flags: string[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (key === "terms") {
      const terms = value as { version: string; url?: string };
      flags.push("--terms-version", terms.version, ...(terms.url === undefined ? [] : ["--terms-url", terms.url]));
      continue;
    }
    const flag = FLAGS[key];
    if (flag) flags.push(flag, String(value));
    else rest[key] = value;
  }
  return { flags, rest };
}

const FLAGS: Record<string, string> = {
  reviewWindowSeconds: "--review-window",
  maxDeadlineSeconds: "--max-deadline",
  requestTimeoutMs: "--request-timeout-ms",
};
