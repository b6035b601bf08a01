import { defineConfig } from "vitest/config";

// The end-to-end relayer test files that run a second time against the real deployment: three
// `relay serve` processes on one PostgreSQL ledger behind nginx (RELAY_TEST_DEPLOYMENT=cluster,
// test/relayer/deployment.ts). The files that matter most for several instances — payments and
// idempotency, limits, reviews, execute, swaps — within about five minutes on CI's two cores.
// Not in it: files that read the in-process relayer (env.relayer), wrap its provider, or set a
// config that has no `relay serve` flag (operations, scenarios, terms, chains, integer-fields).
export const CLUSTER_FILES = [
  "test/relayer/payments.test.ts",
  "test/relayer/reviews.test.ts",
  "test/relayer/execute.test.ts",
  "test/relayer/swap.test.ts",
  "test/relayer/swap-and-pay.test.ts",
  "test/relayer/eth.test.ts",
  "test/relayer/off-chain.test.ts",
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
