// `relay review` keeps working across a relayer restart: with `relay devnet` and `relay serve
// --rpc-url` as separate processes, the screen shows "reconnecting…" while the relayer is down,
// comes back online by itself when it returns on the same port, and can still approve.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor } from "../../../src/chain/clients.ts";
import { signPaymentRequest } from "../../../packages/client/src/bodies.ts";
import { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { defaultDeadline, randomRef, readVaultDomain } from "../../../packages/client/src/sign.ts";
import type { Manifest } from "../../../src/devnet/manifest.ts";
import { projectRoot } from "../../../src/paths.ts";
import { spawnRelay, type SpawnedRelay } from "../../helpers/cli.ts";
import { openTerminal, requireTmux, type Terminal } from "./support/tmux.ts";

describe("relay review across a relayer restart", () => {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-review-restart-"));
  const started: SpawnedRelay[] = [];
  let terminal: Terminal | undefined;
  let rpcUrl: string;

  const manifest = (): Manifest => JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
  const serve = async (port: string): Promise<SpawnedRelay> => {
    const relay = spawnRelay(["serve", "--rpc-url", rpcUrl, "--port", port, "--state-dir", stateDir]);
    started.push(relay);
    await relay.waitFor(/relay: ready/);
    return relay;
  };
  const stop = async (relay: SpawnedRelay): Promise<void> => {
    if (relay.child.exitCode !== null || relay.child.signalCode !== null) return;
    relay.child.kill("SIGINT");
    await relay.exited;
  };

  beforeAll(async () => {
    requireTmux();
    const devnet = spawnRelay(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
    started.push(devnet);
    await devnet.waitFor(/relay: ready/);
    rpcUrl = manifest().rpcUrl;
  });

  afterAll(async () => {
    terminal?.close();
    for (const relay of started.reverse()) await stop(relay);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("shows reconnecting while the relayer is down, then approves after it is back", async () => {
    const first = await serve("0");
    const { relayerUrl, chainId, contracts, tokens, accounts } = manifest();
    const port = new URL(relayerUrl!).port;

    terminal = openTerminal([path.join(projectRoot, "bin", "relay"), "review", "--state-dir", stateDir], { env: {}, cwd: projectRoot });
    await terminal.waitFor(/0 pending.*● online/, 60_000);

    await stop(first);
    await terminal.waitFor(/reconnecting…/, 30_000);
    await serve(port);
    await terminal.waitFor(/● online/, 30_000);

    // A payment held by the restarted relayer shows up by itself and can be approved.
    const { publicClient } = clientsFor(rpcUrl, chainId);
    const domain = await readVaultDomain(publicClient, contracts.vault as Address);
    const bot = privateKeyToAccount(accounts.bots.reviewed.privateKey as Hex);
    const relayer = new RelayClient({ baseUrl: relayerUrl! });
    const intent = { bot: bot.address, to: accounts.operator.address as Address, token: tokens.USDC!.address as Address, amount: 1_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const held = await relayer.submitPayment(await signPaymentRequest(bot, domain, intent));
    expect(held.status).toBe("pending_review");
    await terminal.waitFor(new RegExp(`1 pending[\\s\\S]*› ${held.requestId}`), 30_000);
    terminal.keys("a");
    await terminal.waitFor(/Approve:/);
    terminal.keys("y");
    await terminal.waitFor(new RegExp(`${held.requestId}: approved, tx 0x[0-9a-f]{64}`), 60_000);
    expect((await relayer.getPayment(held.requestId)).status).toBe("approved");
  });
});
