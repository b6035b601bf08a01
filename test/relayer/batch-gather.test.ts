// Payments on their way (submitter.ts): a fast-path payment that reaches its relayer key's queue
// while other payments of its vault are still being checked waits for them, up to `batchGatherMs`,
// and they share one transaction; one that does not come within that time is not waited for longer.
// The relayer's reads pass through a gate here, so that each payment's place in the pipeline is set
// by the test: a payment's policy read and simulation is held at the node until the test lets it go.
// Real devnet, real HTTP; every outcome is read back from the chain.
import { DatabaseSync } from "node:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAbiItem, type Address, type EIP1193Provider } from "viem";
import { ledgerPath } from "../../src/ledger/index.ts";
import { balanceOf, fresh, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { clusterRun } from "./deployment.ts";
import { until } from "../reliability/support/node-faults-env.ts";

const cluster = clusterRun();
const METRICS_TOKEN = "batch-gather-metrics-token-0123456789";
const paymentExecuted = parseAbiItem("event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)");

/** A payee's reads held at the node: `reached` once one was asked for, answered after `release`. */
interface Held {
  reached: Promise<void>;
  release(): void;
}

/** The relayer's provider, with every eth_call that carries a held payee's payment held until released. */
function gatedReads(provider: EIP1193Provider, gates: Map<string, { reached(): void; released: Promise<void> }>): EIP1193Provider {
  return {
    ...provider,
    request: (async (args: { method: string; params?: unknown }) => {
      if (args.method === "eth_call") {
        const text = JSON.stringify(args.params).toLowerCase();
        const held = [...gates].filter(([payee]) => text.includes(payee)).map(([, gate]) => gate);
        for (const gate of held) gate.reached();
        await Promise.all(held.map((gate) => gate.released));
      }
      return provider.request(args as never);
    }) as EIP1193Provider["request"],
  } as EIP1193Provider;
}

// Not in the cluster run: the gate is in the relayer's provider, inside this process.
describe.skipIf(cluster)("payments on their way share a batch", () => {
  let env: Env;
  let ledger: DatabaseSync;
  const gates = new Map<string, { reached(): void; released: Promise<void>; release(): void }>();

  /** Holds `payee`'s reads from now on. */
  function hold(payee: Address): Held {
    let reached!: () => void;
    let release!: () => void;
    const reachedP = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    gates.set(payee.slice(2).toLowerCase(), { reached, released, release });
    return { reached: reachedP, release };
  }

  /** How many idempotency keys the relayer has looked up so far (relay_step_duration_seconds, step "idempotency"). */
  const lookups = async () => {
    const text = await (await fetch(`${env.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const line = /^relay_step_duration_seconds_count\{[^}]*step="idempotency"[^}]*\} (\d+)$/m.exec(text);
    return Number(line?.[1] ?? 0);
  };

  /** Resolves once the relayer has looked up `n` more idempotency keys than `before` (the requests are being checked). */
  const lookedUp = (before: number, n: number) => until(`lookups of ${n} requests' keys`, async () => ((await lookups()) >= before + n ? true : undefined));

  const pay = async (to: Address) => {
    const body = await paymentBody(env, { to, amount: 2_000n });
    return { key: body.idempotencyKey as string, answer: post(`${env.url}/v1/payments`, body) };
  };

  /** PaymentExecuted logs of one transaction, by payee. */
  const paidIn = async (txHash: `0x${string}`) => {
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe("success");
    const logs = await env.clients.publicClient.getLogs({ address: env.vault, event: paymentExecuted, blockHash: receipt.blockHash });
    return logs.filter((log) => log.transactionHash === txHash).map((log) => String(log.args.to).toLowerCase());
  };

  beforeAll(async () => {
    env = await startEnv({ batchGatherMs: 1_000, metricsToken: METRICS_TOKEN }, { relayerProvider: (provider) => gatedReads(provider, gates) });
    ledger = new DatabaseSync(ledgerPath(env.stateDir), { readOnly: true });
    await warmUp();
  });
  afterEach(() => {
    // A failed test leaves no read held: later reads would queue behind it.
    for (const gate of gates.values()) gate.release();
    gates.clear();
  });
  afterAll(async () => {
    ledger?.close();
    await env?.close();
  });

  /**
   * A relayer's first request to a vault also probes it and reads its domain (with the payee in the
   * probe): made here, so that each payment below makes one read, its policy read and simulation.
   */
  async function warmUp(): Promise<void> {
    const answer = await (await pay(fresh())).answer;
    expect(answer.body.status).toBe("approved");
  }

  /** The ledger's status of the request under this idempotency key, once recorded. */
  const statusOf = (key: string) =>
    (ledger.prepare("SELECT status FROM requests WHERE kind = 'payment' AND idempotency_key = ?").get(key) as { status: string } | undefined)?.status;

  /**
   * A, then B and C of the same vault: A is read, recorded and queued while B's and C's reads are held
   * at the node (they were checked, so they are on their way). Returns once A has been queued for
   * `settleMs`, with what lets B and C go on.
   */
  async function aQueuedWhileBandCAreRead(settleMs: number) {
    const [a, b, c] = [fresh(), fresh(), fresh()];
    const readA = hold(a);
    const readsBC = [hold(b), hold(c)];
    const first = await pay(a);
    await readA.reached;
    const before = await lookups();
    const rest = await Promise.all([b, c].map(pay));
    await lookedUp(before, rest.length);
    await new Promise((resolve) => setTimeout(resolve, 200)); // from the key's lookup to the signature check: no I/O
    readA.release();
    await Promise.all(readsBC.map((read) => read.reached));
    await until("A recorded", () => statusOf(first.key));
    await new Promise((resolve) => setTimeout(resolve, settleMs)); // from record to queue: no I/O
    return { payees: [a, b, c], requests: [first, ...rest], releaseBandC: () => readsBC.forEach((read) => read.release()) };
  }

  it("a payment queued while two more of its vault are being checked waits for them: one transaction pays all three", async () => {
    const { payees, requests, releaseBandC } = await aQueuedWhileBandCAreRead(100);
    // A waits in the queue, unsigned, for B and C.
    expect(statusOf(requests[0]!.key)).toBe("received");
    releaseBandC();
    const answers = await Promise.all(requests.map((r) => r.answer));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe("approved");
    }
    const txHash = answers[0]!.body.txHash;
    expect(answers.map((x) => x.body.txHash)).toEqual([txHash, txHash, txHash]);
    // On the chain: that one transaction paid each payee, once.
    expect((await paidIn(txHash)).sort()).toEqual(payees.map((x) => x.toLowerCase()).sort());
    for (const payee of payees) expect(await balanceOf(env, env.token("USDC"), payee)).toBe(2_000n);
  });

  /**
   * The A, B, C of aQueuedWhileBandCAreRead, with B's and C's reads held until A is answered: A's
   * transaction pays A alone, and B and C follow in another; each payee is paid once.
   */
  async function aGoesAlone(): Promise<void> {
    const { payees, requests, releaseBandC } = await aQueuedWhileBandCAreRead(0);
    const answerA = await requests[0]!.answer;
    expect(answerA.body.status).toBe("approved");
    expect(await paidIn(answerA.body.txHash)).toEqual([payees[0]!.toLowerCase()]);
    releaseBandC();
    for (const answer of await Promise.all(requests.slice(1).map((r) => r.answer))) {
      expect(answer.body.status).toBe("approved");
      expect(answer.body.txHash).not.toBe(answerA.body.txHash);
    }
    for (const payee of payees) expect(await balanceOf(env, env.token("USDC"), payee)).toBe(2_000n);
  }

  it("a payment still on its way when the wait ends is not waited for: the batch goes without it, and it follows in its own", async () => {
    // B and C stay held: A is answered all the same, once the gather time (1 s) is over.
    await aGoesAlone();
  });

  it("with batchGatherMs 0 nothing is waited for: the first payment goes alone while the others are read", async () => {
    await env.stopRelayers();
    await env.startRelayers({ batchGatherMs: 0, metricsToken: METRICS_TOKEN });
    await warmUp();
    await aGoesAlone();
  });
});
