// Several relayer instances on one PostgreSQL database and one devnet chain, as `relay serve
// --database-url` runs them: each instance its own state directory and HTTP port, all of them on
// the same chain (the devnet's in-process provider) and the same database.
import type { EIP1193Provider, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { createSender } from "../../src/chain/sender.ts";
import { devKeyPair, ROLE_INDEX } from "../../src/devnet/accounts.ts";
import { startDevnet } from "../../src/devnet/start.ts";
import { chainFromManifest, parseRelayerConfig, type RelayerConfigInput } from "../../src/relayer/config.ts";
import { startRelayer, type RunningRelayer } from "../../src/app/service.ts";
import { startPostgres, type PostgresServer } from "../support/postgres.ts";
import type { Env } from "../relayer/harness.ts";
import { removeTempDir, tempDir } from "../helpers/temp-dir.ts";

export interface Instances {
  /** The environment of the first instance (its url); the others share its chain and database. */
  env: Env;
  relayers: RunningRelayer[];
  databaseUrl: string;
  /** The database server (a test may stop it). */
  postgres: PostgresServer;
  /** What the instances logged. */
  logs: string[];
  /** Starts one more instance on the same chain and database. */
  startInstance(options?: { relayerKeys?: Hex[] }): Promise<RunningRelayer>;
  close(): Promise<void>;
}

export interface InstancesOptions {
  count: number;
  /** Relayer keys of instance i (default: the manifest's relayer key for every instance). */
  relayerKeys?: (index: number) => Hex[];
  config?: Partial<RelayerConfigInput>;
  /** How long a relayer key's lease lasts unless renewed (startRelayer's leaseTtlMs). */
  leaseTtlMs?: number;
}

export async function startInstances(options: InstancesOptions): Promise<Instances> {
  const postgres: PostgresServer = await startPostgres();
  const databaseUrl = await postgres.newDatabase();
  const devnetDir = tempDir("relay-instances-");
  const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir: devnetDir });
  const manifest = devnet.manifest;
  const provider = devnet.chain.provider as EIP1193Provider;
  const clients = clientsFor(provider, manifest.chainId);
  // Relayer keys beyond the manifest's must be authorized by the registry (its owner is the deployer).
  const deployer = createSender(clients, devKeyPair(ROLE_INDEX.deployer).privateKey);
  const extraKeys = new Set(Array.from({ length: options.count }, (_, i) => options.relayerKeys?.(i) ?? []).flat());
  for (const key of extraKeys) {
    await deployer.call(manifest.contracts.registry as `0x${string}`, "ServiceRegistry", "addRelayer", [privateKeyToAccount(key).address]);
  }
  const relayers: RunningRelayer[] = [];
  const dirs = [devnetDir];
  const logs: string[] = [];
  const startInstance = async (instance: { relayerKeys?: Hex[] } = {}) => {
    const stateDir = tempDir("relay-instance-");
    dirs.push(stateDir);
    const chain = { ...chainFromManifest(manifest), ...(instance.relayerKeys ? { relayerKeys: instance.relayerKeys } : {}) };
    const config = parseRelayerConfig({ stateDir, chains: [chain], ...options.config });
    const relayer = await startRelayer({ config, port: 0, providers: new Map([[manifest.chainId, provider]]), databaseUrl, leaseTtlMs: options.leaseTtlMs, log: (line) => logs.push(line) });
    relayers.push(relayer);
    return relayer;
  };
  try {
    await Promise.all(Array.from({ length: options.count }, (_, i) => startInstance({ relayerKeys: options.relayerKeys?.(i) })));
  } catch (error) {
    await Promise.allSettled(relayers.map((r) => r.close()));
    await devnet.close();
    await postgres.stop();
    throw error;
  }
  const env: Env = {
    devnet,
    relayer: relayers[0]!,
    manifest,
    clients,
    url: relayers[0]!.url,
    stateDir: devnetDir,
    bot: privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex),
    reviewedBot: privateKeyToAccount(manifest.accounts.bots.reviewed.privateKey as Hex),
    owner: createSender(clients, manifest.accounts.owner.privateKey as Hex),
    ownerAccount: privateKeyToAccount(manifest.accounts.owner.privateKey as Hex),
    vault: manifest.contracts.vault as `0x${string}`,
    token: (symbol) => manifest.tokens[symbol]!.address as `0x${string}`,
    instanceUrls: relayers.map((r) => r.url),
    store: relayers[0]!.store,
    stopRelayers: async () => void (await Promise.allSettled(relayers.map((r) => r.close()))),
    startRelayers: async () => {
      throw new Error("startInstances: start more instances with startInstance()");
    },
    close: async () => {},
  };
  return {
    env,
    relayers,
    databaseUrl,
    postgres,
    logs,
    startInstance,
    async close() {
      await Promise.allSettled(relayers.map((r) => r.close()));
      await devnet.close();
      await postgres.stop();
      for (const dir of dirs) removeTempDir(dir);
    },
  };
}
