// `relay agents`: the AI panel as its own process (src/agents/server.ts), so that a leaked relayer
// host cannot sign verdicts. Its three keys (one per agent) live in <state dir>/agents (0700),
// file `keys` (0600), made on first start; their addresses are printed for the vault's owner to
// register (setScanners). The relayer uses it with `relay serve --agents-url <url>`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { generatePrivateKey } from "viem/accounts";
import type { Hex } from "viem";
import { startAgents } from "../../agents/server.ts";
import { nodeKind } from "../../chain/dev-node.ts";
import { isDevKey } from "../../devnet/accounts.ts";
import { privateDir, tightenFile, writePrivateFile } from "../../private-files.ts";
import { resolveStateDir } from "../state-dir.ts";
import { portClash } from "../options.ts";
import { CliError, waitForAbort, type CliIO } from "../io.ts";

export interface AgentsCommandOptions {
  rpcUrl: string;
  stateDir?: string;
  port: number;
  aiEndpoint?: string;
  aiModel?: string;
  aiTimeoutMs?: number;
  json?: boolean;
}

const KEY = /^0x[0-9a-fA-F]{64}$/;

export async function agents(options: AgentsCommandOptions, io: CliIO): Promise<void> {
  const dir = path.join(resolveStateDir(options.stateDir, io.env, io.cwd), "agents");
  const keys = agentKeys(dir);
  const chainId = await fetchChainId(options.rpcUrl);
  const devnet = (await nodeKind(options.rpcUrl, chainId)) === "development";
  if (!devnet && keys.some((k) => isDevKey(k))) throw new CliError(`${path.join(dir, "keys")} holds a public development key: on a chain that is not a development node it signs nothing`);
  let running;
  try {
    running = await startAgents({
      rpcUrl: options.rpcUrl,
      chainId,
      devnet,
      keys,
      port: options.port,
      ai: {
        timeoutMs: options.aiTimeoutMs ?? 30_000,
        ...(options.aiEndpoint ? { endpoint: options.aiEndpoint } : {}),
        ...(options.aiModel ? { model: options.aiModel } : {}),
        ...(io.env.RELAY_AI_API_KEY ? { apiKey: io.env.RELAY_AI_API_KEY } : {}),
      },
      log: (line) => io.stderr.write(`relay: ${line}\n`),
    });
  } catch (error) {
    throw portClash(error, options.port, "--port");
  }
  try {
    if (options.json) io.stdout.write(`${JSON.stringify({ url: running.url, chainId, scanners: running.addresses })}\n`);
    io.stderr.write(`relay: agents ready — ${running.url} chain ${chainId}; scanner keys ${running.addresses.join(", ")} (register them on a vault: setScanners)\n`);
    await waitForAbort(io.signal);
  } finally {
    await running.close();
  }
}

/** The three agents' keys in `dir`/keys, made on first start. */
function agentKeys(dir: string): Hex[] {
  privateDir(dir);
  const file = path.join(dir, "keys");
  let text: string | undefined;
  try {
    tightenFile(file);
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (text === undefined) {
    const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()];
    writePrivateFile(file, `${JSON.stringify({ keys })}\n`);
    return keys;
  }
  let keys: unknown;
  try {
    keys = (JSON.parse(text) as { keys?: unknown }).keys;
  } catch {
    keys = undefined;
  }
  if (!Array.isArray(keys) || keys.length !== 3 || !keys.every((k) => typeof k === "string" && KEY.test(k))) {
    throw new CliError(`${file} does not hold the agents' three keys`);
  }
  return keys as Hex[];
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
