// A live environment for CLI end-to-end tests: `relay serve` (devnet + relayer) run in-process
// through main() on free ports with a temporary state directory, and `relay …` commands run against
// it the same way, each resolving with its exit code, stdout and stderr.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { erc20Abi, type Address, type Hex } from "viem";
import { clientsFor, type Clients } from "../../../src/chain/clients.ts";
import { createSender, type Sender } from "../../../src/chain/sender.ts";
import type { Manifest } from "../../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../../helpers/cli.ts";

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface LiveRelay {
  stateDir: string;
  manifest: Manifest;
  clients: Clients;
  /** Runs `relay <args> --state-dir <stateDir>` to its end. */
  relay(args: string[]): Promise<CommandResult>;
  /** Starts `relay <args> --state-dir <stateDir>` and returns the run, for commands that wait. */
  start(args: string[]): InProcessRun;
  /** A token's balance of `holder`, read from the chain. */
  balanceOf(symbol: string, holder: Address): Promise<bigint>;
  /** A sender for the manifest's operator account, for chain set-up the CLI has no command for. */
  operator(): Sender;
  stop(): Promise<void>;
}

/** `serveArgs`: more flags for `relay serve` (e.g. `--terms-version`). */
export async function startLiveRelay(prefix = "relay-cli-live-", serveArgs: readonly string[] = []): Promise<LiveRelay> {
  const stateDir = mkdtempSync(path.join(tmpdir(), prefix));
  const serve = runMain(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, ...serveArgs]);
  await serve.waitFor(/relay: ready/, 120_000);
  const manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
  const clients = clientsFor(manifest.rpcUrl, manifest.chainId);
  const start = (args: string[]) => runMain([...args, "--state-dir", stateDir]);
  let operator: Sender | undefined;
  return {
    stateDir,
    manifest,
    clients,
    start,
    async relay(args) {
      const run = start(args);
      const code = await run.done;
      return { code, stdout: run.output.stdout, stderr: run.output.stderr };
    },
    balanceOf: (symbol, holder) =>
      clients.publicClient.readContract({ address: manifest.tokens[symbol]!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [holder] }),
    operator: () => (operator ??= createSender(clients, manifest.accounts.operator.privateKey as Hex)),
    async stop() {
      serve.stop();
      await serve.done;
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** The value of a `key  value` line of a command's text output. */
export function field(stdout: string, key: string): string | undefined {
  return new RegExp(`^${key} +(\\S.*)$`, "m").exec(stdout)?.[1];
}
