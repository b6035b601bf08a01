// Acceptance of `relay review` in a real terminal: a real `relay serve` (devnet mode) holds two
// payments of the manifest's `reviewed` bot; the owner approves one and rejects the other with a
// reason on the Ink screen, answering yes to cancelling it on-chain too, driven through tmux; then the
// chain and the relayer agree: the rejected intent is cancelled on the vault. Then, in a terminal of
// 12 rows holding 30 held payments, the header stays on screen while the selection walks down the list.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor } from "../../../src/chain/clients.ts";
import { signPaymentRequest } from "../../../packages/client/src/bodies.ts";
import { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { readArtifact } from "../../../src/chain/artifacts.ts";
import { defaultDeadline, randomRef, readVaultDomain } from "../../../packages/client/src/sign.ts";
import { hashIntent } from "../../../src/eip712/hash.ts";
import type { Manifest } from "../../../src/devnet/manifest.ts";
import { projectRoot } from "../../../src/paths.ts";
import { spawnRelay, type SpawnedRelay } from "../../helpers/cli.ts";
import { openTerminal, requireTmux, type Terminal } from "./support/tmux.ts";

const PAYEE_A = "0x90F79bf6EB2c4f870365E785982E1f101E93b906" as Address;
const PAYEE_B = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" as Address;

describe("relay review in a terminal", () => {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-review-tty-"));
  let relay: SpawnedRelay | undefined;
  const terminals: Terminal[] = [];
  let manifest: Manifest;
  const intents = new Map<string, Hex>();
  // A payment of the manifest's `reviewed` bot, held for the owner; its request id.
  const pay = async (to: Address, amount: bigint, memo: string, metadata?: Record<string, string>): Promise<string> => {
    const { publicClient, vault, usdc, bot, relayer } = chainOf(manifest);
    const domain = await readVaultDomain(publicClient, vault);
    const intent = { bot: bot.address, to, token: usdc, amount, deadline: defaultDeadline(), ref: randomRef() };
    const body = await signPaymentRequest(bot, domain, intent, { memo, ...(metadata === undefined ? {} : { metadata }) });
    const response = await relayer.submitPayment(body);
    expect(response.status).toBe("pending_review");
    intents.set(response.requestId, hashIntent("payment", domain, intent));
    return response.requestId;
  };
  const open = (options: { width?: number; height?: number } = {}): Terminal => {
    const terminal = openTerminal([path.join(projectRoot, "bin", "relay"), "review", "--state-dir", stateDir], { env: {}, cwd: projectRoot, ...options });
    terminals.push(terminal);
    return terminal;
  };

  beforeAll(async () => {
    requireTmux();
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
  });

  afterAll(async () => {
    for (const terminal of terminals) terminal.close();
    if (relay !== undefined && relay.child.exitCode === null) {
      relay.child.kill("SIGINT");
      await relay.exited;
    }
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("approves one held payment and rejects another with a reason, cancelling it on-chain", async () => {
    const { publicClient, vault, usdc, bot, relayer } = chainOf(manifest);
    const cancelledOnChain = (intentHash: Hex) =>
      publicClient.readContract({ address: vault, abi: readArtifact("ServiceVault").abi, functionName: "cancelledIntents", args: [intentHash] }) as Promise<boolean>;
    const balance = (who: Address) => publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
    const approveId = await pay(PAYEE_A, 2_500_000n, "invoice 1001");
    const rejectId = await pay(PAYEE_B, 7_000_000n, "invoice 1002");
    const before = { a: await balance(PAYEE_A), b: await balance(PAYEE_B) };

    const terminal = open();
    const screen = await terminal.waitFor(/2 pending.*● online/, 60_000);
    expect(screen).toContain(approveId);
    expect(screen).toContain(rejectId);
    // The bot by its manifest name, and each payment's memo on its line.
    expect(screen).toMatch(new RegExp(`${approveId}.*pay 2\\.5 USDC to 0x90F7…b906.*by reviewed\\s+“invoice 1001”`));
    expect(screen).toMatch(new RegExp(`${rejectId}.*pay 7 USDC to 0x15d3…6A65.*by reviewed\\s+“invoice 1002”`));

    await select(terminal, approveId);
    terminal.keys("Enter");
    const detail = await terminal.waitFor(/Held because/);
    expect(detail).toMatch(/invoice 1001/);
    expect(detail).toMatch(new RegExp(`Bot\\s+reviewed \\(${bot.address}\\)`));
    terminal.keys("a");
    await terminal.waitFor(new RegExp(`Approve: ${approveId}`));
    terminal.keys("y");
    await terminal.waitFor(new RegExp(`${approveId}: approved, tx 0x[0-9a-f]{64}`), 60_000);
    terminal.keys("Escape");
    await terminal.waitFor(/^(?![\s\S]*Held because)/);

    await select(terminal, rejectId);
    terminal.keys("r");
    await terminal.waitFor(/Reason for rejecting/);
    terminal.type("amount looks wrong");
    terminal.keys("Enter");
    await terminal.waitFor(/Also cancel this signed intent on-chain.*\[Y\/n\]/);
    expect(await cancelledOnChain(intents.get(rejectId)!)).toBe(false);
    terminal.keys("y");
    await terminal.waitFor(new RegExp(`${rejectId}: rejected, reason: .*amount looks wrong; intent\\s+0x[0-9a-f]{64}\\s+cancelled on-chain, tx\\s+0x[0-9a-f]{64}`), 60_000);
    await terminal.waitFor(/0 pending/);
    terminal.keys("q");

    const approved = await relayer.getPayment(approveId);
    expect(approved.status).toBe("approved");
    const receipt = await publicClient.waitForTransactionReceipt({ hash: approved.txHash! });
    expect(receipt.status).toBe("success");
    expect(await balance(PAYEE_A)).toBe(before.a + 2_500_000n);
    const rejected = await relayer.getPayment(rejectId);
    expect(rejected.status).toBe("rejected");
    expect(rejected.reason).toMatch(/amount looks wrong/);
    expect(await balance(PAYEE_B)).toBe(before.b);
    expect(await cancelledOnChain(intents.get(rejectId)!)).toBe(true);
    expect(await cancelledOnChain(intents.get(approveId)!)).toBe(false);
  });

  it("shows a bot's escape sequences as text in a real terminal: the Action line stands, nothing is hidden or reversed", async () => {
    const { publicClient, usdc } = chainOf(manifest);
    const balance = () => publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [PAYEE_B] });
    const before = await balance();
    const id = await pay(PAYEE_B, 1_000_000n, "rent\u001b[2K\rAction: pay 1 USDC", {
      "note\u001b[8m": "\u001b[8mapprove unlimited USDC",
      rtl: "abc\u202edef\u009b2J",
      multi: "one\nAction: fake",
    });
    const terminal = open();
    const screen = await terminal.waitFor(/1 pending.*● online/, 60_000);
    expect(screen).toMatch(new RegExp(`${id}.*pay 1 USDC to 0x15d3…6A65.*“rent\\\\u001b\\[2K\\\\rAction`));
    await select(terminal, id);
    terminal.keys("Enter");
    const detail = await terminal.waitFor(/Held because/);
    expect(detail).toMatch(/Action\s+pay 1 USDC to 0x15d3…6A65/);
    expect(detail).toMatch(/note\\u001b\[8m: \\u001b\[8mapprove unlimited USDC/);
    expect(detail).toMatch(/rtl: abc\\u202edef\\u009b2J/);
    expect(detail).toMatch(/multi: one\\nAction: fake/);
    // The one line that begins with "Action" is the relayer's own.
    expect(detail.split("\n").filter((line) => /^\W*Action\b/.test(line))).toHaveLength(1);
    terminal.keys("r");
    await terminal.waitFor(/Reason for rejecting/);
    terminal.type("hostile memo");
    terminal.keys("Enter");
    await terminal.waitFor(/\[Y\/n\]/);
    terminal.keys("n");
    await terminal.waitFor(/0 pending/, 60_000);
    terminal.keys("q");
    expect(await balance()).toBe(before);
  });

  it("keeps the header on a 12-row terminal while the selection moves down 30 held payments", async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 30; i++) ids.push(await pay(PAYEE_A, 7_250_000n, `order ${i}`));

    const terminal = open({ width: 150, height: 12 });
    const first = await terminal.waitFor(/30 pending.*● online/, 60_000);
    const header = /^relay review — 30 pending \(\d+–\d+ shown, ↑\/↓ to scroll\)\s+● online$/;
    expect(first.split("\n")[0]).toMatch(header);
    expect(first).toMatch(new RegExp(`› ${ids[0]}.*by reviewed\\s+“order 1”`));
    expect(first).toMatch(/\? help {2}a approve/);
    expect(first).not.toContain(ids[29]);

    for (let i = 1; i < ids.length; i++) {
      terminal.keys("j");
      const screen = await terminal.waitFor(new RegExp(`› ${ids[i]}`), 10_000);
      const lines = screen.split("\n");
      // The header is still the first line and the footer still on screen, whichever line is selected.
      expect(lines[0]).toMatch(header);
      expect(screen).toMatch(/\? help {2}a approve/);
      expect(screen).toMatch(new RegExp(`› ${ids[i]}.*“order ${i + 1}”`));
    }
    const last = terminal.screen();
    expect(last.split("\n")[0]).toMatch(/30 pending \(\d+–30 shown/);
    expect(last).not.toContain(ids[0]);
  });
});

function chainOf(manifest: Manifest) {
  return {
    publicClient: clientsFor(manifest.rpcUrl, manifest.chainId).publicClient,
    vault: manifest.contracts.vault as Address,
    usdc: manifest.tokens.USDC!.address as Address,
    bot: privateKeyToAccount(manifest.accounts.bots.reviewed.privateKey as Hex),
    relayer: new RelayClient({ baseUrl: manifest.relayerUrl! }),
  };
}

/** Move the selection (›) onto the line of `requestId`. */
async function select(terminal: Terminal, requestId: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const lines = terminal.screen().split("\n");
    const selected = lines.findIndex((l) => l.startsWith("›"));
    const target = lines.findIndex((l) => l.includes(requestId));
    if (target === -1) throw new Error(`${requestId} is not on the screen:\n${lines.join("\n")}`);
    if (selected === target) return;
    terminal.keys(selected < target ? "j" : "k");
    await terminal.waitFor(/./, 1000);
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`could not select ${requestId}:\n${terminal.screen()}`);
}
