// `relay serve`: the relayer. Without --rpc-url it first starts a devnet in the same process;
// with --rpc-url it serves an existing chain whose deployment is in the state directory's manifest.
import path from "node:path";
import { startServer, type RelayerServer } from "../../server/app.ts";
import { manifestPath, readManifest, withRelayerUrl, writeManifest, type Manifest } from "../../devnet/manifest.ts";
import { CliError, waitForAbort, type CliIO } from "../io.ts";
import { announceReady, launchDevnet, type DevnetCommandOptions } from "./devnet.ts";

export interface ServeCommandOptions extends DevnetCommandOptions {
  port: number;
  rpcUrl?: string;
}

export async function serve(options: ServeCommandOptions, io: CliIO): Promise<void> {
  if (options.rpcUrl === undefined) return serveWithDevnet(options, io);
  return serveExistingChain(options, options.rpcUrl, io);
}

async function serveWithDevnet(options: ServeCommandOptions, io: CliIO): Promise<void> {
  const devnet = await launchDevnet(options, io);
  let server: RelayerServer | undefined;
  try {
    server = await startServer({ port: options.port, chainIds: [devnet.manifest.chainId] });
    devnet.setRelayerUrl(server.url);
    announceReady(devnet, options, io);
    await waitForAbort(io.signal);
    io.stderr.write("relay: shutting down\n");
    await server.close();
    server = undefined;
    devnet.setRelayerUrl(undefined);
  } finally {
    await server?.close();
    await devnet.close();
  }
}

async function serveExistingChain(options: ServeCommandOptions, rpcUrl: string, io: CliIO): Promise<void> {
  const file = manifestPath(path.resolve(io.cwd, options.stateDir));
  let manifest: Manifest;
  try {
    manifest = readManifest(file);
  } catch (error) {
    throw new CliError(`${(error as Error).message}; run \`relay devnet\` or \`relay deploy\` with --state-dir ${options.stateDir} first`);
  }
  const chainId = await fetchChainId(rpcUrl);
  if (chainId !== manifest.chainId) {
    throw new CliError(`the chain at ${rpcUrl} has id ${chainId} but the manifest in ${options.stateDir} is for chain ${manifest.chainId}`);
  }
  const server = await startServer({ port: options.port, chainIds: [chainId] });
  try {
    const serving = withRelayerUrl({ ...manifest, rpcUrl }, server.url);
    writeManifest(file, serving);
    if (options.json) io.stdout.write(`${JSON.stringify(serving)}\n`);
    io.stderr.write(`relay: ready — relayer ${server.url} chain ${chainId} rpc ${rpcUrl}\n`);
    await waitForAbort(io.signal);
    io.stderr.write("relay: shutting down\n");
  } finally {
    await server.close();
    // The manifest may have been rewritten meanwhile (a new `relay devnet`): drop only our URL.
    try {
      writeManifest(file, withRelayerUrl(readManifest(file), undefined));
    } catch (error) {
      io.stderr.write(`relay: could not remove relayerUrl from ${file}: ${(error as Error).message}\n`);
    }
  }
}

async function fetchChainId(rpcUrl: string): Promise<number> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json()) as { result?: string };
    if (typeof body.result !== "string") throw new Error("no result");
    return Number(BigInt(body.result));
  } catch {
    throw new CliError(`cannot reach a JSON-RPC node at ${rpcUrl}`);
  }
}
