// Approval grants recognised by what they do. The attack: the owner approved a Permit2-style protocol P
// (sub-allowances pulled through the vault's ERC-20 allowance to P, and a `multicall` delegatecalling
// itself) and, through review, granted P a standing USDC allowance. The bot then sent P
// `multicall([approve(USDC, attacker, max, max)])` with `tokens: []`: approved on the fast path (the
// grant hid under multicall's selector, and nothing left the vault during the call), and the attacker
// pulled the vault's whole balance through P. A leaked relayer key did the same without a multicall:
// the vault refused only approve, setApprovalForAll and increaseAllowance.
//
// Now the relayer reads the call tree of the exact vault transaction (debug_traceCall) and holds any
// call that leaves someone a right over the vault's assets, wherever in the tree; and the vault
// refuses, without the owner's ReviewApproval, Permit2's approve and permits and any call to a
// protocol holding a standing allowance over a token the vault tracks. Every refusal is checked on
// the chain: the attacker's pull afterwards moves nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, maxUint160, maxUint256, type Address, type EIP1193Provider, type Hex } from "viem";
import { executeRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signExecuteIntent, signReviewApproval } from "../../packages/client/src/sign.ts";
import type { ExecuteIntent } from "../../packages/client/src/intent-types.ts";
import type { Sender } from "../../src/chain/sender.ts";
import { balanceOf, calldata, executeBody, fresh, get, ownerCall, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";
import { fundedSender, readOf } from "../relayer/harness-extra.ts";
import { allowanceOf, deployer } from "./support/devnet-admin.ts";
import { asRelayer } from "./support/leaked-relayer.ts";
import { ownerSession } from "./support/owner-session.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;
const MAX_UINT48 = 2n ** 48n - 1n;
const P_ABI = "mocks/MockAllowanceTransfer";

/** P's calls, as the bot signs them. */
const approveVia = (token: Address, spender: Address, amount = maxUint160, expiration = MAX_UINT48) => calldata(P_ABI, "approve", [token, spender, amount, expiration]);
const multicall = (contract: string, items: Hex[]) => calldata(contract, "multicall", [items]);

/** The owner approves held request `requestId` through the review routes (a ReviewApproval signed with the owner's key). */
async function ownerApproves(env: Env, requestId: string) {
  const auth = await ownerSession(env);
  const detail = await get(`${env.url}/v1/reviews/${requestId}`, auth);
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: detail.body.intentHash, deadline });
  return post(`${env.url}/v1/reviews/${requestId}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth);
}

/** The review item of a held request, as the owner reads it. */
async function reviewItem(env: Env, requestId: string) {
  return (await get(`${env.url}/v1/reviews/${requestId}`, await ownerSession(env))).body;
}

/** A bot-signed execute, for sending both through the relayer and straight to the vault. */
async function signedExecute(env: Env, protocol: Address, callData: Hex, tokens: Address[] = [], amounts: bigint[] = []) {
  const intent: ExecuteIntent = { bot: env.bot.address, protocol, calldataHash: keccak256(callData), tokens, amounts, value: 0n, deadline: defaultDeadline(), ref: randomRef() };
  const signature = await signExecuteIntent(env.bot, env.manifest.domain as never, intent);
  const body = executeRequestBody(env.manifest.domain as never, intent, callData, signature, { idempotencyKey: crypto.randomUUID() });
  return { intent, signature, callData, body };
}

/** Whether `attempt` reverted on-chain (the attacker's own transaction). */
async function reverts(attempt: Promise<unknown>): Promise<boolean> {
  return attempt.then(
    () => false,
    (error: unknown) => /reverted/.test(String(error)),
  );
}

describe("approval grants, judged by what the call does", () => {
  let env: Env;
  let usdc: Address;
  let attacker: Sender;
  /** P: owner-approved, holding a standing USDC allowance the owner granted through review. */
  let p: Address;
  /** Q: the same protocol, owner-approved, holding no allowance. */
  let q: Address;

  const vaultUsdc = () => balanceOf(env, usdc, env.vault);
  const subAllowance = async (via: Address, spender: Address) => (await readOf<readonly [bigint, bigint, bigint]>(env, via, P_ABI, "allowance", [env.vault, usdc, spender]))[0];
  /** The attacker tries to pull the vault's whole USDC balance through `via`: true when it reverted. */
  const pullThrough = async (via: Address) => reverts(attacker.call(via, P_ABI, "transferFrom", [env.vault, attacker.address, await vaultUsdc(), usdc]));

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    attacker = await fundedSender(env);
    const admin = deployer(env);
    p = await admin.deploy(P_ABI);
    q = await admin.deploy(P_ABI);
    await ownerCall(env, "approveProtocol", [p]);
    await ownerCall(env, "approveProtocol", [q]);
    // The owner, through the review queue, lets P pull the vault's USDC.
    const grant = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: usdc }, calldata("mocks/MockERC20", "approve", [p, maxUint256])));
    expect(grant.body.status).toBe("pending_review");
    expect((await reviewItem(env, grant.body.requestId)).heldBecause).toBe(`the call grants a right over the vault's assets that outlives it: an allowance of unlimited USDC (${usdc}) to ${p}`);
    expect((await ownerApproves(env, grant.body.requestId)).body.status).toBe("approved");
    expect(await allowanceOf(env, usdc, p)).toBe(maxUint256);
  }, 120_000);
  afterAll(() => env?.close());

  describe("through the relayer: held for the owner, whatever the bot declared", () => {
    it("the attack: P.multicall([approve(USDC, attacker, max, max)]) with tokens [] is held, naming the grant; the attacker's pull through P moves nothing", async () => {
      const before = await vaultUsdc();
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: p }, multicall(P_ABI, [approveVia(usdc, attacker.address)])));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ requestId: expect.stringMatching(/^req_/), status: "pending_review", pollUrl: `/v1/execute/${res.body.requestId}` });
      const item = await reviewItem(env, res.body.requestId);
      expect(item.heldBecause).toBe(
        `the call grants a right over the vault's assets that outlives it: an allowance of unlimited USDC (${usdc}) to ${attacker.address} through ${p} (a Permit2-style allowance, pulled through the vault's allowance to it)`,
      );
      expect(await subAllowance(p, attacker.address)).toBe(0n);
      expect(await pullThrough(p)).toBe(true);
      expect(await vaultUsdc()).toBe(before);
      expect(await balanceOf(env, usdc, attacker.address)).toBe(0n);
    });

    it("a multicall inside a multicall: held, nothing granted, nothing pulled", async () => {
      const before = await vaultUsdc();
      const nested = multicall(P_ABI, [multicall(P_ABI, [approveVia(usdc, attacker.address, USDC(1_000))])]);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: p }, nested));
      expect(res.body.status).toBe("pending_review");
      expect((await reviewItem(env, res.body.requestId)).heldBecause).toContain(`an allowance of 1000 USDC (${usdc}) to ${attacker.address} through ${p}`);
      expect(await subAllowance(p, attacker.address)).toBe(0n);
      expect(await pullThrough(p)).toBe(true);
      expect(await vaultUsdc()).toBe(before);
    });

    it("P.approve(USDC, attacker, max, max) called directly: held, nothing pulled", async () => {
      const before = await vaultUsdc();
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: p }, approveVia(usdc, attacker.address)));
      expect(res.body.status).toBe("pending_review");
      expect((await reviewItem(env, res.body.requestId)).heldBecause).toContain(`to ${attacker.address} through ${p}`);
      expect(await pullThrough(p)).toBe(true);
      expect(await vaultUsdc()).toBe(before);
    });

    it("the same multicall to Q, which holds no allowance (the vault lets it through on-chain): the call tree shows the grant, held", async () => {
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: q }, multicall(P_ABI, [approveVia(usdc, attacker.address)])));
      expect(res.body.status).toBe("pending_review");
      expect((await reviewItem(env, res.body.requestId)).heldBecause).toContain(`an allowance of unlimited USDC (${usdc}) to ${attacker.address} through ${q}`);
      expect(await subAllowance(q, attacker.address)).toBe(0n);
    });

    it("an ERC-20 approve hidden in the token's own multicall: held, the attacker's transferFrom moves nothing", async () => {
      const admin = deployer(env);
      const token = await admin.deploy("mocks/MockMulticallToken", ["Multi", "MULTI", 18]);
      await admin.call(token, "mocks/MockMulticallToken", "mint", [env.vault, 10n ** 21n]);
      await ownerCall(env, "approveProtocol", [token]);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: token }, multicall("mocks/MockMulticallToken", [calldata("mocks/MockERC20", "approve", [attacker.address, maxUint256])])));
      expect(res.body.status).toBe("pending_review");
      expect((await reviewItem(env, res.body.requestId)).heldBecause).toContain(`an allowance of unlimited ${token} to ${attacker.address}`);
      expect(await allowanceOf(env, token, attacker.address)).toBe(0n);
      expect(await reverts(attacker.call(token, "mocks/MockERC20", "transferFrom", [env.vault, attacker.address, 10n ** 21n]))).toBe(true);
      expect(await balanceOf(env, token, env.vault)).toBe(10n ** 21n);
    });

    it("setApprovalForAll of an NFT through its multicall: held, the vault keeps its item", async () => {
      const admin = deployer(env);
      const nft = await admin.deploy("mocks/MockMulticallNFT");
      await admin.call(nft, "mocks/MockMulticallNFT", "mint", [env.vault]);
      await ownerCall(env, "approveProtocol", [nft]);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: nft }, multicall("mocks/MockMulticallNFT", [calldata("mocks/MockNFT", "setApprovalForAll", [attacker.address, true])])));
      expect(res.body.status).toBe("pending_review");
      expect((await reviewItem(env, res.body.requestId)).heldBecause).toContain(`operator rights over every item of ${nft} to ${attacker.address} (setApprovalForAll)`);
      expect(await readOf<boolean>(env, nft, "mocks/MockNFT", "isApprovedForAll", [env.vault, attacker.address])).toBe(false);
      expect(await reverts(attacker.call(nft, "mocks/MockNFT", "transferFrom", [env.vault, attacker.address, 1n]))).toBe(true);
      expect(await readOf<Address>(env, nft, "mocks/MockNFT", "ownerOf", [1n])).toBe(env.vault);
    });

    it("an honest execute that grants nothing (the lending pool's supply, the vault's own approve → call → revoke): approved on the fast path", async () => {
      const lending = env.manifest.contracts.lending as Address;
      await ownerCall(env, "approveProtocol", [lending]);
      const poolBefore = await balanceOf(env, usdc, lending);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(100)] }, calldata("mocks/MockLendingPool", "supply", [usdc, USDC(100)])));
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect((await env.store.getRequest(res.body.requestId))!.agents).toBeUndefined();
      expect(await balanceOf(env, usdc, lending)).toBe(poolBefore + USDC(100));
      expect(await allowanceOf(env, usdc, lending)).toBe(0n);
    });

    it("a plain payment is not traced and still approved", async () => {
      const to = fresh();
      const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(3) }));
      expect(res.body.status).toBe("approved");
      expect(await balanceOf(env, usdc, to)).toBe(USDC(3));
    });

    it("the owner's approval of the held grant lets it through: the review decides, not a blanket refusal", async () => {
      const spender = await fundedSender(env);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: p }, multicall(P_ABI, [approveVia(usdc, spender.address, USDC(7))])));
      expect(res.body.status).toBe("pending_review");
      expect((await ownerApproves(env, res.body.requestId)).body.status).toBe("approved");
      expect(await subAllowance(p, spender.address)).toBe(USDC(7));
      const before = await vaultUsdc();
      await spender.call(p, P_ABI, "transferFrom", [env.vault, spender.address, USDC(7), usdc]);
      expect(await balanceOf(env, usdc, spender.address)).toBe(USDC(7));
      expect(await vaultUsdc()).toBe(before - USDC(7));
    });
  });

  describe("a leaked relayer key with the bot's signatures, straight to the vault", () => {
    it("P.approve(USDC, attacker, max, max), held by the relayer, sent as executeProtocol: ReviewRequired on-chain, nothing granted or moved", async () => {
      const signed = await signedExecute(env, p, approveVia(usdc, attacker.address));
      expect((await post(`${env.url}/v1/execute`, signed.body)).body.status).toBe("pending_review");
      const before = await vaultUsdc();
      const attempt = await asRelayer(env, "executeProtocol", [signed.intent, signed.signature, signed.callData]);
      expect(attempt).toEqual({ refusal: "ReviewRequired", status: "reverted" });
      expect(await subAllowance(p, attacker.address)).toBe(0n);
      expect(await pullThrough(p)).toBe(true);
      expect(await vaultUsdc()).toBe(before);
    });

    it("the multicall variant: ReviewRequired (P holds a standing USDC allowance), nothing granted or moved", async () => {
      const signed = await signedExecute(env, p, multicall(P_ABI, [approveVia(usdc, attacker.address)]));
      const before = await vaultUsdc();
      const attempt = await asRelayer(env, "executeProtocol", [signed.intent, signed.signature, signed.callData]);
      expect(attempt).toEqual({ refusal: "ReviewRequired", status: "reverted" });
      expect(await subAllowance(p, attacker.address)).toBe(0n);
      expect(await pullThrough(p)).toBe(true);
      expect(await vaultUsdc()).toBe(before);
    });

    it("the bound (SECURITY.md): Q, holding no allowance, records the sub-allowance on-chain, but it moves nothing while the vault grants Q nothing", async () => {
      const signed = await signedExecute(env, q, multicall(P_ABI, [approveVia(usdc, attacker.address)]));
      const before = await vaultUsdc();
      const attempt = await asRelayer(env, "executeProtocol", [signed.intent, signed.signature, signed.callData]);
      expect(attempt).toEqual({ refusal: "", status: "success" });
      expect(await subAllowance(q, attacker.address)).toBe(maxUint160);
      expect(await allowanceOf(env, usdc, q)).toBe(0n);
      expect(await pullThrough(q)).toBe(true);
      expect(await vaultUsdc()).toBe(before);
    });

    it("the bound (SECURITY.md): a token the owner approved as a protocol itself, with a self-multicall, can be made to approve, but only over that token", async () => {
      const admin = deployer(env);
      const token = await admin.deploy("mocks/MockMulticallToken", ["Multi", "MULTI", 18]);
      await admin.call(token, "mocks/MockMulticallToken", "mint", [env.vault, 10n ** 21n]);
      await ownerCall(env, "approveProtocol", [token]);
      const signed = await signedExecute(env, token, multicall("mocks/MockMulticallToken", [calldata("mocks/MockERC20", "approve", [attacker.address, maxUint256])]));
      const before = await vaultUsdc();
      const attempt = await asRelayer(env, "executeProtocol", [signed.intent, signed.signature, signed.callData]);
      expect(attempt.status).toBe("success");
      expect(await allowanceOf(env, token, attacker.address)).toBe(maxUint256);
      // Over that one token only: the vault's USDC and every other allowance stay as they were.
      expect(await allowanceOf(env, usdc, attacker.address)).toBe(0n);
      expect(await vaultUsdc()).toBe(before);
    });
  });
});

