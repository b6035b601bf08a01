// `relay serve`: the relayer. Without --rpc-url it first starts a devnet in the same process;
// with --rpc-url it serves an existing chain whose deployment is in the state directory's manifest.
// A repeated --chain-id starts one devnet chain per id and serves them all (not with --rpc-url).
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { EIP1193Provider } from "viem";
import { ledgerPath } from "../../ledger/index.ts";
import { manifestPath, readManifest, withRelayerUrl, writeManifest, type Manifest } from "../../devnet/manifest.ts";
import { chainFromManifest, parseRelayerConfig, type RelayerConfig } from "../../relayer/config.ts";
import { startRelayer, type RunningRelayer } from "../../app/service.ts";
import { DevnetSnapshots, MIN_TESTING_TOKEN_LENGTH, TESTING_TOKEN_ENV } from "../../devnet/snapshots.ts";
import { resolveStateDir } from "../state-dir.ts";
import { withStateLocks, type StateLocks } from "../state-lock.ts";
import { portClash } from "../options.ts";
import { fetchChainId } from "../chain-id.ts";
import { CliError, EXIT, throwIfInterrupted, waitForAbort, type CliIO } from "../io.ts";
import { announceReady, closeAll, devnetChainIds, launchDevnets, type DevnetCommandOptions } from "./devnet.ts";
import { startDevnetX402, type X402Server } from "../../x402/devnet.ts";

/**
 * The development node's methods that move its time forward. evm_setNextBlockTimestamp is not one:
 * it sets the next block's timestamp, and the chain's lead over the wall clock is known only once
 * that block is mined (relayer/clock.ts, Clock.pin).
 */
const MOVES_CHAIN_TIME: ReadonlySet<string> = new Set(["evm_increaseTime", "evm_mine", "hardhat_mine"]);
/** The methods after which the development node (automining) has mined a block. */
const MINES_A_BLOCK: ReadonlySet<string> = new Set(["evm_mine", "hardhat_mine", "eth_sendRawTransaction", "eth_sendTransaction"]);

export interface ServeCommandOptions extends DevnetCommandOptions {
  port: number;
  rpcUrl?: string;
  /** A JSON relayer configuration (several chains, keys, limits); replaces the manifest. */
  config?: string;
  aiEndpoint?: string;
  aiModel?: string;
  aiTimeoutMs?: number;
  /** A separate panel (`relay agents`) that signs verdicts; this host then holds no scanner key. */
  agentsUrl?: string;
  reviewWindow?: number;
  maxDeadline?: number;
  requestTimeoutMs?: number;
  /** The relayer's terms version owners must accept (config `terms.version`), and where it is published. */
  termsVersion?: string;
  termsUrl?: string;
  /** Start even with a well-known development relayer key on a chain that is not a development node. */
  allowDevKeys?: boolean;
  /** Keep the ledger in PostgreSQL (postgres://…), shared with every other instance on it. */
  databaseUrl?: string;
  /** Reverse proxies whose X-Forwarded-For names the client (config `trustedProxies`). */
  trustProxy?: string[];
  /** The address clients reach this relayer at (a proxy in front of several instances). */
  publicUrl?: string;
  /** With databaseUrl: how long a key lease and this instance's heartbeat last unless renewed. */
  leaseTtlMs?: number;
  /** The bearer token for GET /metrics's detailed series (config `metricsToken`; RELAY_METRICS_TOKEN). */
  metricsToken?: string;
}

export async function serve(options: ServeCommandOptions, io: CliIO): Promise<void> {
  if (options.config !== undefined) return serveFromConfigFile(options, options.config, io);
  if (options.rpcUrl === undefined) return serveWithDevnet(options, io);
  if (devnetChainIds(options).length > 1) {
    throw new CliError("--rpc-url serves one chain: give a single --chain-id, or serve several chains with --config", EXIT.USAGE);
  }
  return serveExistingChain(options, options.rpcUrl, io);
}

