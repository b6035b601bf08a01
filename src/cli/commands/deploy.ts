// `relay deploy`: the contract suite onto an existing chain, seeded like a devnet, and its manifest.
import path from "node:path";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../chain/clients.ts";
import { readArtifact } from "../../chain/artifacts.ts";
import { deploySuite, supportsSetCode } from "../../devnet/deploy.ts";
import { seedVault } from "../../devnet/seed.ts";
import { manifestPath, writeManifest, type Manifest } from "../../devnet/manifest.ts";
import type { KeyPair } from "../../devnet/accounts.ts";
import { CliError, type CliIO } from "../io.ts";

export interface DeployCommandOptions {
  rpcUrl: string;
  key: Hex;
  ownerKey?: Hex;
  relayerKey?: Hex;
  operatorKey?: Hex;
  domainName: string;
  stateDir: string;
  manifest?: string;
  json?: boolean;
}

const pair = (privateKey: Hex): KeyPair => ({ address: privateKeyToAccount(privateKey).address, privateKey });

export async function deploy(options: DeployCommandOptions, io: CliIO): Promise<void> {
  let chainId: number;
  try {
    chainId = await clientsFor(options.rpcUrl, 1).publicClient.getChainId();
  } catch {
    throw new CliError(`cannot reach a JSON-RPC node at ${options.rpcUrl}`);
  }
  const clients = clientsFor(options.rpcUrl, chainId);
  const deployer = pair(options.key);
  const owner = pair(options.ownerKey ?? options.key);
  const relayer = pair(options.relayerKey ?? options.key);
  const operator = pair(options.operatorKey ?? generatePrivateKey());
  const bots = { default: pair(generatePrivateKey()), reviewed: pair(generatePrivateKey()) };

  const canonicalTokens = await supportsSetCode(clients);
  io.stderr.write(`relay: deploying the contract suite to chain ${chainId} from ${deployer.address}\n`);
  const suite = await deploySuite({ clients, deployer, relayer: relayer.address, domainName: options.domainName, canonicalTokens });
  const vault = await seedVault({
    clients,
    suite,
    deployer,
    owner,
    operator: operator.address,
    bots: { default: bots.default.address, reviewed: bots.reviewed.address },
  });
  const [, name, version, domainChainId, verifyingContract] = (await clients.publicClient.readContract({
    address: vault,
    abi: readArtifact("ServiceVault").abi,
    functionName: "eip712Domain",
  })) as readonly [string, string, string, bigint, `0x${string}`];

  const manifest: Manifest = {
    version: 1,
    chainId,
    rpcUrl: options.rpcUrl,
    domain: { name, version, chainId: Number(domainChainId), verifyingContract },
    contracts: {
      registry: suite.registry,
      factory: suite.factory,
      vault,
      router: suite.router,
      nft: suite.nft,
      marketplace: suite.marketplace,
      lending: suite.lending,
      priceFeeds: suite.priceFeeds,
    },
    tokens: suite.tokens,
    accounts: { owner, operator, relayer, deployer, bots },
  };
  const file = manifestPath(path.resolve(io.cwd, options.stateDir));
  writeManifest(file, manifest);
  if (options.manifest) writeManifest(path.resolve(io.cwd, options.manifest), manifest);
  io.stderr.write(`relay: deployed; vault ${vault}; manifest ${file}\n`);
  io.stdout.write(options.json ? `${JSON.stringify(manifest)}\n` : `${file}\n`);
}
