// Devnet scenarios never decide for the owner. The attack: a human-review bot sends
// `USDC.approve(spender, MAX)` with `metadata.scenario=review-approve`; the relayer held it for the
// owner as the vault demands, but still scheduled the self-deciding review, signed the owner's
// ReviewApproval with the owner's (development) key, and the allowance was granted. Now a review the
// request takes anyway (the vault's review gate, an approval grant, an unpriced outflow) stays the
// owner's: no scenario decides it, not after a restart either. Each case reads the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxUint256, type Address } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { balanceOf, calldata, executeBody, fresh, get, ownerCall, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";
import { fundedSender, mintNft, newBot, nftOwner, usd } from "../relayer/harness-extra.ts";
import { allowanceOf } from "./support/devnet-admin.ts";

/** Longer than the scenarios' 1 s: a self-deciding review would have decided by then. */
const PAST_THE_TIMER_MS = 2_500;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a devnet scenario never decides what the owner alone may decide", () => {
  let env: Env;
  let usdc: Address;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
  });
  afterAll(() => env?.close());

  const statusOf = async (kind: "payments" | "execute", requestId: string) => (await get(`${env.url}/v1/${kind}/${requestId}`)).body.status;
  const approveMax = (spender: Address) => calldata("mocks/MockERC20", "approve", [spender, maxUint256]);

  it("review-approve on approve(MAX) by a human-review bot: still held after the timer, allowance 0 on-chain", async () => {
    const spender = fresh();
    const body = await executeBody(env, { protocol: usdc }, approveMax(spender), { signer: env.reviewedBot, metadata: { scenario: "review-approve:1" } });
    const res = await post(`${env.url}/v1/execute`, body);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("pending_review");
    const record = (await env.store.getRequest(res.body.requestId))!;
    expect(record.heldBecause).toBe("the owner requires human review for this bot; metadata.scenario=review-approve does not decide a review the owner must make");
    await pause(PAST_THE_TIMER_MS);
    expect(await statusOf("execute", res.body.requestId)).toBe("pending_review");
    expect(await allowanceOf(env, usdc, spender)).toBe(0n);
  });

  it("review-approve on approve(MAX) by a bot without review (an approval grant): still held, allowance 0", async () => {
    const spender = fresh();
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: usdc }, approveMax(spender), { metadata: { scenario: "review-approve:1" } }));
    expect(res.body.status).toBe("pending_review");
    expect((await env.store.getRequest(res.body.requestId))!.heldBecause).toMatch(/^the call grants a right over the vault's assets that outlives it: an allowance of unlimited USDC .*; metadata.scenario=review-approve does not decide a review the owner must make$/);
    await pause(PAST_THE_TIMER_MS);
    expect(await statusOf("execute", res.body.requestId)).toBe("pending_review");
    expect(await allowanceOf(env, usdc, spender)).toBe(0n);
  });

  it("review-reject does not decide it either: the owner's review stays the owner's", async () => {
    const spender = fresh();
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: usdc }, approveMax(spender), { signer: env.reviewedBot, metadata: { scenario: "review-reject:1" } }));
    expect(res.body.status).toBe("pending_review");
    await pause(PAST_THE_TIMER_MS);
    expect(await statusOf("execute", res.body.requestId)).toBe("pending_review");
    expect(await allowanceOf(env, usdc, spender)).toBe(0n);
  });

  it("review-approve on a human-review bot's payment: still held, the payee unpaid", async () => {
    const to = fresh();
    const vaultBefore = await balanceOf(env, usdc, env.vault);
    const body = await paymentBody(env, { bot: env.reviewedBot.address, to, amount: 2_000_000n }, { signer: env.reviewedBot, metadata: { scenario: "review-approve:1" } });
    const res = await post(`${env.url}/v1/payments`, body);
    expect(res.body.status).toBe("pending_review");
    await pause(PAST_THE_TIMER_MS);
    expect(await statusOf("payments", res.body.requestId)).toBe("pending_review");
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await balanceOf(env, usdc, env.vault)).toBe(vaultBefore);
  });

  it("review-approve on an NFT leaving the vault (an unpriced outflow): still held, the NFT still the vault's", async () => {
    const nft = env.manifest.contracts.nft as Address;
    await ownerCall(env, "approveProtocol", [nft]);
    const bot: PrivateKeyAccount = await newBot(env, { maxPerTxAmount: usd(1) });
    const id = await mintNft(env, await fundedSender(env), env.vault);
    const call = calldata("mocks/MockNFT", "safeTransferFrom", [env.vault, fresh(), id]);
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: nft }, call, { signer: bot, metadata: { scenario: "review-approve:1" } }));
    expect(res.body.status).toBe("pending_review");
    await pause(PAST_THE_TIMER_MS);
    expect(await statusOf("execute", res.body.requestId)).toBe("pending_review");
    expect(await nftOwner(env, id)).toBe(env.vault);
  });

  // Last: it restarts the relayer.
  it("after a restart the owner's review is not re-armed as a self-deciding one: still held, allowance 0", async () => {
    const spender = fresh();
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: usdc }, approveMax(spender), { signer: env.reviewedBot, metadata: { scenario: "review-approve:1" } }));
    expect(res.body.status).toBe("pending_review");
    await env.stopRelayers();
    await env.startRelayers();
    await pause(PAST_THE_TIMER_MS);
    expect(await statusOf("execute", res.body.requestId)).toBe("pending_review");
    expect(await allowanceOf(env, usdc, spender)).toBe(0n);
  }, 30_000);
});
