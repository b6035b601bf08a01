// The lean relayer (lean-relayer.ts) beside relay on the node a bench runs, for its latency round:
// direct payments, the lean relayer's and relay's take turns on one chain of one age, so relay's
// added latency is held against what the lean relayer adds there and then (its goal: that + 1 ms,
// floor-goals.ts), not against the floor bench's figure from a fresh chain of its own. A node's
// calls cost more as its chain ages (anvil's eth_call and its blocks), and that weighs on both.
// It pays with its own authorized relayer key (#7), so that it shares no nonce with relay's key or
// the direct payments' (#6), and takes its intents from the bench's own sequence, so that no intent
// of it repeats one of the bench's.
import type { Address, Hex } from "viem";
import { Pool } from "undici";
import type { Clients } from "../../src/chain/clients.ts";
import { createSender } from "../../src/chain/sender.ts";
import { devKeyPair, ROLE_INDEX } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import type { PaymentIntent, VaultDomain } from "../../packages/client/src/intent-types.ts";
import { leanBody, startLeanRelayer, type LeanStep } from "./lean-relayer.ts";

export interface LeanBeside {
  /** Bodies for the next `count` lean payments, signed ahead as the bench's others are. */
  bodies(count: number): Promise<string[]>;
  /** One payment through the lean relayer, until its answer (after the receipt). */
  send(body: string): Promise<void>;
  /** The mean of each of its steps over the payments sent, in ms (lean-relayer.ts). */
  stepMeans(): Record<LeanStep, number>;
  close(): Promise<void>;
}

export interface LeanBesideOptions {
  manifest: Manifest;
  clients: Clients;
  /** One JSON-RPC call to the node, as the bench makes its direct payments' calls. */
  rpc(method: string, params: unknown[]): Promise<unknown>;
  /** Whether the node answers eth_sendRawTransactionSync. */
  sendSync: boolean;
  /** The bench's next signed payment intent (support/intents.ts). */
  nextIntent(): Promise<{ intent: PaymentIntent; signature: Hex }>;
}

/** The lean relayer key's index among the devnet's accounts. */
const LEAN_KEY_INDEX = 7;

export async function leanBeside(options: LeanBesideOptions): Promise<LeanBeside> {
  const { manifest, clients } = options;
  const key = devKeyPair(LEAN_KEY_INDEX);
  await createSender(clients, devKeyPair(ROLE_INDEX.deployer).privateKey).call(manifest.contracts.registry as Address, "ServiceRegistry", "addRelayer", [key.address]);
  const estimate = await clients.publicClient.estimateFeesPerGas();
  const lean = await startLeanRelayer({
    node: { call: options.rpc, close: async () => {} },
    chainId: manifest.chainId,
    domain: manifest.domain as VaultDomain,
    vault: manifest.contracts.vault as Address,
    bot: manifest.accounts.bots.default.address as Address,
    relayer: key,
    fees: { maxFeePerGas: estimate.maxFeePerGas! * 4n, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas! },
    sendSync: options.sendSync,
  });
  // The same client as the bench's requests to relay: an undici Pool, one keep-alive connection.
  const pool = new Pool(lean.url, { connections: 1, pipelining: 1 });
  const sums: Record<LeanStep, number> = { recover: 0, simulate: 0, record: 0, sign: 0, send: 0 };
  let sent = 0;
  return {
    async bodies(count) {
      const bodies: string[] = [];
      for (let i = 0; i < count; i++) {
        const { intent, signature } = await options.nextIntent();
        bodies.push(leanBody(intent, signature));
      }
      return bodies;
    },
    async send(body) {
      const res = await pool.request({ path: "/", method: "POST", headers: { "content-type": "application/json" }, body });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`the lean relayer answered ${res.statusCode} ${text}`);
      for (const [step, ms] of Object.entries(lean.lastSteps()) as [LeanStep, number][]) sums[step] += ms;
      sent++;
    },
    stepMeans: () => Object.fromEntries(Object.entries(sums).map(([step, ms]) => [step, sent === 0 ? 0 : ms / sent])) as Record<LeanStep, number>,
    async close() {
      await pool.close();
      await lean.close();
    },
  };
}
