// The vault pays an x402 paywall itself (POST /v1/x402): the bot signs an X402Intent for the exact
// requirement relay's demo resource states, the relayer records the EIP-3009 digest on the vault
// (executeX402), and the demo's facilitator (@x402/core + @x402/evm, unmodified) settles
// transferWithAuthorization from the vault, which it checks by the vault's ERC-1271. A real devnet,
// relayer and x402 server over HTTP; every outcome read from the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { decodeFunctionData, recoverAddress, type Address, type Hex } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { verdictDigest } from "../../src/eip712/verdict.ts";
import { newBot } from "../relayer/harness-extra.ts";
import type { X402Intent } from "../../packages/client/src/intent-types.ts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { devKeyPair, devScannerKeys } from "../../src/devnet/accounts.ts";
import { DEMO_BODY } from "../../src/x402/server.ts";
import { DEMO_PRICE_ATOMIC, startDevnetX402, X402_FACILITATOR_INDEX, X402_MERCHANT_INDEX, type X402Server } from "../../src/x402/devnet.ts";
import { get, post, startEnv, type Env } from "../relayer/harness.ts";
import { ownerSession } from "../security/support/owner-session.ts";
import { intentDigest, signReviewApproval } from "../../packages/client/src/sign.ts";
import { balances, erc1271, ERC1271_MAGIC, nonceUsed, paymentSignature, paywall, recorded, requirementOf, vaultDigest, x402Body, x402Intent } from "./support/vault-pays.ts";

const PRICE = BigInt(DEMO_PRICE_ATOMIC);

