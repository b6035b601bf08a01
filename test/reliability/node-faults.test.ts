// The node failing under a real relayer process: connections refused, answers too slow, the answer
// to a broadcast lost after the node took the transaction, and the relayer's key used by someone
// else. In every case a payment executes at most once, a retry with the same idempotency key gets
// the outcome, and the relayer never signs a second transaction for an intent whose first may land.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Hex } from "viem";
import { createSender } from "../../src/chain/sender.ts";
import { expectErrorEnvelope } from "../relayer/harness-extra.ts";
import { fresh } from "../relayer/harness.ts";
import {
  balanceOf,
  executionsTo,
  minedNonce,
  paymentTo,
  postPayment,
  sentSince,
  startFaultEnv,
  type FaultEnv,
} from "./support/node-faults-env.ts";

const RPC_TIMEOUT_MS = 1_500;

describe("node faults", () => {
  let env: FaultEnv;

  beforeAll(async () => {
    env = await startFaultEnv();
    await env.startRelay({ rpcTimeoutMs: RPC_TIMEOUT_MS, inFlight: { checkEveryMs: 250, reconcileAfterMs: 1_000 } });
  });
  afterAll(() => env?.close());

  /** A 500 RPC_ERROR envelope that names no node and no URL. */
  function expectOpaqueRpcError(res: { status: number; text: string; body: unknown }): void {
    expect(res.status).toBe(500);
    expectErrorEnvelope(res.body, "RPC_ERROR");
    expect(res.text).not.toContain(env.proxy.url);
    expect(res.text).not.toContain(env.manifest.rpcUrl);
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.text).not.toContain("127.0.0.1");
  }

  /** Asserts the payment to `to` executed exactly once, by the relayer transaction `txHash` with `nonce`. */
  async function expectExecutedOnce(to: Hex, amount: bigint, txHash: Hex, nonce: number): Promise<void> {
    expect(await executionsTo(env, to)).toHaveLength(1);
    expect(await balanceOf(env, to)).toBe(amount);
    const tx = await env.chain.publicClient.getTransaction({ hash: txHash });
    expect(tx.from.toLowerCase()).toBe(env.relayerAddress.toLowerCase());
    expect(tx.nonce).toBe(nonce);
  }

  describe("the node refuses connections", () => {
    it("a payment is 500 RPC_ERROR naming no URL, nothing executes, and once the node is back the same request executes once", async () => {
      const to = fresh();
      const body = await paymentTo(env, to, 2_000_000n);
      const nonce = await minedNonce(env);
      await env.proxy.refuse();
      try {
        expectOpaqueRpcError(await postPayment(env, body));
      } finally {
        await env.proxy.accept();
      }
      expect(await balanceOf(env, to)).toBe(0n);
      expect(await minedNonce(env)).toBe(nonce);

      const retry = await postPayment(env, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      await expectExecutedOnce(to, 2_000_000n, retry.body.txHash, nonce);
      expect(await minedNonce(env)).toBe(nonce + 1);
    });

    it("refused at the broadcast: 500 RPC_ERROR, then the recorded transaction is sent unchanged and the retry gets its outcome", async () => {
      const to = fresh();
      const body = await paymentTo(env, to, 3_000_000n);
      const nonce = await minedNonce(env);
      const mark = env.proxy.seen.length;
      env.proxy.fault("eth_sendRawTransaction", "reset");
      try {
        expectOpaqueRpcError(await postPayment(env, body));
      } finally {
        env.proxy.clearFaults();
      }
      const refused = sentSince(env, mark);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.call.handling).toBe("reset");
      expect(await balanceOf(env, to)).toBe(0n);

      const retry = await postPayment(env, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ status: "approved", txHash: refused[0]!.hash });
      await expectExecutedOnce(to, 3_000_000n, refused[0]!.hash, nonce);
      // Every broadcast of this payment carried the one recorded transaction.
      expect(new Set(sentSince(env, mark).map((s) => s.hash))).toEqual(new Set([refused[0]!.hash]));
      expect(await minedNonce(env)).toBe(nonce + 1);
    });
  });

  describe("the node answers later than the relayer's RPC timeout", () => {
    it("before anything is recorded: 500 RPC_ERROR, nothing executes, and the same request later executes once", async () => {
      const to = fresh();
      const body = await paymentTo(env, to, 4_000_000n);
      const nonce = await minedNonce(env);
      const mark = env.proxy.seen.length;
      env.proxy.fault("*", { delayMs: RPC_TIMEOUT_MS * 2 });
      try {
        expectOpaqueRpcError(await postPayment(env, body));
      } finally {
        env.proxy.clearFaults();
      }
      expect(sentSince(env, mark)).toHaveLength(0);
      // The calls held by the proxy reach the node late; none of them was a transaction.
      await new Promise((r) => setTimeout(r, RPC_TIMEOUT_MS * 2));
      expect(await balanceOf(env, to)).toBe(0n);
      expect(await minedNonce(env)).toBe(nonce);

      const retry = await postPayment(env, body);
      expect(retry.status).toBe(200);
      expect(retry.body.status).toBe("approved");
      await expectExecutedOnce(to, 4_000_000n, retry.body.txHash, nonce);
    });

    it("on the broadcast, which the node takes late: 500 RPC_ERROR, then exactly one execution and the retry gets it", async () => {
      const to = fresh();
      const body = await paymentTo(env, to, 5_000_000n);
      const nonce = await minedNonce(env);
      const mark = env.proxy.seen.length;
      env.proxy.fault("eth_sendRawTransaction", { delayMs: RPC_TIMEOUT_MS * 2 });
      try {
        expectOpaqueRpcError(await postPayment(env, body));
      } finally {
        env.proxy.clearFaults();
      }
      const first = sentSince(env, mark)[0]!;
      expect(first.call.handling).toBe("delayed");

      const retry = await postPayment(env, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ status: "approved", txHash: first.hash });
      await expectExecutedOnce(to, 5_000_000n, first.hash, nonce);
      expect(new Set(sentSince(env, mark).map((s) => s.hash))).toEqual(new Set([first.hash]));
      expect(await minedNonce(env)).toBe(nonce + 1);
    });
  });

  it("the answer to eth_sendRawTransaction is lost after the node took it: reconciled to approved with the real hash, never re-signed", async () => {
    const to = fresh();
    const body = await paymentTo(env, to, 6_000_000n);
    const nonce = await minedNonce(env);
    const mark = env.proxy.seen.length;
    env.proxy.fault("eth_sendRawTransaction", "drop-response");
    try {
      expectOpaqueRpcError(await postPayment(env, body));
    } finally {
      env.proxy.clearFaults();
    }
    const sent = sentSince(env, mark);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.call.handling).toBe("drop-response");
    expect(sent[0]!.call.response).toEqual(expect.objectContaining({ result: sent[0]!.hash }));

    const retry = await postPayment(env, body);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ status: "approved", txHash: sent[0]!.hash });
    const status = await (await fetch(`${env.url}/v1/payments/${retry.body.requestId}`)).json();
    expect(status).toMatchObject({ status: "approved", txHash: sent[0]!.hash });
    await expectExecutedOnce(to, 6_000_000n, sent[0]!.hash, nonce);
    // One transaction from the relayer key for that nonce, and the key's nonce moved by one.
    expect(sentSince(env, mark).every((s) => s.hash === sent[0]!.hash && s.nonce === nonce)).toBe(true);
    expect(await minedNonce(env)).toBe(nonce + 1);
  });

  it("a nonce used outside the relayer: the next submission sees 'nonce too low', re-signs, and no payment is lost or doubled", async () => {
    const warmUp = fresh();
    expect((await postPayment(env, await paymentTo(env, warmUp, 1_000_000n))).body.status).toBe("approved");

    // Someone else sends with the relayer's key straight to the node.
    const outsider = createSender(env.chain, env.manifest.accounts.relayer.privateKey as Hex);
    const before = await minedNonce(env);
    await outsider.sendValue(fresh(), parseEther("0.001"));
    expect(await minedNonce(env)).toBe(before + 1);

    const mark = env.proxy.seen.length;
    const recipients = [fresh(), fresh(), fresh()];
    const bodies = await Promise.all(recipients.map((to, i) => paymentTo(env, to, BigInt(i + 1) * 1_000_000n)));
    const answers = await Promise.all(bodies.map((b) => postPayment(env, b)));
    for (const answer of answers) expect(answer.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    for (const [i, to] of recipients.entries()) {
      expect(await executionsTo(env, to)).toHaveLength(1);
      expect(await balanceOf(env, to)).toBe(BigInt(i + 1) * 1_000_000n);
    }
    const sent = sentSince(env, mark);
    expect(sent.some((s) => /nonce too low/i.test(s.call.response?.error?.message ?? ""))).toBe(true);
    // The transaction signed with the outsider's nonce never landed; the re-signed one did.
    expect(sent[0]!.nonce).toBe(before);
    for (const answer of answers) expect((await env.chain.publicClient.getTransaction({ hash: answer.body.txHash })).nonce).toBeGreaterThan(before);

    // And the relayer goes on: the next payment executes too.
    const after = fresh();
    expect((await postPayment(env, await paymentTo(env, after, 1_000_000n))).body.status).toBe("approved");
    expect(await executionsTo(env, after)).toHaveLength(1);
  });

  it("shutting down while a same-key retry waits on a transaction the node never confirmed: the retry gets 503, the relayer exits, and after a restart the payment executes once", async () => {
    const to = fresh();
    const body = await paymentTo(env, to, 4_000_000n);
    env.proxy.fault("eth_sendRawTransaction", "reset");
    expectOpaqueRpcError(await postPayment(env, body)); // recorded, broadcast unconfirmed: the key stays on it
    env.proxy.fault("*", "reset"); // from here the relayer cannot settle it
    const waiting = postPayment(env, body); // joins the first run's outcome, which cannot come
    await new Promise((r) => setTimeout(r, 500));
    // SIGTERM: without the drain the retry would hold the server open for the receipt timeout (120 s).
    await env.stopRelay();
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expectErrorEnvelope(answer.body, "SERVICE_UNAVAILABLE");
    expect(await balanceOf(env, to)).toBe(0n);

    env.proxy.clearFaults();
    await env.startRelay({ rpcTimeoutMs: RPC_TIMEOUT_MS, inFlight: { checkEveryMs: 250, reconcileAfterMs: 1_000 } });
    const retry = await postPayment(env, body);
    expect(retry.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await executionsTo(env, to)).toHaveLength(1);
    expect(await balanceOf(env, to)).toBe(4_000_000n);
  });
});