describe("a node that cannot trace calls", () => {
  let env: Env;
  let traced = 0;

  beforeAll(async () => {
    // The relayer's node answers debug_traceCall as a node without it does: no such method.
    const refuseTracing = (provider: EIP1193Provider): EIP1193Provider =>
      (({
        ...provider,
        request: async (args: { method: string; params?: unknown }) => {
          if (args.method === "debug_traceCall") {
            traced++;
            throw Object.assign(new Error("the method debug_traceCall does not exist/is not available"), { code: -32601 });
          }
          return provider.request(args as never);
        },
      }) as unknown as EIP1193Provider);
    env = await startEnv({}, { relayerProvider: refuseTracing });
    await ownerCall(env, "approveProtocol", [env.manifest.contracts.lending as Address]);
  }, 120_000);
  afterAll(() => env?.close());

  it("an execute that grants nothing is held: the node cannot show what it grants; nothing moved", async () => {
    const usdc = env.token("USDC");
    const lending = env.manifest.contracts.lending as Address;
    const poolBefore = await balanceOf(env, usdc, lending);
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(100)] }, calldata("mocks/MockLendingPool", "supply", [usdc, USDC(100)])));
    expect(res.body.status).toBe("pending_review");
    expect((await reviewItem(env, res.body.requestId)).heldBecause).toBe(
      "the node cannot show what the call grants (it does not answer debug_traceCall with the callTracer), so the owner decides",
    );
    expect(await balanceOf(env, usdc, lending)).toBe(poolBefore);
  });

  it("payments are never traced: approved, and the node was asked to trace once (the probe), not per request", async () => {
    const asked = traced;
    const to = fresh();
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(2) }));
    expect(res.body.status).toBe("approved");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(2));
    expect(asked).toBe(1);
    expect(traced).toBe(1);
  });
});
