// `relay deploy`: the contract suite onto an existing chain, seeded like a devnet, and its manifest.
import { rmSync } from "node:fs";
import path from "node:path";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../chain/clients.ts";
import { deploySuite, supportsSetCode } from "../../devnet/deploy.ts";
import { seedVault } from "../../devnet/seed.ts";
import { buildManifest, chainManifestPath, manifestPath, writeManifest } from "../../devnet/manifest.ts";
import { SUPPORTED_CHAIN_IDS } from "../../devnet/tokens.ts";
import { readVaultDomain } from "../../../packages/client/src/sign.ts";
import { devScannerKeys, type KeyPair } from "../../devnet/accounts.ts";
import { nodeKind } from "../../chain/dev-node.ts";
import { privateStateDir } from "../../private-files.ts";
import { resolveStateDir } from "../state-dir.ts";
import { withStateLocks } from "../state-lock.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";

export interface DeployCommandOptions {
  rpcUrl: string;
  key: Hex;
  ownerKey?: Hex;
  relayerKey?: Hex;
  operatorKey?: Hex;
  domainName: string;
  stateDir?: string;
  manifest?: string;
  json?: boolean;
  /** On a chain that is not a development node, allow one key in two of the roles deployer, owner, relayer. */
  allowSharedKeys?: boolean;
}

const pair = (privateKey: Hex): KeyPair => ({ address: privateKeyToAccount(privateKey).address, privateKey });

export async function deploy(options: DeployCommandOptions, io: CliIO): Promise<void> {
  const stateDir = resolveStateDir(options.stateDir, io.env, io.cwd);
  // It replaces the directory's manifests: not while a devnet (or another deploy) owns them.
  await withStateLocks(stateDir, ["devnet"], "deploy", async (locks) => {
    locks.setUrls([options.rpcUrl]);
    await deployLocked(options, stateDir, io);
  });
}

async function deployLocked(options: DeployCommandOptions, stateDir: string, io: CliIO): Promise<void> {
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

  const devnet = (await nodeKind(options.rpcUrl, chainId)) === "development";
  if (!devnet) {
    refuseSharedKeys({ "registry owner (--key)": deployer, "vault owner (--owner-key)": owner, "relayer (--relayer-key)": relayer }, options);
    io.stderr.write(
      `relay: warning: chain ${chainId} is not a development node. The suite is for testing: its mock tokens have a public \`mint\` and its mock price feeds a public \`setPrice\`, so anyone can mint the tokens and move the prices\n`,
    );
  }

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
    // On a development node, a relayer serving it signs verdicts with the devnet's panel keys.
    ...(devnet && !devScannerKeys().some((k) => k.address === relayer.address) ? { scanners: devScannerKeys().map((k) => k.address) } : {}),
  });
  const manifest = buildManifest({
    chainId,
    rpcUrl: options.rpcUrl,
    domain: await readVaultDomain(clients.publicClient, vault),
    suite,
    vault,
    accounts: { owner, operator, relayer, deployer, bots },
    devnet,
  });
  const file = manifestPath(stateDir);
  privateStateDir(stateDir);
  writeManifest(file, manifest);
  // The state directory now describes this deployment alone: per-chain manifests of an earlier
  // devnet go, and this chain gets its own, as `relay devnet` writes them.
  for (const id of SUPPORTED_CHAIN_IDS) rmSync(chainManifestPath(stateDir, id), { force: true });
  writeManifest(chainManifestPath(stateDir, chainId), manifest);
  if (options.manifest) writeManifest(path.resolve(io.cwd, options.manifest), manifest);
  io.stderr.write(`relay: deployed; vault ${vault}; manifest ${file}\n`);
  io.stdout.write(options.json ? `${JSON.stringify(manifest)}\n` : `${file}\n`);
}

/**
 * One key in two roles means one leaked key is both: the relayer's key (kept hot on a server) would
 * also own the vault or the registry. Refused off a development node unless --allow-shared-keys.
 */
function refuseSharedKeys(roles: Record<string, KeyPair>, options: DeployCommandOptions): void {
  if (options.allowSharedKeys) return;
  const entries = Object.entries(roles);
  for (const [i, [role, key]] of entries.entries()) {
    const same = entries.slice(i + 1).find(([, other]) => other.address === key.address);
    if (same !== undefined) {
      throw new CliError(
        `the ${role} and the ${same[0]} would be the same key ${key.address} on a chain that is not a development node; give each role its own key, or pass --allow-shared-keys`,
        EXIT.USAGE,
      );
    }
  }
}