/** Settings given by flags that apply in every mode. */
function flagSettings(options: ServeCommandOptions) {
  return {
    ai: {
      timeoutMs: options.aiTimeoutMs ?? 30_000,
      ...(options.aiEndpoint ? { endpoint: options.aiEndpoint } : {}),
      ...(options.aiModel ? { model: options.aiModel } : {}),
      ...(options.agentsUrl ? { agentsUrl: options.agentsUrl } : {}),
      ...(process.env.RELAY_AI_API_KEY ? { apiKey: process.env.RELAY_AI_API_KEY } : {}),
    },
    ...(options.reviewWindow === undefined ? {} : { reviewWindowSeconds: options.reviewWindow }),
    ...(options.maxDeadline === undefined ? {} : { maxDeadlineSeconds: options.maxDeadline }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.trustProxy === undefined ? {} : { trustedProxies: options.trustProxy }),
    ...termsSettings(options),
    ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }),
  };
}

function termsSettings(options: ServeCommandOptions) {
  if (options.termsVersion === undefined) {
    if (options.termsUrl !== undefined) throw new CliError("--terms-url needs --terms-version", EXIT.USAGE);
    return {};
  }
  return { terms: { version: options.termsVersion, ...(options.termsUrl === undefined ? {} : { url: options.termsUrl }) } };
}

