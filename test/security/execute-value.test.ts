// Execute is valued by what moves. The attack: the owner approves USDC as a protocol, caps the
// default bot at $100 a transaction and whitelists one destination W; the bot then calls POST
// /v1/execute with `USDC.transfer(Y, 20000e6)` and `tokens: []`. Before, the fast path moved $20,000
// to Y (both the relayer and the vault valued the call by what the bot declared). Now the transfer's
// recipient meets the destination rule, the vault refuses outflows beyond the declared amounts (of a
// declared or default token, ETH, or the called token itself), and the relayer values the call by the
// outflows its simulation measures: also of a token the vault does not measure (priced by the
// registry, not one of its default tokens, pulled by a protocol through a standing allowance the owner
// granted). Each refusal is checked on the chain.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { balanceOf, calldata, executeBody, fresh, get, ownerCall, post, startEnv, type Env } from "../relayer/harness.ts";
import { newBot, usd } from "../relayer/harness-extra.ts";
import { ownerSession } from "./support/owner-session.ts";
import { pricedToken } from "./support/devnet-admin.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { EXIT } from "../../src/cli/io.ts";
import { runMain } from "../helpers/cli.ts";
import { signReviewApproval } from "../../packages/client/src/sign.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;
/** Whole units of the 18-decimal side token, priced at $1. */
const SIDE = (n: number) => BigInt(n) * 10n ** 18n;
const DAY = 86_400n;

