// `relay review` keeps working across relayer restarts: with `relay devnet` and `relay serve
// --rpc-url` as separate processes, the screen shows "reconnecting…" while the relayer is down and
// comes back online by itself when it returns on the same port; when it returns on another port, the
// screen reads the new URL from the manifest and comes back too, and can still approve. A screen told
// its URL by RELAY_URL keeps that URL: it is still reconnecting after the move.
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
  const terminals: Terminal[] = [];
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
    for (const terminal of terminals) terminal.close();
    for (const relay of started.reverse()) await stop(relay);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("shows reconnecting while the relayer is down, follows it to a new port, then approves", async () => {
    const first = await serve("0");
    const { relayerUrl, chainId, contracts, tokens, accounts } = manifest();
    const port = new URL(relayerUrl!).port;
    const review = (env: Record<string, string>): Terminal => {
      const terminal = openTerminal([path.join(projectRoot, "bin", "relay"), "review", "--state-dir", stateDir], { env, cwd: projectRoot });
      terminals.push(terminal);
      return terminal;
    };
    const terminal = review({});
    // The same screen with the URL given explicitly: it must not be moved by the manifest.
    const pinned = review({ RELAY_URL: relayerUrl! });
    await terminal.waitFor(/0 pending.*● online/, 60_000);
    await pinned.waitFor(/0 pending.*● online/, 60_000);

    await stop(first);
    await terminal.waitFor(/reconnecting…/, 30_000);
    const second = await serve(port);
    await terminal.waitFor(/● online/, 30_000);
    await pinned.waitFor(/● online/, 30_000);

    // Back on another port: the manifest names the new URL, and the screen follows it by itself.
    await stop(second);
    await terminal.waitFor(/reconnecting…/, 30_000);
    await serve("0");
    const movedUrl = manifest().relayerUrl!;
    expect(new URL(movedUrl).port).not.toBe(port);
    await terminal.waitFor(/0 pending.*● online/, 30_000);

    // A payment held by the relayer on its new port shows up by itself and can be approved.
    const { publicClient } = clientsFor(rpcUrl, chainId);
    const domain = await readVaultDomain(publicClient, contracts.vault as Address);
    const bot = privateKeyToAccount(accounts.bots.reviewed.privateKey as Hex);
    const relayer = new RelayClient({ baseUrl: movedUrl });
    const intent = { bot: bot.address, to: accounts.operator.address as Address, token: tokens.USDC!.address as Address, amount: 1_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const held = await relayer.submitPayment(await signPaymentRequest(bot, domain, intent));
    expect(held.status).toBe("pending_review");
    await terminal.waitFor(new RegExp(`1 pending[\\s\\S]*› ${held.requestId}`), 30_000);
    terminal.keys("a");
    await terminal.waitFor(/Approve:/);
    terminal.keys("y");
    await terminal.waitFor(new RegExp(`${held.requestId}: approved, tx 0x[0-9a-f]{64}`), 60_000);
    expect((await relayer.getPayment(held.requestId)).status).toBe("approved");

    // The screen pinned by RELAY_URL still tries the old port, as told (it retries every second).
    const pinnedScreen = pinned.screen();
    expect(pinnedScreen).toMatch(/reconnecting…/);
    expect(pinnedScreen).not.toContain(held.requestId);
  });
});
