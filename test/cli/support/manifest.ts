// A well-formed devnet manifest for tests that need settings but no chain.
import { manifestPath, writeManifest, type Manifest } from "../../../src/devnet/manifest.ts";
import { devRoles } from "../../../src/devnet/accounts.ts";

const addr = (byte: string) => `0x${byte.repeat(20)}`;

export function sampleManifest(): Manifest {
  const roles = devRoles();
  return {
    version: 1,
    chainId: 84532,
    rpcUrl: "http://127.0.0.1:18545",
    relayerUrl: "http://127.0.0.1:18787",
    domain: { name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: addr("a1") },
    contracts: {
      registry: addr("b1"),
      factory: addr("b2"),
      vault: "0xA1A1a1a1A1A1A1A1A1a1a1a1a1a1A1A1a1A1a1a1",
      router: addr("b3"),
      nft: addr("b4"),
      marketplace: addr("b5"),
      lending: addr("b6"),
      priceFeeds: { USDC: addr("c1") },
    },
    tokens: {
      USDC: { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 },
      USDT: { address: "0xD1d1d1D1d1d1D1d1D1D1D1d1d1D1D1D1d1D1d1d1", decimals: 6 },
      DAI: { address: "0xd2D2D2D2d2d2d2d2D2d2d2d2D2d2D2d2D2d2D2d2", decimals: 18 },
      WETH: { address: "0x4200000000000000000000000000000000000006", decimals: 18 },
      WBTC: { address: "0xd3D3D3D3d3D3d3d3d3D3D3d3d3d3D3d3d3D3D3d3", decimals: 8 },
    },
    accounts: {
      owner: roles.owner,
      operator: roles.operator,
      relayer: roles.relayer,
      deployer: roles.deployer,
      bots: { default: roles.defaultBot, reviewed: roles.reviewedBot },
    },
  };
}

/** Writes the sample manifest into `stateDir` and returns it. */
export function writeSampleManifest(stateDir: string, overrides: Partial<Manifest> = {}): Manifest {
  const manifest = { ...sampleManifest(), ...overrides };
  writeManifest(manifestPath(stateDir), manifest);
  return manifest;
}
