// How a relayer key's transactions get their fees (submitter.ts #feeData): never older than a second
// when signed, and read again in the background once half a second old, so that under steady
// traffic no payment waits for the node's fee answers. `relay serve` as its own process on anvil,
// behind the recording proxy of the node-fault tests (support/proxied-anvil.ts), which holds the
// node's tip answer back: a payment that waited for a fee read would take at least that long.
// Every payment is read back from the chain.
import { describe, expect, it } from "vitest";
import { parseTransaction, type Address, type Hex } from "viem";
import { until } from "../reliability/support/node-faults-env.ts";
import { proxiedAnvil } from "./support/proxied-anvil.ts";

/** viem's estimateFeesPerGas asks the node for its suggested tip with this method (after the latest block). */
const TIP = "eth_maxPriorityFeePerGas";
/** How long the proxy holds each tip answer back in the timed part. */
const HELD_MS = 1_500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe("fee reads on a relayer key's path", () => {
  const env = proxiedAnvil();
  /** One payment of `amount` to `to`, which must be approved: its answer and how long it took (ms). */
  async function pay(to: Address, amount: bigint): Promise<{ body: Record<string, any>; ms: number }> {
    const { status, body, ms } = await env.pay(to, amount);
    expect(status).toBe(200);
    expect(body.status).toBe("approved");
    return { body, ms };
  }
  const tipReads = () => env.proxy.calls(TIP).length;
  /** The fee cap of each transaction relay sent so far, in order. */
  const feeCaps = () => env.proxy.seen.filter((c) => c.method.startsWith("eth_sendRawTransaction")).map((c) => parseTransaction(c.params[0] as Hex).maxFeePerGas);

  it("fees half a second old sign at once and are read again meanwhile; fees a second old are read before signing", async () => {
    const payees = [0x71, 0x72, 0x73].map((n) => `0x${n.toString(16).repeat(20)}` as Address);
    // Fees read while this payment was under way, more than a second after any earlier read.
    await pay(`0x${"70".repeat(20)}` as Address, 1n);
    await sleep(1_100);
    let reads = tipReads();
    const begun = performance.now();
    await pay(payees[0]!, 1_000n);
    const ended = performance.now();
    expect(tipReads()).toBe(reads + 1);
    expect(ended - begun).toBeLessThan(300); // so that 800 ms after it began they are 0.5–0.8 s old

    // Half a second old: the payment does not wait for the (held) read it starts.
    let second: Awaited<ReturnType<typeof pay>> | undefined;
    let third: Awaited<ReturnType<typeof pay>> | undefined;
    env.proxy.fault(TIP, { delayMs: HELD_MS });
    try {
      await sleep(begun + 800 - performance.now());
      reads = tipReads();
      second = await pay(payees[1]!, 1_000n);
      const readAt = performance.now();
      expect(second.ms).toBeLessThan(HELD_MS - 300);
      await until("the background fee read", () => tipReads() > reads || undefined);
      // It signed with the fees of the payment before: the read it started had not answered yet.
      expect(feeCaps().at(-1)).toBe(feeCaps().at(-2));

      // Once the background read has answered and is a second old, the next payment waits for a fresh one.
      await sleep(readAt + 1_100 - performance.now());
      reads = tipReads();
      third = await pay(payees[2]!, 1_000n);
      expect(tipReads()).toBe(reads + 1);
      expect(third.ms).toBeGreaterThanOrEqual(HELD_MS - 50);
    } finally {
      env.proxy.clearFaults();
    }

    // On the chain: each payee paid once, each transaction mined.
    for (const payee of payees) expect(await env.balance(payee)).toBe(1_000n);
    for (const answer of [second!, third!]) expect((await env.chain.publicClient.getTransactionReceipt({ hash: answer.body.txHash })).status).toBe("success");
  }, 60_000);
});
