import { defineConfig } from "vitest/config";

// The end-to-end relayer test files (test/relayer/*.test.ts that start an Env) that run a second
// time against the real deployment: three `relay serve` processes on one PostgreSQL ledger behind
// nginx (RELAY_TEST_DEPLOYMENT=cluster, test/relayer/deployment.ts). Settings a test gives startEnv
// reach the instances as `relay serve` flags or a --config file; tests observe through the API, the
// chain and the ledger (env.store: the shared database), and each process's own /metrics and
// /readyz (env.instanceUrls). The few cases that need the relayer inside the test's process (a
// fault injected into its provider) are gated with `cluster` and show as skipped in this run.
export const CLUSTER_FILES = [
  "test/relayer/payments.test.ts",
  "test/relayer/reviews.test.ts",
  "test/relayer/reject-cancel.test.ts",
  "test/relayer/execute.test.ts",
  "test/relayer/swap.test.ts",
  "test/relayer/swap-and-pay.test.ts",
  "test/relayer/swap-required.test.ts",
  "test/relayer/eth.test.ts",
  "test/relayer/off-chain.test.ts",
  "test/relayer/operations.test.ts",
  "test/relayer/scenarios.test.ts",
  "test/relayer/terms.test.ts",
  "test/relayer/chains.test.ts",
  "test/relayer/integer-fields.test.ts",
  "test/relayer/reads.test.ts",
];

// Each test file starts its own chain; two workers match the two cores CI has. `npm test` runs both
// projects; `vitest run --project one-relayer <file>` runs a file once.
export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default"] : ["default"],
    projects: [
      { extends: true, test: { name: "one-relayer", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "three-relayers-postgres", include: CLUSTER_FILES, env: { RELAY_TEST_DEPLOYMENT: "cluster" }, hookTimeout: 240_000 },
      },
    ],
  },
});
