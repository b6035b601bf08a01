// Graceful shutdown under load, with real processes: a `relay serve --rpc-url` receiving payments
// from 20 concurrent senders gets SIGTERM. Requests sent once it is draining get 503
// SERVICE_UNAVAILABLE in the error envelope (or a refused connection once it exited); requests in
// flight reach a recorded state; the process exits 0 by itself. After a restart nothing is lost:
// every answered payment is on-chain exactly once with the status the relayer reports, every
// unanswered one executes exactly once when retried with its key, and the ledger agrees with the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import type { PaymentRequestBody } from "../../packages/client/src/types.ts";
import {
  executedEvents,
  freshAddress,
  getPayment,
  ledgerStatusCounts,
  mapLimited,
  postPayment,
  postPaymentPolitely,
  signedPayment,
  startCrashEnv,
  usdcBalance,
  type Answer,
  type CrashEnv,
  type Served,
} from "./support/crash-env.ts";

const SENDERS = 20;
/** Approved answers to wait for before SIGTERM, so that the relayer is busy when it arrives. */
const APPROVED_BEFORE_SIGTERM = 30;
/** Generous bound on the drain: in-flight payments only wait for their receipts. */
const EXIT_WITHIN_MS = 60_000;

interface Sent {
  body: PaymentRequestBody;
  to: Address;
  amount: bigint;
  /** The relayer had already said it was shutting down when this request was sent. */
  sentWhileDraining: boolean;
  /** The process had already exited when this request was sent. */
  sentAfterExit: boolean;
  answer?: Answer;
  error?: unknown;
}

let env: CrashEnv;

beforeAll(async () => {
  env = await startCrashEnv("relay-shutdown-");
});
afterAll(async () => {
  await env?.stop();
});

/** Senders post fresh payments until the relayer has exited; SIGTERM once enough were approved. */
async function loadThenTerminate(relayer: Served): Promise<{ sent: Sent[]; exit: { code: number | null; signal: NodeJS.Signals | null } }> {
  const sent: Sent[] = [];
  let exited = false;
  let approved = 0;
  let terminate!: () => void;
  const enoughApproved = new Promise<void>((resolve) => (terminate = resolve));
  const exit = relayer.relay.exited.then((e) => {
    exited = true;
    return e;
  });
  const draining = () => relayer.relay.output.stderr.includes("relay: shutting down");

  let counter = 0;
  const sender = async (): Promise<void> => {
    for (;;) {
      const to = freshAddress();
      const amount = 1_000_000n + BigInt(++counter);
      const body = await signedPayment(env, to, amount);
      const entry: Sent = { body, to, amount, sentWhileDraining: draining(), sentAfterExit: exited };
      sent.push(entry);
      try {
        entry.answer = await postPayment(relayer.url, body);
        if (entry.answer.status === 200 && ++approved === APPROVED_BEFORE_SIGTERM) terminate();
      } catch (error) {
        entry.error = error;
      }
      if (entry.sentAfterExit) return;
    }
  };

  const senders = Array.from({ length: SENDERS }, () => sender());
  await enoughApproved;
  relayer.relay.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const bounded = await Promise.race([exit, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), EXIT_WITHIN_MS)))]);
  clearTimeout(timer);
  expect(bounded, "the relayer did not exit by itself after SIGTERM").not.toBe("timeout");
  await Promise.all(senders);
  return { sent, exit: await exit };
}

describe("SIGTERM under a steady stream of payments", () => {
  it("drains: 503 envelope or refused for new requests, exit 0, then nothing lost and nothing executed twice", async () => {
    const fromBlock = await env.clients.publicClient.getBlockNumber();
    const first = await env.serve();
    const { sent, exit } = await loadThenTerminate(first);
    expect(exit).toEqual({ code: 0, signal: null });
    const blockAtExit = await env.clients.publicClient.getBlockNumber();

    // Every answer is an approval or the draining 503 in the error envelope; nothing else.
    const answered = sent.filter((s) => s.answer);
    for (const s of answered) {
      const { status, body } = s.answer!;
      if (status === 200) expect(body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      else {
        expect(status, s.answer!.text).toBe(503);
        expect(body).toMatchObject({ error: expect.any(String), code: "SERVICE_UNAVAILABLE" });
      }
    }
    // Once the relayer said it was shutting down, no new request was taken on.
    for (const s of sent.filter((x) => x.sentWhileDraining)) expect(s.answer?.status ?? "no answer").not.toBe(200);
    // Once it exited, connections are refused.
    const afterExit = sent.filter((s) => s.sentAfterExit);
    expect(afterExit.length).toBeGreaterThan(0);
    for (const s of afterExit) expect(s.error).toBeDefined();

    // After a restart: each approval is on-chain exactly once, as GET reports it.
    const second = await env.serve();
    const approved = answered.filter((s) => s.answer!.status === 200);
    expect(approved.length).toBeGreaterThanOrEqual(APPROVED_BEFORE_SIGTERM);
    await Promise.all(
      approved.map(async (s) => {
        const events = await executedEvents(env, { to: s.to, fromBlock });
        expect(events.map((e) => e.transactionHash)).toEqual([s.answer!.body.txHash]);
        expect(await usdcBalance(env, s.to)).toBe(s.amount);
        const status = await getPayment(second.url, s.answer!.body.requestId);
        expect(status.body).toMatchObject({ requestId: s.answer!.body.requestId, status: "approved", txHash: s.answer!.body.txHash });
      }),
    );

    // Every request that was not approved (503, no answer, refused), retried with its key, executes
    // once, and only now: the first relayer executed nothing it did not answer.
    const retried = sent.filter((s) => s.answer?.status !== 200);
    const retries = await mapLimited(retried, 10, (s) => postPaymentPolitely(second.url, s.body));
    await Promise.all(
      retried.map(async (s, i) => {
        const retry = retries[i]!;
        expect(retry.status, retry.text).toBe(200);
        expect(retry.body).toMatchObject({ status: "approved" });
        const events = await executedEvents(env, { to: s.to, fromBlock });
        expect(events.map((e) => e.transactionHash)).toEqual([retry.body.txHash]);
        expect(events[0]!.blockNumber).toBeGreaterThan(blockAtExit);
        expect(await usdcBalance(env, s.to)).toBe(s.amount);
      }),
    );

    // The ledger and the chain agree: one approved request per PaymentExecuted, none left in flight.
    second.relay.child.kill("SIGTERM");
    expect((await second.relay.exited).code).toBe(0);
    const counts = ledgerStatusCounts(env.stateDir);
    expect(counts.submitting ?? 0).toBe(0);
    expect(counts.submitted ?? 0).toBe(0);
    expect(counts.approved).toBe(sent.length);
    expect((await executedEvents(env, { fromBlock })).length).toBe(sent.length);
    console.log(
      `shutdown under load: ${sent.length} payments, ${approved.length} approved before exit, ` +
        `${answered.filter((s) => s.answer!.status === 503).length} answered 503, ${sent.filter((s) => s.error && !s.sentAfterExit).length} unanswered while draining, ` +
        `${afterExit.length} refused after exit; all ${sent.length} executed exactly once`,
    );
  });
});
