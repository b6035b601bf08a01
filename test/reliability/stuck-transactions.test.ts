// Transactions that do not get mined, on a devnet that mines on an interval (not on each
// transaction): one dropped from the node's pool is sent again unchanged (same hash) and lands; one
// priced below the base fee is replaced with the same nonce and higher fees and lands once. The
// interval is paused while each fault is arranged, then resumed so the chain mines on its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHex, type Hex } from "viem";
import { fresh } from "../relayer/harness.ts";
import {
  balanceOf,
  executionsTo,
  minedNonce,
  paymentTo,
  postPayment,
  sentSince,
  startFaultEnv,
  until,
  type FaultEnv,
} from "./support/node-faults-env.ts";

const MINING_INTERVAL_MS = 300;

describe("dropped and stuck transactions", () => {
  let env: FaultEnv;

  beforeAll(async () => {
    env = await startFaultEnv();
    await env.rpc("evm_setAutomine", [false]);
  });
  afterAll(() => env?.close());

  const pauseMining = () => env.rpc("evm_setIntervalMining", [0]);
  const resumeMining = () => env.rpc("evm_setIntervalMining", [MINING_INTERVAL_MS]);
  const receiptOf = (hash: Hex) => env.chain.publicClient.getTransactionReceipt({ hash }).catch(() => undefined);

  it("a transaction dropped from the pool is re-broadcast unchanged and lands", async () => {
    await env.startRelay({ inFlight: { checkEveryMs: 200, replaceAfterMs: 600_000, reconcileAfterMs: 600_000 } });
    await resumeMining();
    const to = fresh();
    const body = await paymentTo(env, to, 2_000_000n);
    await pauseMining();
    const nonce = await minedNonce(env);
    const mark = env.proxy.seen.length;

    const answer = postPayment(env, body);
    const first = await until("the relayer's broadcast", () => sentSince(env, mark).find((s) => s.call.response?.result));
    expect(await env.rpc("hardhat_dropTransaction", [first.hash])).toBe(true);
    expect(await env.rpc("eth_getTransactionByHash", [first.hash])).toBeNull();

    const again = await until("a second broadcast", () => sentSince(env, mark)[1]);
    expect(again.raw).toBe(first.raw);
    await resumeMining();

    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "approved", txHash: first.hash });
    expect((await receiptOf(first.hash))?.status).toBe("success");
    expect(await executionsTo(env, to)).toHaveLength(1);
    expect(await balanceOf(env, to)).toBe(2_000_000n);
    expect(new Set(sentSince(env, mark).map((s) => s.raw))).toEqual(new Set([first.raw]));
    expect(await minedNonce(env)).toBe(nonce + 1);
  });

  it("a transaction stuck below the base fee is replaced with the same nonce and higher fees, and lands once", async () => {
    await env.startRelay({ inFlight: { checkEveryMs: 200, replaceAfterMs: 1_500, feeBumpPercent: 20, reconcileAfterMs: 600_000 } });
    await resumeMining();
    const to = fresh();
    const body = await paymentTo(env, to, 3_000_000n);
    await pauseMining();
    const nonce = await minedNonce(env);
    const mark = env.proxy.seen.length;

    const answer = postPayment(env, body);
    const first = await until("the relayer's broadcast", () => sentSince(env, mark).find((s) => s.call.response?.result));
    expect(first.nonce).toBe(nonce);
    // The base fee jumps past what the transaction offers: a block is mined without it.
    await env.rpc("hardhat_setNextBlockBaseFeePerGas", [toHex(first.maxFeePerGas * 10n)]);
    await env.rpc("evm_mine");
    expect(await receiptOf(first.hash)).toBeUndefined();
    expect(await minedNonce(env)).toBe(nonce);

    const replacement = await until("a replacement", () => sentSince(env, mark).find((s) => s.hash !== first.hash && s.call.response?.result));
    expect(replacement.nonce).toBe(nonce);
    expect(replacement.maxFeePerGas * 10n).toBeGreaterThanOrEqual(first.maxFeePerGas * 11n);
    expect(replacement.maxPriorityFeePerGas * 10n).toBeGreaterThanOrEqual(first.maxPriorityFeePerGas * 11n);
    await resumeMining();

    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("approved");
    const mined = res.body.txHash as Hex;
    expect(mined).not.toBe(first.hash);
    const versions = sentSince(env, mark);
    expect(versions.map((s) => s.hash)).toContain(mined);
    // Every version carried the same nonce; only the one answered is in a block.
    expect(versions.every((s) => s.nonce === nonce)).toBe(true);
    expect((await receiptOf(mined))?.status).toBe("success");
    for (const other of new Set(versions.map((s) => s.hash))) if (other !== mined) expect(await receiptOf(other)).toBeUndefined();
    expect(await executionsTo(env, to)).toHaveLength(1);
    expect(await balanceOf(env, to)).toBe(3_000_000n);
    expect(await minedNonce(env)).toBe(nonce + 1);
    const status = await (await fetch(`${env.url}/v1/payments/${res.body.requestId}`)).json();
    expect(status).toMatchObject({ status: "approved", txHash: mined });
  });
});
