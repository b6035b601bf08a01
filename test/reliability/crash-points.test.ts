// Crash safety at every point of a payment's life, with real processes: one `relay devnet` for the
// whole file, and per round a `relay serve --rpc-url` started with RELAY_FAULT=<point> that kills
// itself (SIGKILL) there, then a restart. Retrying with the same idempotency key and body
// must execute the intent exactly once (one PaymentExecuted, the recipient paid once), and the
// retry's answer and GET /v1/payments/:id must agree with the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import type { FaultPoint } from "../../src/relayer/faults.ts";
import type { PaymentRequestBody } from "../../packages/client/src/types.ts";
import {
  executedEvents,
  freshAddress,
  getPayment,
  ledgerStatusCounts,
  postPayment,
  signedPayment,
  startCrashEnv,
  usdcBalance,
  type CrashEnv,
  type Served,
} from "./support/crash-env.ts";

const ROUNDS = 3;
const points: readonly FaultPoint[] = ["after-record", "after-broadcast", "after-mined", "before-response"];

let env: CrashEnv;
let eventsBefore: number;

beforeAll(async () => {
  env = await startCrashEnv("relay-crash-points-");
  eventsBefore = (await executedEvents(env)).length;
});
afterAll(async () => {
  await env?.stop();
});

/** Sends `bodies` at once to a relayer that dies at its fault point; every request loses its connection. */
async function crash(faulty: Served, point: FaultPoint, bodies: readonly PaymentRequestBody[]): Promise<void> {
  const sent = await Promise.allSettled(bodies.map((body) => postPayment(faulty.url, body)));
  for (const result of sent) expect(result.status, `a request was answered by a relayer that died at ${point}`).toBe("rejected");
  expect((await faulty.relay.exited).signal).toBe("SIGKILL");
}

/** Retries `body` with its key against `relayer`; checks exactly one execution, agreeing answers. */
async function expectExecutedOnce(relayer: Served, body: PaymentRequestBody, to: Address, amount: bigint): Promise<void> {
  const retry = await postPayment(relayer.url, body);
  expect(retry.status, retry.text).toBe(200);
  expect(retry.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

  const events = await executedEvents(env, { to });
  expect(events).toHaveLength(1);
  expect(events[0]!.transactionHash).toBe(retry.body.txHash);
  expect(events[0]!.args.amount).toBe(amount);
  expect(await usdcBalance(env, to)).toBe(amount);
  const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: retry.body.txHash });
  expect(receipt.status).toBe("success");

  const status = await getPayment(relayer.url, retry.body.requestId);
  expect(status.status).toBe(200);
  expect(status.body).toMatchObject({ requestId: retry.body.requestId, status: "approved", txHash: retry.body.txHash });
  const again = await postPayment(relayer.url, body);
  expect(again.text).toBe(retry.text);
}

async function stopCleanly(relayer: Served): Promise<void> {
  relayer.relay.child.kill("SIGTERM");
  expect((await relayer.relay.exited).code).toBe(0);
}

describe("kill -9 at each point of a payment's life, then restart and retry with the same key", () => {
  points.forEach((point, p) => {
    it(`${point}: executed exactly once, status matches the chain (${ROUNDS} rounds)`, async () => {
      // Each restart but the last is armed for the next round: answering a retry of a recorded
      // request signs and sends nothing, so it never reaches a fault point (a double execution would).
      let relayer = await env.serve({ RELAY_FAULT: point });
      for (let round = 0; round < ROUNDS; round++) {
        const to = freshAddress();
        const amount = BigInt(1 + p * ROUNDS + round) * 1_000_000n + 123n;
        const body = await signedPayment(env, to, amount);
        await crash(relayer, point, [body]);
        if (point === "after-record") expect(await usdcBalance(env, to)).toBe(0n);

        relayer = await env.serve(round < ROUNDS - 1 ? { RELAY_FAULT: point } : {});
        await expectExecutedOnce(relayer, body, to, amount);
      }
      await stopCleanly(relayer);
    });
  });

  it("five payments in flight when the relayer dies after recording: each executes exactly once", async () => {
    const payments = await Promise.all(
      [1n, 2n, 3n, 4n, 5n].map(async (n) => {
        const to = freshAddress();
        const amount = 50_000_000n + n;
        return { to, amount, body: await signedPayment(env, to, amount) };
      }),
    );
    await crash(await env.serve({ RELAY_FAULT: "after-record" }), "after-record", payments.map((x) => x.body));

    const restarted = await env.serve();
    await Promise.all(payments.map((x) => expectExecutedOnce(restarted, x.body, x.to, x.amount)));
    await stopCleanly(restarted);
  });

  it("leaves nothing in flight, and the ledger's approved payments match the chain's PaymentExecuted events", async () => {
    const counts = ledgerStatusCounts(env.stateDir);
    expect(counts.submitting ?? 0).toBe(0);
    expect(counts.submitted ?? 0).toBe(0);
    const executed = (await executedEvents(env)).length - eventsBefore;
    expect(counts.approved).toBe(points.length * ROUNDS + 5);
    expect(executed).toBe(counts.approved);
  });
});
