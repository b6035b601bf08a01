// An end-to-end environment like test/relayer/harness.ts's, whose relayer reaches the devnet
// through a tap: an EIP-1193 provider that forwards every call, records the raw transactions the
// relayer broadcasts, and can run an action (the owner's pause, removeBot, a withdrawal) on the
// chain exactly between the relayer's simulation and its broadcast.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseTransaction, toFunctionSelector, type Address, type EIP1193Provider, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../../src/chain/clients.ts";
import { createSender } from "../../../src/chain/sender.ts";
import { startDevnet } from "../../../src/devnet/start.ts";
import { chainFromManifest, parseRelayerConfig, type RelayerConfigInput } from "../../../src/relayer/config.ts";
import { startRelayer } from "../../../src/relayer/service.ts";
import type { Env } from "../../relayer/harness.ts";

/** A raw transaction the relayer broadcast. */
export interface Broadcast {
  hash: Hex;
  nonce: number;
  to: Address | undefined;
  selector: Hex;
}

export interface Tap {
  /** Every eth_sendRawTransaction of the relayer, in order. */
  readonly broadcasts: readonly Broadcast[];
  /**
   * On the relayer's next broadcast: wait until `afterSimulations` simulations of a vault call
   * have been answered (counting from now), run `action` on the chain (mined), then forward it.
   */
  beforeNextBroadcast(action: () => Promise<unknown>, afterSimulations?: number): void;
}

const EXECUTE_PAYMENT = toFunctionSelector("executePayment((address,address,address,uint256,uint256,bytes32),bytes)");

export async function startTappedEnv(overrides: Partial<RelayerConfigInput> = {}): Promise<Env & { tap: Tap }> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-races-"));
  const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  const manifest = devnet.manifest;
  const { provider, tap } = tapProvider(devnet.chain.provider as EIP1193Provider, manifest.contracts.vault as Address);
  const config = parseRelayerConfig({ stateDir, chains: [chainFromManifest(manifest)], ...overrides });
  const relayer = await startRelayer({ config, port: 0, providers: new Map([[manifest.chainId, provider]]) });
  // The test's own clients use the devnet directly, so the owner's actions never go through the tap.
  const clients = clientsFor(devnet.chain.provider, manifest.chainId);
  return {
    devnet,
    relayer,
    manifest,
    clients,
    url: relayer.url,
    stateDir,
    bot: privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex),
    reviewedBot: privateKeyToAccount(manifest.accounts.bots.reviewed.privateKey as Hex),
    owner: createSender(clients, manifest.accounts.owner.privateKey as Hex),
    ownerAccount: privateKeyToAccount(manifest.accounts.owner.privateKey as Hex),
    vault: manifest.contracts.vault as Address,
    token: (symbol) => manifest.tokens[symbol]!.address as Address,
    tap,
    async close() {
      await relayer.close();
      await devnet.close();
    },
  };
}

function tapProvider(inner: EIP1193Provider, vault: Address): { provider: EIP1193Provider; tap: Tap } {
  const broadcasts: Broadcast[] = [];
  let simulations = 0;
  let pending: { action: () => Promise<unknown>; simulations: number } | undefined;
  const simulated: Array<() => void> = [];

  const tap: Tap = {
    broadcasts,
    beforeNextBroadcast(action, afterSimulations = 0) {
      pending = { action, simulations: simulations + afterSimulations };
    },
  };

  async function untilSimulated(count: number): Promise<void> {
    while (simulations < count) await new Promise<void>((resolve) => simulated.push(resolve));
    // Let every request whose simulation just ended run on to the relayer's queue.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  }

  const request = async (args: { method: string; params?: unknown }): Promise<unknown> => {
    if (args.method === "eth_sendRawTransaction") {
      const raw = (args.params as [Hex])[0];
      const tx = parseTransaction(raw);
      const armed = pending;
      pending = undefined;
      if (armed) {
        await untilSimulated(armed.simulations);
        await armed.action();
      }
      const hash = (await inner.request(args as never)) as Hex;
      broadcasts.push({ hash, nonce: tx.nonce ?? -1, to: tx.to ?? undefined, selector: (tx.data ?? "0x").slice(0, 10) as Hex });
      return hash;
    }
    const result = await inner.request(args as never);
    if (args.method === "eth_call" && isPaymentSimulation(args.params, vault)) {
      simulations++;
      for (const wake of simulated.splice(0)) wake();
    }
    return result;
  };
  return { provider: { request } as unknown as EIP1193Provider, tap };
}

/** An eth_call of executePayment on `vault`: the relayer's simulation of a payment. */
function isPaymentSimulation(params: unknown, vault: Address): boolean {
  const call = (params as [{ to?: string; data?: string; input?: string }] | undefined)?.[0];
  const data = call?.data ?? call?.input ?? "";
  return call?.to?.toLowerCase() === vault.toLowerCase() && data.startsWith(EXECUTE_PAYMENT);
}
