// A token the owner approved as a protocol, called directly. Attack: a leaked relayer key with a bot's
// key has the vault call `side.transfer(W, everything)` with `tokens: []` and value 0, where side is
// priced by the registry but is not one of its default tokens and W is a destination the rules allow.
// Before, the vault measured outflows only of the declared tokens, the default tokens and ETH: the
// whole balance moved, past the bot's $100 per-transaction cap, its $100 daily bucket and its $50 AI
// hold. Now the vault also measures its balance of the called protocol when it answers balanceOf, and
// refuses any fall beyond what was declared (0 undeclared): the declared value bounds the call, and the
// cap, the bucket and the AI hold see it. The relayer refuses the same request before sending.
// An ERC-777 operator grant (authorizeOperator) needs the owner's review, like an approve. What
// remains, measured: a standing allowance the owner left over a token that is neither declared nor a
// default token lets an unreviewed call move that token, at most the allowance.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, keccak256, parseAbi, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { defaultDeadline, randomRef, signExecuteIntent, signReviewApproval } from "../../packages/client/src/sign.ts";
import type { ExecuteIntent } from "../../packages/client/src/intent-types.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { balanceOf, calldata, executeBody, fresh, ownerCall, post, startEnv, type Env } from "../relayer/harness.ts";
import { newBot, readOf, usd } from "../relayer/harness-extra.ts";
import { allowanceOf, pricedToken } from "./support/devnet-admin.ts";
import { asRelayer } from "./support/leaked-relayer.ts";

/** Whole units of the 18-decimal side token, priced at $1. */
const SIDE = (n: number) => BigInt(n) * 10n ** 18n;
const DAY = 86_400n;
type Bucket = readonly [bigint, bigint, bigint, bigint];

