// `relay devnet`: chain + deployment + seed, until SIGINT/SIGTERM. A repeated `--chain-id` starts
// one in-process chain per id, each on its own RPC port with its own deployment: the first chain's
// manifest is `<state-dir>/devnet.json` as with one chain, and every chain has `devnet-<id>.json`.
import { rmSync } from "node:fs";
import path from "node:path";
import { startDevnet, type Devnet } from "../../devnet/start.ts";
import { formatBanner } from "../../devnet/banner.ts";
import { chainManifestPath } from "../../devnet/manifest.ts";
import { SUPPORTED_CHAIN_IDS } from "../../devnet/tokens.ts";
import { resolveStateDir } from "../state-dir.ts";
import { withStateLocks } from "../state-lock.ts";
import { portClash } from "../options.ts";
import { CliError, EXIT, throwIfInterrupted, waitForAbort, type CliIO } from "../io.ts";

export interface DevnetCommandOptions {
  /** The chains to start, in order (repeatable `--chain-id`); absent means 84532 alone. */
  chainId?: number[];
  domainName: string;
  /** The first chain's JSON-RPC port; the next chains take the following ports (0 = free ports). */
  rpcPort: number;
  fork?: string;
  stateDir?: string;
  manifest?: string;
  json?: boolean;
}

export const DEFAULT_DEVNET_CHAIN_ID = 84532;

/** The chain ids a devnet command starts: those given, or the default chain. */
export function devnetChainIds(options: Pick<DevnetCommandOptions, "chainId">): number[] {
  return options.chainId !== undefined && options.chainId.length > 0 ? options.chainId : [DEFAULT_DEVNET_CHAIN_ID];
}

/**
 * Starts every chain of the devnet, one after the other; on a failure the ones started are closed.
 * The caller holds the state directory's devnet lock: this replaces its manifests.
 */
export async function launchDevnets(options: DevnetCommandOptions, io: CliIO): Promise<Devnet[]> {
  const chainIds = devnetChainIds(options);
  if (chainIds.length > 1 && options.fork !== undefined) {
    throw new CliError("--fork forks one network: give a single --chain-id with it", EXIT.USAGE);
  }
  if (options.rpcPort !== 0 && options.rpcPort + chainIds.length - 1 > 65535) {
    throw new CliError(`--rpc-port ${options.rpcPort} leaves no room for ${chainIds.length} chains (each takes the next port)`, EXIT.USAGE);
  }
  const stateDir = resolveStateDir(options.stateDir, io.env, io.cwd);
  // Per-chain manifests of an earlier devnet would describe chains that no longer run.
  for (const id of SUPPORTED_CHAIN_IDS) rmSync(chainManifestPath(stateDir, id), { force: true });

  const started = performance.now();
  const devnets: Devnet[] = [];
  try {
    for (const [index, chainId] of chainIds.entries()) {
      // Ctrl-C between two steps of the start: what started is closed (below), nothing more starts.
      throwIfInterrupted(io.signal, "start-up");
      const rpcPort = options.rpcPort === 0 ? 0 : options.rpcPort + index;
      devnets.push(
        await startDevnet({
          chainId,
          domainName: options.domainName,
          rpcPort,
          fork: options.fork,
          stateDir,
          primary: index === 0,
          manifestCopy: index === 0 && options.manifest !== undefined ? path.resolve(io.cwd, options.manifest) : undefined,
          log: (line) => io.stderr.write(`relay: ${line}\n`),
        }).catch((error: unknown) => {
          throw portClash(error, rpcPort, "--rpc-port");
        }),
      );
    }
    throwIfInterrupted(io.signal, "start-up");
  } catch (error) {
    await closeAll(devnets);
    throw error;
  }
  const what = devnets.length === 1 ? "chain" : `${devnets.length} chains`;
  io.stderr.write(`relay: ${what} ready in ${Math.round(performance.now() - started)} ms\n`);
  return devnets;
}

export async function closeAll(devnets: readonly Devnet[]): Promise<void> {
  for (const devnet of [...devnets].reverse()) await devnet.close();
}

/** The banner on stderr; with --json one manifest per line on stdout (the first chain's first). */
export function announceReady(devnets: readonly Devnet[], options: { json?: boolean }, io: CliIO): void {
  io.stderr.write(formatBanner(devnets.map((d) => ({ manifest: d.manifest, manifestFile: d.manifestFile }))));
  if (options.json) for (const d of devnets) io.stdout.write(`${JSON.stringify(d.manifest)}\n`);
  const first = devnets[0]!.manifest;
  const relayer = first.relayerUrl ? ` relayer ${first.relayerUrl}` : "";
  const rpc = devnets.map((d) => (devnets.length === 1 ? d.manifest.rpcUrl : `${d.manifest.rpcUrl} (chain ${d.manifest.chainId})`)).join(", ");
  io.stderr.write(`relay: ready — rpc ${rpc}${relayer} manifest ${devnets[0]!.manifestFile}\n`);
}

export async function devnet(options: DevnetCommandOptions, io: CliIO): Promise<void> {
  const stateDir = resolveStateDir(options.stateDir, io.env, io.cwd);
  await withStateLocks(stateDir, ["devnet"], "devnet", async (locks) => {
    const running = await launchDevnets(options, io);
    try {
      locks.setUrls(running.map((d) => d.manifest.rpcUrl));
      announceReady(running, options, io);
      await waitForAbort(io.signal);
      io.stderr.write("relay: shutting down\n");
    } finally {
      await closeAll(running);
    }
  });
}
