// `relay devnet`: chain + deployment + seed, until SIGINT/SIGTERM.
import path from "node:path";
import { startDevnet, type Devnet } from "../../devnet/start.ts";
import { formatBanner } from "../../devnet/banner.ts";
import { waitForAbort, type CliIO } from "../io.ts";

export interface DevnetCommandOptions {
  chainId: number;
  domainName: string;
  rpcPort: number;
  fork?: string;
  stateDir: string;
  manifest?: string;
  json?: boolean;
}

export async function launchDevnet(options: DevnetCommandOptions, io: CliIO): Promise<Devnet> {
  const started = performance.now();
  const devnet = await startDevnet({
    chainId: options.chainId,
    domainName: options.domainName,
    rpcPort: options.rpcPort,
    fork: options.fork,
    stateDir: path.resolve(io.cwd, options.stateDir),
    manifestCopy: options.manifest === undefined ? undefined : path.resolve(io.cwd, options.manifest),
    log: (line) => io.stderr.write(`relay: ${line}\n`),
  });
  io.stderr.write(`relay: chain ready in ${Math.round(performance.now() - started)} ms\n`);
  return devnet;
}

export function announceReady(devnet: Devnet, options: { json?: boolean }, io: CliIO): void {
  io.stderr.write(formatBanner(devnet.manifest, devnet.manifestFile));
  if (options.json) io.stdout.write(`${JSON.stringify(devnet.manifest)}\n`);
  const relayer = devnet.manifest.relayerUrl ? ` relayer ${devnet.manifest.relayerUrl}` : "";
  io.stderr.write(`relay: ready — rpc ${devnet.manifest.rpcUrl}${relayer} manifest ${devnet.manifestFile}\n`);
}

export async function devnet(options: DevnetCommandOptions, io: CliIO): Promise<void> {
  const running = await launchDevnet(options, io);
  try {
    announceReady(running, options, io);
    await waitForAbort(io.signal);
    io.stderr.write("relay: shutting down\n");
  } finally {
    await running.close();
  }
}
