// `relay agents`: the AI panel as its own process (src/agents/server.ts), so that a leaked relayer
// host cannot sign verdicts. Its three keys (one per agent) live in <state dir>/agents (0700),
// file `keys` (0600), made on first start; their addresses are printed for the vault's owner to
// register (setScanners). The relayer uses it with `relay serve --agents-url <url>`.
import path from "node:path";
import type { Hex } from "viem";
import { startAgents } from "../../agents/server.ts";
import { nodeKind } from "../../chain/dev-node.ts";
import { isDevKey } from "../../devnet/accounts.ts";
import { privateDir } from "../../private-files.ts";
import { threeKeysIn } from "../../crypto/key-file.ts";
import { resolveStateDir } from "../state-dir.ts";
import { portClash } from "../options.ts";
import { fetchChainId } from "../chain-id.ts";
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
  try {
    return threeKeysIn(path.join(dir, "keys"), "the agents' three keys");
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}