describe("a token approved as a protocol, called directly by a leaked relayer key with a bot's key", () => {
  let env: Env;
  let side: Address;
  let bot: PrivateKeyAccount;
  /** The one whitelisted destination. */
  const W = fresh();

  beforeAll(async () => {
    env = await startEnv();
    side = await pricedToken(env, 1_00000000n, SIDE(1_000_000));
    await ownerCall(env, "approveProtocol", [side]);
    await ownerCall(env, "addGlobalDestination", [W]);
    bot = await newBot(env, {
      maxPerTxAmount: usd(100),
      aiTriggerThreshold: usd(50),
      spendingLimits: [{ amount: usd(100), maxCount: 0n, windowSeconds: DAY }],
    });
  });
  afterAll(() => env?.close());

  const domain = () => env.manifest.domain as never;
  const sideHeld = () => Promise.all([balanceOf(env, side, env.vault), balanceOf(env, side, W)]);
  /** What the bot's daily bucket has left (USD, 6 decimals). */
  const dailyLeft = async () =>
    (await readOf<readonly [readonly Bucket[], readonly Bucket[], Bucket]>(env, env.vault, "ServiceVault", "spendBuckets", [bot.address]))[0][0]![2];
  const transfer = (to: Address, amount: bigint) => calldata("mocks/MockERC20", "transfer", [to, amount]);

  async function signedExecute(protocol: Address, callData: Hex, tokens: Address[] = [], amounts: bigint[] = []) {
    const intent: ExecuteIntent = { bot: bot.address, protocol, calldataHash: keccak256(callData), tokens, amounts, value: 0n, deadline: defaultDeadline(), ref: randomRef() };
    return { intent, signature: await signExecuteIntent(bot, domain(), intent), callData };
  }

  it("side.transfer(W, 1,000,000) with tokens [] and value 0: ExcessOutflow, W got nothing, the bucket untouched", async () => {
    const before = await sideHeld();
    const left = await dailyLeft();
    const { intent, signature, callData } = await signedExecute(side, transfer(W, SIDE(1_000_000)));
    const attempt = await asRelayer(env, "executeProtocol", [intent, signature, callData]);
    expect(attempt).toEqual({ refusal: "ExcessOutflow", status: "reverted" });
    expect(await sideHeld()).toEqual(before);
    expect(await dailyLeft()).toBeGreaterThanOrEqual(left);
  });

  it("declaring less than it moves (tokens [side] amounts [40], transfer of 1,000): ExcessOutflow, nothing moved", async () => {
    const before = await sideHeld();
    const { intent, signature, callData } = await signedExecute(side, transfer(W, SIDE(1_000)), [side], [SIDE(40)]);
    const attempt = await asRelayer(env, "executeProtocol", [intent, signature, callData]);
    expect(attempt).toEqual({ refusal: "ExcessOutflow", status: "reverted" });
    expect(await sideHeld()).toEqual(before);
  });

  it("declared honestly, the bot's limits bind: $60 AiApprovalRequired, and $200 even with the owner's approval ExceedsPerTxLimit, nothing moved", async () => {
    const before = await sideHeld();
    const held = await signedExecute(side, transfer(W, SIDE(60)), [side], [SIDE(60)]);
    expect(await asRelayer(env, "executeProtocol", [held.intent, held.signature, held.callData])).toEqual({ refusal: "AiApprovalRequired", status: "reverted" });
    const over = await signedExecute(side, transfer(W, SIDE(200)), [side], [SIDE(200)]);
    const deadline = defaultDeadline();
    const approval = await signReviewApproval(env.ownerAccount, domain(), { intentHash: hashIntent("execute", domain(), over.intent), deadline });
    expect(await asRelayer(env, "executeReviewedProtocol", [over.intent, over.signature, over.callData, deadline, approval])).toEqual({ refusal: "ExceedsPerTxLimit", status: "reverted" });
    expect(await sideHeld()).toEqual(before);
  });

  it("declared honestly and within the limits ($40): it moves 40 and the daily bucket is debited $40", async () => {
    const [vault, w] = await sideHeld();
    const left = await dailyLeft();
    const { intent, signature, callData } = await signedExecute(side, transfer(W, SIDE(40)), [side], [SIDE(40)]);
    expect(await asRelayer(env, "executeProtocol", [intent, signature, callData])).toEqual({ refusal: "", status: "success" });
    expect(await sideHeld()).toEqual([vault! - SIDE(40), w! + SIDE(40)]);
    const after = await dailyLeft();
    expect(after).toBeLessThanOrEqual(left - usd(40) + usd(1)); // a second or two of refill at most
    expect(after).toBeGreaterThanOrEqual(left - usd(40));
  });

  describe("through the relayer", () => {
    it("side.transfer(W, 30) with tokens []: 422 SIMULATION_FAILED naming the vault's ExcessOutflow, nothing moved", async () => {
      const before = await sideHeld();
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: side }, transfer(W, SIDE(30)), { signer: bot }));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("SIMULATION_FAILED");
      expect(res.body.details).toBe(`ExcessOutflow(${side}, ${SIDE(30)}, 0)`);
      expect(await sideHeld()).toEqual(before);
    });

    it("the same transfer declared as tokens [side] amounts [30] is approved: W gets 30", async () => {
      const [vault, w] = await sideHeld();
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: side, tokens: [side], amounts: [SIDE(30)] }, transfer(W, SIDE(30)), { signer: bot }));
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(await sideHeld()).toEqual([vault! - SIDE(30), w! + SIDE(30)]);
    });
  });

  describe("an operator grant (ERC-777's authorizeOperator): the vault refuses it by its selector without the owner's review", () => {
    const authorize = (operator: Address) => encodeFunctionData({ abi: parseAbi(["function authorizeOperator(address operator)"]), functionName: "authorizeOperator", args: [operator] });

    it("side.authorizeOperator(attacker) sent directly: ReviewRequired, before any call to the token", async () => {
      const { intent, signature, callData } = await signedExecute(side, authorize(fresh()));
      expect(await asRelayer(env, "executeProtocol", [intent, signature, callData])).toEqual({ refusal: "ReviewRequired", status: "reverted" });
    });

    it("through the relayer: held for the owner's review, nothing sent", async () => {
      const before = await sideHeld();
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: side }, authorize(fresh()), { signer: bot }));
      expect(res.body).toEqual({ requestId: expect.stringMatching(/^req_/), status: "pending_review", pollUrl: `/v1/execute/${res.body.requestId}` });
      expect(await sideHeld()).toEqual(before);
    });
  });

  describe("what remains: a standing allowance the owner left over a token neither declared nor default", () => {
    let lending: Address;

    beforeAll(async () => {
      lending = env.manifest.contracts.lending as Address;
      await ownerCall(env, "approveProtocol", [lending]);
      // The owner's reviewed grant: the lending pool may pull 500 of the side token.
      const grant = await signedExecute(side, calldata("mocks/MockERC20", "approve", [lending, SIDE(500)]));
      const deadline = defaultDeadline();
      const approval = await signReviewApproval(env.ownerAccount, domain(), { intentHash: hashIntent("execute", domain(), grant.intent), deadline });
      expect(await asRelayer(env, "executeReviewedProtocol", [grant.intent, grant.signature, grant.callData, deadline, approval])).toEqual({ refusal: "", status: "success" });
      expect(await allowanceOf(env, side, lending)).toBe(SIDE(500));
    });

    it("lending.supply(side, …) with tokens [] moves at most the allowance: 501 fails, 500 moves, then nothing more", async () => {
      const poolBefore = await balanceOf(env, side, lending);
      const [vaultBefore] = await sideHeld();
      const over = await signedExecute(lending, calldata("mocks/MockLendingPool", "supply", [side, SIDE(501)]));
      expect((await asRelayer(env, "executeProtocol", [over.intent, over.signature, over.callData])).status).toBe("reverted");
      const all = await signedExecute(lending, calldata("mocks/MockLendingPool", "supply", [side, SIDE(500)]));
      expect(await asRelayer(env, "executeProtocol", [all.intent, all.signature, all.callData])).toEqual({ refusal: "", status: "success" });
      const again = await signedExecute(lending, calldata("mocks/MockLendingPool", "supply", [side, SIDE(1)]));
      expect((await asRelayer(env, "executeProtocol", [again.intent, again.signature, again.callData])).status).toBe("reverted");
      expect(await balanceOf(env, side, lending)).toBe(poolBefore + SIDE(500));
      expect((await sideHeld())[0]).toBe(vaultBefore! - SIDE(500));
      expect(await allowanceOf(env, side, lending)).toBe(0n);
    });
  });
});
