// `relay devnet`: an in-process chain, the contract suite deployed and seeded, JSON-RPC on loopback,
// and the manifest written. Every start gives the same accounts and addresses.
import path from "node:path";
import { startChain, type LocalChain } from "../chain/hardhat.ts";
import { clientsFor } from "../chain/clients.ts";
import { createNodeAccountSender } from "../chain/sender.ts";
import { startRpcServer, type RpcServer } from "../chain/rpc-server.ts";
import { devRoles, devScannerKeys } from "./accounts.ts";
import { deploySuite, type SenderFor } from "./deploy.ts";
import { seedVault } from "./seed.ts";
import { buildManifest, chainManifestPath, manifestPath, withRelayerUrl, withX402, writeManifest, type Manifest } from "./manifest.ts";
import { readVaultDomain } from "../../packages/client/src/sign.ts";
import { privateStateDir } from "../private-files.ts";

export interface DevnetOptions {
  chainId: number;
  domainName: string;
  rpcPort: number;
  stateDir: string;
  /**
   * Whether this chain's manifest is also `<stateDir>/devnet.json` (default true). A devnet of
   * several chains writes it for its first chain only; every chain gets `devnet-<chainId>.json`.
   */
  primary?: boolean;
  /** Also write a copy of the manifest here. */
  manifestCopy?: string;
  fork?: string;
  log?: (line: string) => void;
}

export interface Devnet {
  readonly chain: LocalChain;
  readonly rpc: RpcServer;
  /** `<stateDir>/devnet.json` for the primary chain, else `<stateDir>/devnet-<chainId>.json`. */
  readonly manifestFile: string;
  readonly manifest: Manifest;
  /** Records (or, with undefined, removes) the URL of the relayer serving this devnet. */
  setRelayerUrl(url: string | undefined): void;
  /** Records (or, with undefined, removes) the URLs of the x402 facilitator and demo serving this devnet. */
  setX402(x402: Manifest["x402"]): void;
  close(): Promise<void>;
}

export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const log = options.log ?? (() => {});
  // The manifests written here hold the devnet's keys.
  privateStateDir(options.stateDir);
  // Like a real node, a reverting transaction is accepted and mined: the relayer reads its receipt.
  const chain = await startChain({ chainId: options.chainId, fork: options.fork, throwOnTransactionFailures: false });
  let rpc: RpcServer | undefined;
  try {
    const clients = clientsFor(chain.provider, options.chainId);
    const roles = devRoles();
    // Every role is one of the dev accounts whose keys the chain holds: the chain signs their
    // transactions (one request each, no signing in JavaScript).
    const senderFor: SenderFor = (account) => createNodeAccountSender(clients, account.address);
    log(`deploying contracts on chain ${options.chainId}`);
    const suite = await deploySuite({
      clients,
      deployer: roles.deployer,
      relayer: roles.relayer.address,
      domainName: options.domainName,
      // On a fork the canonical addresses hold the real tokens: the mocks then get fresh addresses.
      canonicalTokens: true,
      senderFor,
    });
    const vault = await seedVault({
      clients,
      suite,
      deployer: roles.deployer,
      owner: roles.owner,
      operator: roles.operator.address,
      bots: { default: roles.defaultBot.address, reviewed: roles.reviewedBot.address },
      scanners: devScannerKeys().map((k) => k.address),
      senderFor,
    });
    rpc = await startRpcServer(chain.provider, options.rpcPort);

    let manifest = buildManifest({
      devnet: true,
      chainId: options.chainId,
      rpcUrl: rpc.url,
      domain: await readVaultDomain(clients.publicClient, vault),
      suite,
      vault,
      accounts: {
        owner: roles.owner,
        operator: roles.operator,
        relayer: roles.relayer,
        deployer: roles.deployer,
        bots: { default: roles.defaultBot, reviewed: roles.reviewedBot },
      },
    });
    const primary = options.primary ?? true;
    const chainFile = chainManifestPath(options.stateDir, options.chainId);
    const manifestFile = primary ? manifestPath(options.stateDir) : chainFile;
    const write = () => {
      if (primary) writeManifest(manifestFile, manifest);
      writeManifest(chainFile, manifest);
      if (options.manifestCopy) writeManifest(path.resolve(options.manifestCopy), manifest);
    };
    write();

    const running = rpc;
    return {
      chain,
      rpc: running,
      manifestFile,
      get manifest() {
        return manifest;
      },
      setRelayerUrl(url) {
        manifest = withRelayerUrl(manifest, url);
        write();
      },
      setX402(x402) {
        manifest = withX402(manifest, x402);
        write();
      },
      async close() {
        await running.close();
        await chain.close();
      },
    };
  } catch (error) {
    await rpc?.close();
    await chain.close();
    throw error;
  }
}