function configFor(options: ServeCommandOptions, stateDir: string, chains: unknown[]): RelayerConfig {
  try {
    return parseRelayerConfig({ stateDir, chains, ...flagSettings(options) });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

async function run(options: ServeCommandOptions, config: RelayerConfig, io: CliIO, providers?: ReadonlyMap<number, EIP1193Provider>, backgroundCheckpoints = true): Promise<RunningRelayer> {
  const port = options.port;
  try {
    return await startRelayer({
      config,
      port,
      providers,
      allowDevKeys: options.allowDevKeys === true,
      databaseUrl: options.databaseUrl,
      publicUrl: options.publicUrl,
      leaseTtlMs: options.leaseTtlMs,
      backgroundCheckpoints,
      log: (line) => io.stderr.write(`relay: ${line}\n`),
    });
  } catch (error) {
    throw portClash(error, port, "--port");
  }
}

async function serveWithDevnet(options: ServeCommandOptions, io: CliIO): Promise<void> {
  const stateDir = resolveStateDir(options.stateDir, io.env, io.cwd);
  // It starts its own chains (the manifests) and serves them (the ledger): both roles, before any
  // file is touched, so a second `relay serve` here never deletes a running one's ledger.
  return withStateLocks(stateDir, ["devnet", "relayer"], "serve", (locks) => serveWithDevnetLocked(options, stateDir, locks, io));
}

async function serveWithDevnetLocked(options: ServeCommandOptions, stateDir: string, locks: StateLocks, io: CliIO): Promise<void> {
  // Each devnet start is a fresh chain: a ledger from an earlier chain describes nothing on this one.
  // Only its owner deletes it: the relayer lock is held, so no relay process has it open.
  const testingToken = io.env[TESTING_TOKEN_ENV];
  if (testingToken !== undefined && testingToken.length < MIN_TESTING_TOKEN_LENGTH) {
    throw new CliError(`${TESTING_TOKEN_ENV} must be at least ${MIN_TESTING_TOKEN_LENGTH} characters (relay/testing sets a random one)`, EXIT.USAGE);
  }
  rmSync(ledgerPath(stateDir), { force: true });
  for (const suffix of ["-wal", "-shm"]) rmSync(ledgerPath(stateDir) + suffix, { force: true });
  const devnets = await launchDevnets(options, io);
  let relayer: RunningRelayer | undefined;
  let snapshots: DevnetSnapshots | undefined;
  const x402Servers: X402Server[] = [];
  const setRelayerUrl = (url: string | undefined) => devnets.forEach((d) => d.setRelayerUrl(url));
  try {
    const config = configFor(options, stateDir, devnets.map((d) => chainFromManifest(d.manifest)));
    const providers = new Map(devnets.map((d) => [d.manifest.chainId, d.chain.provider] as const));
    // A relayer restarted around every snapshot and revert checkpoints in its own commits (service.ts).
    relayer = await run(options, config, io, providers, testingToken === undefined);
    // Ctrl-C while the relayer started: the manifest never names it, no "ready", the finally closes all.
    throwIfInterrupted(io.signal, "start-up");
    // Time travel through a devnet's RPC server (`relay time advance`, a test's evm_increaseTime)
    // moves the relayer's clock for that chain before the caller hears back: its next request is
    // judged by the chain's new time, to the second (relayer/clock.ts).
    // A timestamp set for the next block holds the relayer's clock of that chain where it is until a
    // block is mined through the server (a transaction the relayer sends itself mines it too, and its
    // block then moves the clock as any block it reads does).
    for (const devnet of devnets) {
      const chainId = devnet.manifest.chainId;
      let pinned = false;
      devnet.rpc.setAfterAnswer(async (method) => {
        if (method === "evm_setNextBlockTimestamp") {
          pinned = true;
          relayer?.pinChainTime(chainId);
        } else if (pinned && MINES_A_BLOCK.has(method)) {
          pinned = false;
          await relayer?.chainBlockMined(chainId);
        } else if (MOVES_CHAIN_TIME.has(method)) {
          await relayer?.followChainTime(chainId);
        }
      });
    }
    setRelayerUrl(relayer.url);
    // Each chain's x402 facilitator and demo paid resource (x402/devnet.ts): listening now, their
    // packages loaded once the devnet is ready.
    for (const devnet of devnets) {
      const x402 = await startDevnetX402(devnet);
      x402Servers.push(x402);
      devnet.setX402({ facilitatorUrl: x402.facilitatorUrl, demoUrl: x402.demoUrl });
    }
    throwIfInterrupted(io.signal, "start-up");
    locks.setUrls([relayer.url, ...devnets.map((d) => d.manifest.rpcUrl)]);
    if (testingToken !== undefined) {
      // relay/testing's snapshot() and revert(id): a restart of the relayer on the same port around
      // each (devnet/snapshots.ts), offered on the devnets' own RPC servers to the token's holder.
      const port = relayer.port;
      snapshots = new DevnetSnapshots({
        providers,
        ledgerFile: ledgerPath(stateDir),
        dir: path.join(stateDir, "snapshots"),
        stopRelayer: async () => {
          await relayer?.close();
          relayer = undefined;
        },
        startRelayer: async () => {
          relayer = await run({ ...options, port }, config, io, providers, false);
        },
      });
      const methods = snapshots.methods(testingToken);
      for (const devnet of devnets) devnet.rpc.setLocalMethods(methods);
    }
    announceReady(devnets, options, io);
    for (const x402 of x402Servers) x402.warm();
    await waitForAbort(io.signal);
    io.stderr.write("relay: shutting down\n");
    for (const x402 of x402Servers.splice(0)) await x402.close();
    devnets.forEach((d) => d.setX402(undefined));
    await snapshots?.close();
    await relayer?.close();
    relayer = undefined;
    setRelayerUrl(undefined);
  } finally {
    for (const x402 of x402Servers) await x402.close();
    await snapshots?.close();
    await relayer?.close();
    await closeAll(devnets);
  }
}

async function serveExistingChain(options: ServeCommandOptions, rpcUrl: string, io: CliIO): Promise<void> {
  const stateDir = resolveStateDir(options.stateDir, io.env, io.cwd);
  // The ledger's owner; the manifest stays the devnet's (a `relay devnet` may run here meanwhile).
  return withStateLocks(stateDir, ["relayer"], "serve", (locks) => serveExistingChainLocked(options, rpcUrl, stateDir, locks, io));
}

async function serveExistingChainLocked(options: ServeCommandOptions, rpcUrl: string, stateDir: string, locks: StateLocks, io: CliIO): Promise<void> {
  const file = manifestPath(stateDir);
  let manifest: Manifest;
  try {
    manifest = readManifest(file);
  } catch (error) {
    throw new CliError(`${(error as Error).message}; run \`relay devnet\` or \`relay deploy\` with --state-dir ${stateDir} first`);
  }
  const chainId = await fetchChainId(rpcUrl);
  if (chainId !== manifest.chainId) {
    throw new CliError(`the chain at ${rpcUrl} has id ${chainId} but the manifest in ${stateDir} is for chain ${manifest.chainId}`);
  }
  // `metadata.scenario` is honoured when relay deployed the suite on a development node and the node
  // still says it is one (startRelayer asks it); never because of what the URL looks like.
  const config = configFor(options, stateDir, [chainFromManifest(manifest, rpcUrl)]);
  throwIfInterrupted(io.signal, "start-up");
  const relayer = await run(options, config, io);
  try {
    throwIfInterrupted(io.signal, "start-up");
    const serving = withRelayerUrl({ ...manifest, rpcUrl }, relayer.url);
    writeManifest(file, serving);
    locks.setUrls([relayer.url, rpcUrl]);
    if (options.json) io.stdout.write(`${JSON.stringify(serving)}\n`);
    io.stderr.write(`relay: ready — relayer ${relayer.url} chain ${chainId} rpc ${rpcUrl}\n`);
    await waitForAbort(io.signal);
    io.stderr.write("relay: shutting down\n");
  } finally {
    await relayer.close();
    // The manifest may have been rewritten meanwhile (a new `relay devnet`): drop only our URL.
    try {
      writeManifest(file, withRelayerUrl(readManifest(file), undefined));
    } catch (error) {
      io.stderr.write(`relay: could not remove relayerUrl from ${file}: ${(error as Error).message}\n`);
    }
  }
}

/** `--config <file>`: every chain, key and limit from one JSON file (the schema of relayer/config.ts). */
async function serveFromConfigFile(options: ServeCommandOptions, file: string, io: CliIO): Promise<void> {
  const full = path.resolve(io.cwd, file);
  if (!existsSync(full)) throw new CliError(`config file ${file} does not exist`);
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(readFileSync(full, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  let config: RelayerConfig;
  try {
    config = parseRelayerConfig({ stateDir: resolveStateDir(options.stateDir, io.env, io.cwd), ...flagSettings(options), ...input });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  // The configuration may name its own state directory: that one is the ledger's.
  return withStateLocks(config.stateDir, ["relayer"], "serve", (locks) => serveConfigLocked(options, config, locks, io));
}

async function serveConfigLocked(options: ServeCommandOptions, config: RelayerConfig, locks: StateLocks, io: CliIO): Promise<void> {
  for (const chain of config.chains) {
    const id = await fetchChainId(chain.rpcUrl);
    if (id !== chain.chainId) throw new CliError(`the chain at ${chain.rpcUrl} has id ${id}, not ${chain.chainId} as configured`);
  }
  throwIfInterrupted(io.signal, "start-up");
  const relayer = await run(options, config, io);
  try {
    throwIfInterrupted(io.signal, "start-up");
    locks.setUrls([relayer.url, ...config.chains.map((c) => c.rpcUrl)]);
    if (options.json) io.stdout.write(`${JSON.stringify({ relayerUrl: relayer.url, chainIds: config.chains.map((c) => c.chainId) })}\n`);
    io.stderr.write(`relay: ready — relayer ${relayer.url} chains ${config.chains.map((c) => c.chainId).join(", ")}\n`);
    await waitForAbort(io.signal);
    io.stderr.write("relay: shutting down\n");
  } finally {
    await relayer.close();
  }
}
