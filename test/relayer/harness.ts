// An end-to-end environment for relayer tests: a real devnet (in-process Hardhat chain, contracts
// deployed and seeded) and a real relayer on 127.0.0.1 serving it over HTTP, with helpers to sign
// and send intents exactly as a bot would, and to change the vault's configuration as its owner.
// In the cluster run (test/relayer/deployment.ts) the relayer is three `relay serve` processes on
// PostgreSQL behind nginx instead, and `url` is the proxy's.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encodeFunctionData, type Address, type EIP1193Provider, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { createSender, type Sender } from "../../src/chain/sender.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { chainFromManifest, parseRelayerConfig, type RelayerConfigInput } from "../../src/relayer/config.ts";
import { startRelayer, type RunningRelayer } from "../../src/app/service.ts";
import { openPostgresStore } from "../../src/ledger/postgres/index.ts";
import type { Store } from "../../src/relayer/store.ts";
import { paymentRequestBody, executeRequestBody, swapRequestBody } from "../../packages/client/src/bodies.ts";
import { signPaymentIntent, signExecuteIntent, signSwapIntent, defaultDeadline, randomRef } from "../../packages/client/src/sign.ts";
import type { ExecuteIntent, PaymentIntent, SwapIntent } from "../../packages/client/src/intent-types.ts";
import { startCluster, type Cluster } from "../support/cluster.ts";
import { clusterRun, clusterStore, serveFlags } from "./deployment.ts";

export interface Env {
  devnet: Devnet;
  /** The in-process relayer (reading it in the cluster run throws: there it is other processes). */
  relayer: RunningRelayer;
  /** The deployment, in the cluster run only. */
  cluster?: Cluster;
  manifest: Manifest;
  clients: Clients;
  /** Where bots send requests: the relayer's URL, or in the cluster run the proxy's. */
  url: string;
  /**
   * Each relayer process's own URL, for what a process answers for itself (its /metrics, its
   * /readyz): one URL, or in the cluster run one per instance (bypassing the proxy).
   */
  instanceUrls: string[];
  /**
   * The relayers' ledger, to observe what they recorded: the in-process relayer's store, or in the
   * cluster run the shared PostgreSQL database opened from the test (a second client, as an
   * operator's query would be).
   */
  store: Store;
  stateDir: string;
  bot: PrivateKeyAccount;
  reviewedBot: PrivateKeyAccount;
  owner: Sender;
  ownerAccount: PrivateKeyAccount;
  vault: Address;
  token(symbol: string): Address;
  /** Stops every relayer (SIGTERM in the cluster run); the chain and the ledger stay. */
  stopRelayers(): Promise<void>;
  /** Starts the relayers again on the same ledger, with these settings instead of startEnv's. */
  startRelayers(overrides?: Partial<RelayerConfigInput>): Promise<void>;
  close(): Promise<void>;
}

export interface EnvOptions {
  /** Wraps the devnet's provider for the relayer only (the test's own clients use the devnet directly). */
  relayerProvider?: (provider: EIP1193Provider, manifest: Manifest) => EIP1193Provider;
  /** "cluster": three instances on PostgreSQL behind nginx; default: RELAY_TEST_DEPLOYMENT (deployment.ts). */
  deployment?: "one" | "cluster";
  /** Receives the in-process relayer's log lines (one relayer only). */
  log?: (line: string) => void;
}

