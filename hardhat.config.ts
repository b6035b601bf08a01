// Hardhat 3 configuration. Contracts compile offline with the solc-js build from the `solc`
// package (pinned to SOLC_VERSION in package.json). The in-process devnet builds its own network
// config from this one (src/chain/hardhat.ts), so keep shared settings here.
import { createRequire } from "node:module";
import hardhatViem from "@nomicfoundation/hardhat-viem";
import { defineConfig } from "hardhat/config";

const require = createRequire(import.meta.url);

export const SOLC_VERSION = "0.8.30";

export default defineConfig({
  plugins: [hardhatViem],
  solidity: {
    version: SOLC_VERSION,
    path: require.resolve("solc/soljson.js"),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
    },
  },
  paths: { tests: { solidity: "test/contracts-sol" } },
  networks: {
    default: {
      type: "edr-simulated",
      chainId: 84532,
      hardfork: "cancun",
    },
  },
});