describe("execute is valued by what moves", () => {
  let env: Env;
  let execute: string;
  let usdc: Address;
  let side: Address;
  /** The lending pool, approved as a protocol and granted a standing allowance over the side token. */
  let lending: Address;
  /** The one whitelisted destination. */
  const W = fresh();
  const Y = fresh();

  beforeAll(async () => {
    env = await startEnv();
    execute = `${env.url}/v1/execute`;
    usdc = env.token("USDC");
    side = await pricedToken(env, 1_00000000n, SIDE(1_000_000));
    await ownerCall(env, "approveProtocol", [usdc]);
    await ownerCall(env, "approveProtocol", [side]);
    await ownerCall(env, "updateBotPolicy", [env.bot.address, { ...PERMISSIVE_LIMITS, maxPerTxAmount: usd(100) }]);
    await ownerCall(env, "addGlobalDestination", [W]);
    lending = env.manifest.contracts.lending as Address;
    await ownerCall(env, "approveProtocol", [lending]);
    // The owner, through the review queue, lets the lending pool pull the side token.
    const grant = await post(execute, await executeBody(env, { protocol: side }, calldata("mocks/MockERC20", "approve", [lending, SIDE(1_000_000)])));
    expect(grant.body.status).toBe("pending_review");
    const auth = await ownerSession(env);
    const detail = await get(`${env.url}/v1/reviews/${grant.body.requestId}`, auth);
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: detail.body.intentHash, deadline });
    const approved = await post(`${env.url}/v1/reviews/${grant.body.requestId}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth);
    expect(approved.body.status).toBe("approved");
  });
  afterAll(() => env?.close());

  /** USDC and the side token held by the vault, W and Y. */
  const holdings = async () => {
    const of = (token: Address) => Promise.all([env.vault, W, Y].map((who) => balanceOf(env, token, who)));
    return { usdc: await of(usdc), side: await of(side) };
  };

  const transfer = (to: Address, amount: bigint) => calldata("mocks/MockERC20", "transfer", [to, amount]);
  /** lending.supply(side, amount): the pool pulls the side token through the owner's standing allowance. */
  const supply = (amount: bigint) => calldata("mocks/MockLendingPool", "supply", [side, amount]);
  const pooled = () => balanceOf(env, side, lending);

  describe("USDC, a registry default token, approved as a protocol; the bot capped at $100 with W whitelisted", () => {
    it("USDC.transfer(Y, 20000e6) with tokens []: 403 DESTINATION_NOT_ALLOWED (Y is not whitelisted), nothing moved", async () => {
      const before = await holdings();
      const res = await post(execute, await executeBody(env, { protocol: usdc }, transfer(Y, USDC(20_000))));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("DESTINATION_NOT_ALLOWED");
      expect(res.body.details).toContain(Y);
      expect(await holdings()).toEqual(before);
    });

    it("USDC.transfer(W, 20000e6) with tokens []: refused because it moves more than it declared (the vault's ExcessOutflow in simulation), nothing moved", async () => {
      const before = await holdings();
      const res = await post(execute, await executeBody(env, { protocol: usdc }, transfer(W, USDC(20_000))));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("SIMULATION_FAILED");
      expect(res.body.details).toBe(`ExcessOutflow(${usdc}, ${USDC(20_000)}, 0)`);
      expect(await holdings()).toEqual(before);
    });

    it("the same transfer declared as tokens [USDC] amounts [20000e6]: 403 EXCEEDS_PER_TX_LIMIT, nothing moved", async () => {
      const before = await holdings();
      const res = await post(execute, await executeBody(env, { protocol: usdc, tokens: [usdc], amounts: [USDC(20_000)] }, transfer(W, USDC(20_000))));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_PER_TX_LIMIT");
      expect(res.body.details).toMatch(/worth 20000 USD exceeds the bot's maxPerTxAmount of 100 USD/);
      expect(await holdings()).toEqual(before);
    });

    it("under the cap, declared and to W: USDC.transfer(W, 50e6) is approved and W gets 50 USDC", async () => {
      const before = await holdings();
      const res = await post(execute, await executeBody(env, { protocol: usdc, tokens: [usdc], amounts: [USDC(50)] }, transfer(W, USDC(50))));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(await holdings()).toEqual({ usdc: [before.usdc[0]! - USDC(50), before.usdc[1]! + USDC(50), 0n], side: before.side });
    });
  });

  describe("a token priced by the registry, not a default token, approved as a protocol: the vault measures the called token", () => {
    it("side.transfer(W, 20,000) with tokens []: refused because it moves more than it declared (the vault's ExcessOutflow in simulation), nothing moved", async () => {
      const before = await holdings();
      const res = await post(execute, await executeBody(env, { protocol: side }, transfer(W, SIDE(20_000))));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("SIMULATION_FAILED");
      expect(res.body.details).toBe(`ExcessOutflow(${side}, ${SIDE(20_000)}, 0)`);
      expect(await holdings()).toEqual(before);
    });

    it("the same transfer declared as tokens [side] amounts [20,000]: 403 EXCEEDS_PER_TX_LIMIT, nothing moved", async () => {
      const before = await holdings();
      const res = await post(execute, await executeBody(env, { protocol: side, tokens: [side], amounts: [SIDE(20_000)] }, transfer(W, SIDE(20_000))));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_PER_TX_LIMIT");
      expect(res.body.details).toMatch(/worth 20000 USD exceeds the bot's maxPerTxAmount of 100 USD/);
      expect(await holdings()).toEqual(before);
    });

    it("side.transfer(Y, 50) with tokens []: 403 DESTINATION_NOT_ALLOWED, nothing moved", async () => {
      const before = await holdings();
      const res = await post(execute, await executeBody(env, { protocol: side }, transfer(Y, SIDE(50))));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("DESTINATION_NOT_ALLOWED");
      expect(await holdings()).toEqual(before);
    });

    it("side.transfer(W, 50) with tokens []: 422 ExcessOutflow(side, 50, 0), nothing moved; declared as tokens [side] amounts [50], worth $50, approved", async () => {
      const before = await holdings();
      const undeclared = await post(execute, await executeBody(env, { protocol: side }, transfer(W, SIDE(50))));
      expect(undeclared.status).toBe(422);
      expect(undeclared.body.details).toBe(`ExcessOutflow(${side}, ${SIDE(50)}, 0)`);
      expect(await holdings()).toEqual(before);
      const res = await post(execute, await executeBody(env, { protocol: side, tokens: [side], amounts: [SIDE(50)] }, transfer(W, SIDE(50))));
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
      expect(await holdings()).toEqual({ usdc: before.usdc, side: [before.side[0]! - SIDE(50), before.side[1]! + SIDE(50), 0n] });
    });
  });

  describe("a standing allowance the owner granted over a token the vault does not measure: the relayer's measured value", () => {
    it("lending.supply(side, 20,000) with tokens []: the pool would pull $20,000 through the allowance, so 403 EXCEEDS_PER_TX_LIMIT, nothing moved", async () => {
      const before = await holdings();
      const poolBefore = await balanceOf(env, side, lending);
      const res = await post(execute, await executeBody(env, { protocol: lending }, calldata("mocks/MockLendingPool", "supply", [side, SIDE(20_000)])));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_PER_TX_LIMIT");
      expect(res.body.details).toMatch(/worth 20000 USD exceeds the bot's maxPerTxAmount of 100 USD/);
      expect(await balanceOf(env, side, lending)).toBe(poolBefore);
      expect(await holdings()).toEqual(before);
    });

    it("a call naming more addresses than the relayer measures (65 junk words after supply's arguments) is not valued: held for the owner, nothing moved", async () => {
      const before = await holdings();
      const poolBefore = await balanceOf(env, side, lending);
      const junk = Array.from({ length: 65 }, () => fresh().slice(2).toLowerCase().padStart(64, "0")).join("");
      const padded = `${calldata("mocks/MockLendingPool", "supply", [side, SIDE(50)])}${junk}` as const;
      const res = await post(execute, await executeBody(env, { protocol: lending }, padded));
      expect(res.body).toEqual({ requestId: expect.stringMatching(/^req_/), status: "pending_review", pollUrl: `/v1/execute/${res.body.requestId}` });
      expect(await balanceOf(env, side, lending)).toBe(poolBefore);
      expect(await holdings()).toEqual(before);
    });
  });

  describe("the AI threshold sees the measured value", () => {
    // A bot with the seed's limits ($50,000 a transaction, the AI scan from $10,000).
    let scanned: Awaited<ReturnType<typeof newBot>>;
    let heldId: string;

    beforeAll(async () => {
      scanned = await newBot(env);
    });

    // A devnet scenario now forces the scan whatever the value, so "not scanned" is read from the
    // ledger: a request the agents saw carries their verdicts.
    it("lending.supply(side, 9,999) with tokens [] is below the threshold: not scanned (no verdicts), approved", async () => {
      const before = await pooled();
      const res = await post(execute, await executeBody(env, { protocol: lending }, supply(SIDE(9_999)), { signer: scanned }));
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
      expect((await env.relayer.store.getRequest(res.body.requestId))!.agents).toBeUndefined();
      expect(await pooled()).toBe(before + SIDE(9_999));
    });

    it("lending.supply(side, 10,001) with tokens [] declares $0 but moves $10,001: AI-scanned, held when the agents disagree, nothing moved", async () => {
      const before = await holdings();
      const poolBefore = await pooled();
      const res = await post(execute, await executeBody(env, { protocol: lending }, supply(SIDE(10_001)), { signer: scanned, metadata: { scenario: "ai-no-consensus" } }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ requestId: expect.stringMatching(/^req_/), status: "pending_review", pollUrl: `/v1/execute/${res.body.requestId}` });
      heldId = res.body.requestId;
      expect(await holdings()).toEqual(before);
      expect(await pooled()).toBe(poolBefore);
    });

    it("its review item shows why it was scanned, its measured value and the outflows", async () => {
      const auth = await ownerSession(env);
      const res = await get(`${env.url}/v1/reviews/${heldId}`, auth);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        kind: "execute",
        status: "pending_review",
        heldBecause: expect.stringMatching(/did not reach consensus \(worth 10001 USD, at or above the AI trigger threshold of 10000 USD\)/),
        usdValue: 10_001,
        amounts: [],
      });
      expect(res.body.agents.map((v: { agent: string; approve: boolean }) => [v.agent, v.approve])).toEqual([
        ["safety", true],
        ["behavioral", false],
        ["reasoning", false],
      ]);
      expect(res.body.outflows).toEqual([{ token: side, amount: SIDE(10_001).toString(), usdValue: 10_001, text: `${SIDE(10_001)} base units of ${side} ($10,001.00)` }]);
    });

    it("`relay review show` prints what moves out of the vault", async () => {
      const stateDir = mkdtempSync(path.join(tmpdir(), "relay-review-show-"));
      try {
        const ownerKey = env.manifest.accounts.owner.privateKey;
        const run = runMain(["review", "show", heldId, "--relayer-url", env.url, "--owner-key", ownerKey, "--chain-id", String(env.manifest.chainId), "--state-dir", stateDir]);
        expect(await run.done).toBe(EXIT.OK);
        expect(run.output.stdout).toContain(`Moves out of the vault: ${SIDE(10_001)} base units of ${side} ($10,001.00)`);
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    });
  });

  describe("the spending windows count the measured value", () => {
    let windowed: Awaited<ReturnType<typeof newBot>>;

    beforeAll(async () => {
      windowed = await newBot(env, { spendingLimits: [{ amount: usd(5_000), maxCount: 0n, windowSeconds: DAY }] });
    });

    it("one supply measured above the daily limit: 403 EXCEEDS_DAILY_LIMIT, nothing moved", async () => {
      const before = await holdings();
      const poolBefore = await pooled();
      const res = await post(execute, await executeBody(env, { protocol: lending }, supply(SIDE(6_000)), { signer: windowed }));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_DAILY_LIMIT");
      expect(await holdings()).toEqual(before);
      expect(await pooled()).toBe(poolBefore);
    });

    it("$3,000 declared as nothing passes and is counted: a second $3,000 is 403 EXCEEDS_DAILY_LIMIT, only the first moved", async () => {
      const before = await pooled();
      const first = await post(execute, await executeBody(env, { protocol: lending }, supply(SIDE(3_000)), { signer: windowed }));
      expect(first.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
      const second = await post(execute, await executeBody(env, { protocol: lending }, supply(SIDE(3_000)), { signer: windowed }));
      expect(second.status).toBe(403);
      expect(second.body.code).toBe("EXCEEDS_DAILY_LIMIT");
      expect(second.body.details).toMatch(/limit of 5000 USD per 86400 s has 2000 USD left/);
      expect(await pooled()).toBe(before + SIDE(3_000));
    });
  });
});