export async function startEnv(overrides: Partial<RelayerConfigInput> = {}, options: EnvOptions = {}): Promise<Env> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-e2e-"));
  const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  const manifest = devnet.manifest;
  if ((options.deployment ?? (clusterRun() ? "cluster" : "one")) === "cluster") return clusterEnv(devnet, stateDir, overrides, options);
  const provider = devnet.chain.provider as EIP1193Provider;
  const relayerProvider = options.relayerProvider?.(provider, manifest) ?? provider;
  const start = (settings: Partial<RelayerConfigInput>) => {
    const config = parseRelayerConfig({ stateDir, chains: [chainFromManifest(manifest)], ...settings });
    return startRelayer({ config, port: 0, providers: new Map([[manifest.chainId, relayerProvider]]), log: options.log });
  };
  let relayer: RunningRelayer | undefined = await start(overrides);
  let last = relayer;
  const clients = clientsFor(provider, manifest.chainId);
  return {
    devnet,
    get relayer() {
      return last;
    },
    manifest,
    clients,
    get url() {
      return last.url;
    },
    get instanceUrls() {
      return [last.url];
    },
    get store() {
      return last.store;
    },
    stateDir,
    ...devnetParties(manifest, clients),
    async stopRelayers() {
      await relayer?.close();
      relayer = undefined;
    },
    async startRelayers(settings = overrides) {
      if (relayer) throw new Error("startRelayers: stopRelayers() first");
      relayer = last = await start(settings);
    },
    async close() {
      await relayer?.close();
      relayer = undefined;
      await devnet.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** The devnet's seeded bots, owner, vault and tokens, as both kinds of Env give them. */
function devnetParties(manifest: Devnet["manifest"], clients: Env["clients"]): Pick<Env, "bot" | "reviewedBot" | "owner" | "ownerAccount" | "vault" | "token"> {
  return {
    bot: privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex),
    reviewedBot: privateKeyToAccount(manifest.accounts.bots.reviewed.privateKey as Hex),
    owner: createSender(clients, manifest.accounts.owner.privateKey as Hex),
    ownerAccount: privateKeyToAccount(manifest.accounts.owner.privateKey as Hex),
    vault: manifest.contracts.vault as Address,
    token: (symbol) => manifest.tokens[symbol]!.address as Address,
  };
}

/** The cluster run's Env: the same devnet, served by startCluster's instances behind the proxy. */
async function clusterEnv(devnet: Devnet, stateDir: string, overrides: Partial<RelayerConfigInput>, options: EnvOptions): Promise<Env> {
  let cluster: Cluster | undefined;
  try {
    if (options.relayerProvider) throw new Error("startEnv: a wrapped provider exists only in this process, so the cluster run cannot apply it");
    cluster = await startCluster({ devnet, store: clusterStore(), serveArgs: clusterServeArgs(devnet, stateDir, overrides) });
    const running = cluster;
    const store = running.databaseUrl ? await openPostgresStore(running.databaseUrl, { poolSize: 2 }) : undefined;
    const manifest = devnet.manifest;
    const clients = clientsFor(devnet.chain.provider as EIP1193Provider, manifest.chainId);
    const env: Omit<Env, "relayer" | "store"> = {
      devnet,
      cluster: running,
      manifest,
      clients,
      url: running.url,
      get instanceUrls() {
        return running.instances.map((i) => i.url);
      },
      stateDir,
      ...devnetParties(manifest, clients),
      async stopRelayers() {
        await Promise.all(running.instances.map((i) => i.kill("SIGTERM")));
      },
      async startRelayers(settings = overrides) {
        const args = clusterServeArgs(devnet, stateDir, settings);
        await Promise.all(running.instances.map((i) => i.restart(args)));
      },
      async close() {
        await store?.close();
        await running.stop();
        await devnet.close();
        rmSync(stateDir, { recursive: true, force: true });
      },
    };
    return Object.defineProperties(env, {
      relayer: {
        get() {
          throw new Error("env.relayer: the cluster run's relayers are separate processes (see test/relayer/deployment.ts)");
        },
      },
      store: {
        get() {
          if (!store) throw new Error("env.store: RELAY_CLUSTER_STORE=sqlite gives each instance its own ledger, none of them shared");
          return store;
        },
      },
    }) as Env;
  } catch (error) {
    await cluster?.stop();
    await devnet.close();
    throw error;
  }
}

/** The `relay serve` flags for `overrides`; settings with no flag go in a config file with the devnet's chain (its RPC on loopback). */
function clusterServeArgs(devnet: Devnet, stateDir: string, overrides: Partial<RelayerConfigInput>): string[] {
  const { flags, rest } = serveFlags(overrides);
  if (Object.keys(rest).length > 0) {
    const file = path.join(stateDir, "cluster-config.json");
    writeFileSync(file, JSON.stringify({ chains: [chainFromManifest(devnet.manifest, devnet.rpc.url)], ...rest }));
    flags.push("--config", file);
  }
  return flags;
}

/** POST a JSON body; returns status, headers, parsed body and the raw text. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: safeJson(text) as Record<string, any> };
}

export async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: safeJson(text) as Record<string, any> };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A signed payment body (default bot, 1 USDC to a fresh address unless overridden). */
export async function paymentBody(env: Env, intent: Partial<PaymentIntent> = {}, extras: { signer?: PrivateKeyAccount; memo?: string; metadata?: Record<string, string>; idempotencyKey?: string } = {}) {
  const signer = extras.signer ?? env.bot;
  const full: PaymentIntent = {
    bot: signer.address,
    to: "0x000000000000000000000000000000000000dEaD",
    token: env.token("USDC"),
    amount: 1_000_000n,
    deadline: defaultDeadline(),
    ref: randomRef(),
    ...intent,
  };
  const signature = await signPaymentIntent(signer, env.manifest.domain as never, full);
  return paymentRequestBody(env.manifest.domain as never, full, signature, {
    idempotencyKey: extras.idempotencyKey ?? crypto.randomUUID(),
    memo: extras.memo,
    metadata: extras.metadata,
  });
}

export async function executeBody(env: Env, intent: Partial<ExecuteIntent> & { protocol: Address }, callData: Hex, extras: { signer?: PrivateKeyAccount; memo?: string; metadata?: Record<string, string> } = {}) {
  const signer = extras.signer ?? env.bot;
  const { keccak256 } = await import("viem");
  const full: ExecuteIntent = {
    bot: signer.address,
    calldataHash: keccak256(callData),
    tokens: [],
    amounts: [],
    value: 0n,
    deadline: defaultDeadline(),
    ref: randomRef(),
    ...intent,
  };
  const signature = await signExecuteIntent(signer, env.manifest.domain as never, full);
  return executeRequestBody(env.manifest.domain as never, full, callData, signature, { idempotencyKey: crypto.randomUUID(), memo: extras.memo, metadata: extras.metadata });
}

export async function swapBody(env: Env, intent: Partial<SwapIntent> & Pick<SwapIntent, "fromToken" | "toToken" | "maxFromAmount" | "minToAmount">, extras: { metadata?: Record<string, string> } = {}) {
  const full: SwapIntent = { bot: env.bot.address, deadline: defaultDeadline(), ref: randomRef(), ...intent };
  const signature = await signSwapIntent(env.bot, env.manifest.domain as never, full);
  return swapRequestBody(env.manifest.domain as never, full, signature, { idempotencyKey: crypto.randomUUID(), metadata: extras.metadata });
}

/** ERC-20 balance. */
export async function balanceOf(env: Env, token: Address, who: Address): Promise<bigint> {
  const { erc20Abi } = await import("viem");
  return env.clients.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });
}

/** Sends an owner transaction to the vault: `ownerCall(env, "pause")`. */
export function ownerCall(env: Env, functionName: string, args: readonly unknown[] = []) {
  return env.owner.call(env.vault, "ServiceVault", functionName, args);
}

export function calldata(contract: string, functionName: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: readArtifact(contract).abi, functionName, args });
}

export function fresh(): Address {
  return privateKeyToAccount(`0x${crypto.getRandomValues(new Uint8Array(32)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "")}` as Hex).address;
}