describe("x402: the vault pays (POST /v1/x402)", () => {
  let env: Env;
  let x402: X402Server;
  let relay: RelayClient;
  let usdc: Address;
  const merchant = devKeyPair(X402_MERCHANT_INDEX).address;
  const facilitator = devKeyPair(X402_FACILITATOR_INDEX).address;

  beforeAll(async () => {
    env = await startEnv();
    x402 = await startDevnetX402(env.devnet);
    relay = new RelayClient({ baseUrl: env.url });
    usdc = env.token("USDC");
  }, 180_000);
  afterAll(async () => {
    await x402?.close();
    await env?.close();
  });

  /** The EIP-3009 digest of the vault's authorization to `to` of `value` (vaultDigest: viem, on USDC's domain). */
  const digestOf = (to: Address, value: bigint, intent: X402Intent) => vaultDigest(env, intent, { to, value });

  /** The bot buys the demo: the 402, the signed intent for its requirement, recorded by the relayer. */
  async function buy(bot = env.bot) {
    const { resource, requirement } = await paywall(x402.demoUrl);
    const intent = await x402Intent(env, bot, { token: requirement.asset as Address, payTo: requirement.payTo as Address, amount: BigInt(requirement.amount) });
    const { body } = await x402Body(env, bot, intent, requirementOf(resource, requirement));
    return { resource, requirement, intent, body };
  }

  it("records the digest on the vault and the facilitator settles from the vault: merchant credited, the bot's key untouched", async () => {
    const { resource, requirement, intent, body } = await buy();
    expect(requirement.payTo).toBe(merchant);
    const [vaultBefore, merchantBefore, botBefore] = await balances(env, usdc, [env.vault, merchant, env.bot.address]);
    const botNonce = await env.clients.publicClient.getTransactionCount({ address: env.bot.address });
    const botEth = await env.clients.publicClient.getBalance({ address: env.bot.address });

    const answer = await relay.submitX402(body);
    expect(answer).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const digest = digestOf(merchant, PRICE, intent);
    expect(answer.digest).toBe(digest);
    // The status read says the same (the synchronous answer alone carries simulationResult).
    const { simulationResult: _sim, ...read } = answer;
    expect(await relay.getX402(answer.requestId)).toEqual(read);
    expect(await relay.getStatus("x402", answer.requestId)).toEqual(read);
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: answer.txHash! });
    expect(receipt.status).toBe("success");
    // Recording moved nothing: the vault vouches for the digest, until validBefore.
    expect(await balances(env, usdc, [env.vault, merchant])).toEqual([vaultBefore, merchantBefore]);
    expect(await recorded(env, digest)).toBe(intent.validBefore);
    expect(await erc1271(env, digest)).toBe(ERC1271_MAGIC);

    const paid = await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": paymentSignature(env, resource, requirement, intent) } });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual(DEMO_BODY);
    const settlement = decodePaymentResponseHeader(paid.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: env.vault });
    const settleReceipt = await env.clients.publicClient.getTransactionReceipt({ hash: settlement.transaction as Hex });
    expect(settleReceipt).toMatchObject({ status: "success", from: facilitator.toLowerCase() });
    expect(await balances(env, usdc, [env.vault, merchant, env.bot.address])).toEqual([vaultBefore - PRICE, merchantBefore + PRICE, botBefore]);
    expect(await env.clients.publicClient.getTransactionCount({ address: env.bot.address })).toBe(botNonce);
    expect(await env.clients.publicClient.getBalance({ address: env.bot.address })).toBe(botEth);
    expect(await nonceUsed(env, usdc, intent.nonce)).toBe(true);
  });

  it("a replayed PAYMENT-SIGNATURE settles once", async () => {
    const { resource, requirement, intent, body } = await buy();
    expect((await relay.submitX402(body)).status).toBe("approved");
    const header = paymentSignature(env, resource, requirement, intent);
    const [vaultBefore, merchantBefore] = await balances(env, usdc, [env.vault, merchant]);
    expect((await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": header } })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const replay = await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": header } });
      expect(replay.status).not.toBe(200);
    }
    expect(await balances(env, usdc, [env.vault, merchant])).toEqual([vaultBefore - PRICE, merchantBefore + PRICE]);
  });

  it("a digest recorded for merchant A and amount N pays neither merchant B nor N+1; A and N still settle", async () => {
    const { resource, requirement, intent, body } = await buy();
    expect((await relay.submitX402(body)).status).toBe("approved");
    const other = devKeyPair(13).address;
    const [vaultBefore, merchantBefore, otherBefore] = await balances(env, usdc, [env.vault, merchant, other]);
    // To B (the paywall's requirement rewritten to B, as an attacker facilitator would): refused.
    const toB = await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": paymentSignature(env, resource, { ...requirement, payTo: other }, intent, { to: other }) } });
    expect(toB.status).not.toBe(200);
    // N+1: refused.
    const more = await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": paymentSignature(env, resource, { ...requirement, amount: (PRICE + 1n).toString() }, intent, { value: PRICE + 1n }) } });
    expect(more.status).not.toBe(200);
    // Neither digest is one the vault vouches for.
    expect(await erc1271(env, digestOf(other, PRICE, intent))).toBe("0xffffffff");
    expect(await erc1271(env, digestOf(merchant, PRICE + 1n, intent))).toBe("0xffffffff");
    expect(await balances(env, usdc, [env.vault, merchant, other])).toEqual([vaultBefore, merchantBefore, otherBefore]);
    expect(await nonceUsed(env, usdc, intent.nonce)).toBe(false);
    // The recorded one, as signed: settles.
    const paid = await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": paymentSignature(env, resource, requirement, intent) } });
    expect(paid.status).toBe(200);
    expect(await balances(env, usdc, [env.vault, merchant, other])).toEqual([vaultBefore - PRICE, merchantBefore + PRICE, otherBefore]);
  });

  it("a held request is recorded only once the owner approves; the review item shows what is bought", async () => {
    // The `reviewed` bot's policy requires the owner's review of everything.
    const { resource, requirement, intent, body } = await buy(env.reviewedBot);
    const held = await relay.submitX402(body);
    expect(held).toMatchObject({ status: "pending_review", pollUrl: `/v1/x402/${held.requestId}` });
    expect(held.digest).toBeUndefined();
    const digest = digestOf(merchant, PRICE, intent);
    expect(await recorded(env, digest)).toBe(0n);
    expect(await erc1271(env, digest)).toBe("0xffffffff");
    // Before the owner decides, the paywall is not paid from the vault.
    const early = await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": paymentSignature(env, resource, requirement, intent) } });
    expect(early.status).not.toBe(200);

    const auth = await ownerSession(env);
    const item = (await get(`${env.url}/v1/reviews/${held.requestId}`, auth)).body;
    expect(item).toMatchObject({
      kind: "x402",
      x402: { resource: x402.demoUrl, payTo: merchant, amount: DEMO_PRICE_ATOMIC, asset: usdc, scheme: "exact" },
    });
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: item.intentHash, deadline });
    const approved = await post(`${env.url}/v1/reviews/${held.requestId}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth);
    expect(approved.status).toBe(200);
    const final = await relay.waitForResolution("x402", held.requestId, { aiWindowMs: 0, reviewIntervalMs: 200, timeoutMs: 30_000 });
    expect(final).toMatchObject({ status: "approved", digest });
    expect(await recorded(env, digest)).toBe(intent.validBefore);

    const [vaultBefore, merchantBefore] = await balances(env, usdc, [env.vault, merchant]);
    const paid = await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": paymentSignature(env, resource, requirement, intent) } });
    expect(paid.status).toBe(200);
    expect(await balances(env, usdc, [env.vault, merchant])).toEqual([vaultBefore - PRICE, merchantBefore + PRICE]);
  });

  it("at the bot's AI threshold: the agents' approval records it through the vault's reviewed entry point, with the scanners' verdicts", async () => {
    const bot = await newBot(env, { aiTriggerThreshold: PRICE }); // $0.01: the demo's price
    const { resource, requirement, intent, body } = await buy(bot);
    const answer = await post(`${env.url}/v1/x402`, { ...body, metadata: { scenario: "ai-approve" } });
    expect(answer.body).toMatchObject({ status: "approved", digest: digestOf(merchant, PRICE, intent) });
    const tx = await env.clients.publicClient.getTransaction({ hash: answer.body.txHash });
    const call = decodeFunctionData({ abi: readArtifact("ServiceVault").abi, data: tx.input });
    expect(call.functionName).toBe("executeX402");
    const approval = (call.args as readonly unknown[])[2] as { deadline: bigint; signature: Hex };
    const digest = verdictDigest(env.manifest.domain as never, intentDigest(env.manifest.domain as never, "X402Intent", intent), approval.deadline);
    const signers: Address[] = [];
    for (let at = 2; at < approval.signature.length; at += 130) signers.push(await recoverAddress({ hash: digest, signature: `0x${approval.signature.slice(at, at + 130)}` }));
    expect(signers.length).toBeGreaterThanOrEqual(2);
    const scanners = devScannerKeys().map((k) => k.address);
    for (const signer of signers) expect(scanners).toContain(signer);
    const [vaultBefore, merchantBefore] = await balances(env, usdc, [env.vault, merchant]);
    expect((await fetch(x402.demoUrl, { headers: { "PAYMENT-SIGNATURE": paymentSignature(env, resource, requirement, intent) } })).status).toBe(200);
    expect(await balances(env, usdc, [env.vault, merchant])).toEqual([vaultBefore - PRICE, merchantBefore + PRICE]);
  });

  it("a held funding payment's review item shows the requirement it funds", async () => {
    const { resource, requirement } = await paywall(x402.demoUrl);
    const { paymentBody } = await import("../relayer/harness.ts");
    const body = { ...(await paymentBody(env, { to: env.reviewedBot.address, amount: PRICE }, { signer: env.reviewedBot })), x402Funding: requirementOf(resource, requirement) };
    const held = await post(`${env.url}/v1/payments`, body);
    expect(held.body.status).toBe("pending_review");
    const item = (await get(`${env.url}/v1/reviews/${held.body.requestId}`, await ownerSession(env))).body;
    expect(item.x402).toEqual({ resource: x402.demoUrl, description: resource.description, payTo: merchant, amount: DEMO_PRICE_ATOMIC, asset: usdc, scheme: "exact" });
  });

  it("refuses a requirement that is not the signed payment (400 INVALID_X402_REQUIREMENT), recording nothing", async () => {
    const { resource, requirement, intent } = await buy();
    const stated = requirementOf(resource, requirement);
    for (const [field, value] of [["payTo", devKeyPair(13).address], ["amount", (PRICE + 1n).toString()], ["asset", env.token("WETH")]] as const) {
      const { body } = await x402Body(env, env.bot, intent, { ...stated, [field]: value });
      const res = await post(`${env.url}/v1/x402`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "INVALID_X402_REQUIREMENT", details: expect.stringContaining(`x402.${field}`) });
    }
    expect(await recorded(env, digestOf(merchant, PRICE, intent))).toBe(0n);
  });
});
