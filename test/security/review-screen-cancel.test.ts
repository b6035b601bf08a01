// A rejection on the review screen is final on-chain. A real `relay serve` (devnet mode) holds the
// default bot's 12,000 USDC payment for the owner; the owner rejects it on the Ink screen driven
// through tmux, answering no to the screen's own on-chain cancel (the owner's key), so that what
// binds the vault is the relayer's cancel alone. Then the leaked relayer key sends the bot's signed
// intent straight to the vault: it reverts, and the payee's balance, read from the chain, is 0.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { projectRoot } from "../../src/paths.ts";
import { signPaymentRequest } from "../../packages/client/src/bodies.ts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { defaultDeadline, randomRef, readVaultDomain } from "../../packages/client/src/sign.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { openTerminal, requireTmux, type Terminal } from "../cli/review/support/tmux.ts";
import { fresh } from "../relayer/harness.ts";

const vaultAbi = readArtifact("ServiceVault").abi;

describe("a rejection on the review screen is cancelled on-chain by the relayer", () => {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-screen-cancel-"));
  let relay: SpawnedRelay | undefined;
  let terminal: Terminal | undefined;
  let manifest: Manifest;

  beforeAll(async () => {
    requireTmux();
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
  });

  afterAll(async () => {
    terminal?.close();
    if (relay !== undefined && relay.child.exitCode === null) {
      relay.child.kill("SIGINT");
      await relay.exited;
    }
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("rejected with `r`, a reason and no owner cancel: the relayer's key cancels the intent; the leaked key's executePayment reverts, nothing moved", async () => {
    const { publicClient, walletFor, chain } = clientsFor(manifest.rpcUrl, manifest.chainId);
    const vault = manifest.contracts.vault as Address;
    const usdc = manifest.tokens.USDC!.address as Address;
    const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex);
    const relayerKey = privateKeyToAccount(manifest.accounts.relayer.privateKey as Hex);
    const domain = await readVaultDomain(publicClient, vault);
    const to = fresh();
    const intent = { bot: bot.address, to, token: usdc, amount: 12_000_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const body = await signPaymentRequest(bot, domain, intent, { memo: "invoice 77", metadata: { scenario: "ai-no-consensus" } });
    const held = await new RelayClient({ baseUrl: manifest.relayerUrl! }).submitPayment(body);
    expect(held.status).toBe("pending_review");
    const intentHash = hashIntent("payment", domain, intent);

    terminal = openTerminal([path.join(projectRoot, "bin", "relay"), "review", "--state-dir", stateDir], { env: {}, cwd: projectRoot });
    const screen = await terminal.waitFor(/1 pending.*● online/, 60_000);
    expect(screen).toMatch(new RegExp(`› ${held.requestId}.*“invoice 77”`));
    terminal.keys("r");
    await terminal.waitFor(/Reason for rejecting/);
    terminal.type("not ours");
    terminal.keys("Enter");
    await terminal.waitFor(/\[Y\/n\]/);
    terminal.keys("n");
    await terminal.waitFor(/0 pending/, 60_000);
    terminal.keys("q");

    const cancelled = () => publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "cancelledIntents", args: [intentHash] }) as Promise<boolean>;
    const until = Date.now() + 30_000;
    while (!(await cancelled())) {
      if (Date.now() > until) throw new Error(`the relayer did not cancel ${intentHash} on-chain`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const logs = await publicClient.getLogs({ address: vault, fromBlock: 0n });
    const by = (parseEventLogs({ abi: vaultAbi, logs, eventName: "IntentCancelled" }) as unknown as Array<{ args: { intentHash: Hex; by: Address } }>)
      .filter((e) => e.args.intentHash === intentHash)
      .map((e) => e.args.by);
    expect(by).toEqual([relayerKey.address]);

    const data = encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [intent, body.signature as Hex] });
    const hash = await walletFor(relayerKey).sendTransaction({ to: vault, data, gas: 3_000_000n, account: relayerKey, chain });
    expect((await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe("reverted");
    expect(await publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [to] })).toBe(0n);
  });
});
