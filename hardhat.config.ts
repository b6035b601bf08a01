// Hardhat 3 configuration. Contracts compile offline with the solc-js build from the `solc`
// package (pinned to SOLC_VERSION in package.json). The in-process devnet builds its own network
// config from this one (src/chain/hardhat.ts), so keep shared settings here.
import { createRequire } from "node:module";
import hardhatViem from "@nomicfoundation/hardhat-viem";
import { defineConfig } from "hardhat/config";

const require = createRequire(import.meta.url);

export const SOLC_VERSION = "0.8.30";

function compiler(runs: number) {
  return {
    version: SOLC_VERSION,
    path: require.resolve("solc/soljson.js"),
    settings: { optimizer: { enabled: true, runs }, evmVersion: "cancun" },
  };
}

export default defineConfig({
  plugins: [hardhatViem],
  solidity: {
    compilers: [compiler(200)],
    // The vault sits at the 24 KiB code size limit: it is optimized for size (runs 1), which costs
    // its calls a few gas; every other contract for execution (runs 200). The factory deploys the
    // vault's implementation, so it embeds the vault's code and is compiled the same way; so is the
    // vault's extension, which the vault's constructor builds (its artifact is then the code deployed).
    overrides: {
      "contracts/ServiceVault.sol": compiler(1),
      "contracts/ServiceVaultFactory.sol": compiler(1),
      "contracts/vault/VaultExtension.sol": compiler(1),
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
