// The vault as an x402 payer cannot be made to vouch for anything no executed intent recorded. The
// vault's ERC-1271 answer is the authority a facilitator settles on, so every rule is checked where
// it binds: through the relayer (the API's refusal, nothing recorded) and straight at the vault from
// a leaked relayer key (the vault's own refusal, forced on-chain), and each test reads the chain: no
// digest recorded, no intent used, no token moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { X402Intent } from "../../packages/client/src/intent-types.ts";
import { intentDigest, signReviewApproval, signX402Intent } from "../../packages/client/src/sign.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import { X402_MERCHANT_INDEX } from "../../src/x402/devnet.ts";
import { newBot, usd } from "../relayer/harness-extra.ts";
import { ownerCall, post, startEnv, type Env } from "../relayer/harness.ts";
import {
  AUTHORIZATION_TYPES,
  balances,
  domainSeparatorOf,
  erc1271,
  ERC1271_MAGIC,
  nonceUsed,
  randomNonce,
  recorded,
  settleArgs,
  usdcDomain,
  vaultDigest,
  x402Body,
  x402Intent,
} from "../x402/support/vault-pays.ts";
import { waitUntilCancelled } from "./support/held-payment.ts";
import { deployer } from "./support/devnet-admin.ts";
import { asAccount, asRelayer, relayerAccount } from "./support/leaked-relayer.ts";
import { ownerSession } from "./support/owner-session.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
const DAY = 86_400n;
const vaultAbi = readArtifact("ServiceVault").abi;
const usdcAbi = readArtifact("mocks/MockUSDC").abi;
const UNREVIEWED = { deadline: 0n, signature: "0x" as Hex };
const INVALID = "0xffffffff";

describe("x402 vault-pays: only what an executed intent recorded", () => {
  let env: Env;
  let usdc: Address;
  const merchant = devKeyPair(X402_MERCHANT_INDEX).address;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
  }, 180_000);
  afterAll(async () => {
    await env?.close();
  });

  const intentHashOf = (intent: X402Intent) => intentDigest(env.manifest.domain as never, "X402Intent", intent);
  const used = (intent: X402Intent) => env.clients.publicClient.readContract({ address: env.vault, abi: vaultAbi, functionName: "usedIntents", args: [intentHashOf(intent)] });

  /** An intent of `bot` paying `amount` USDC to `payTo`, signed by `signer` (the bot unless forged). */
  async function signed(bot: PrivateKeyAccount, payTo: Address, amount: bigint, overrides: Partial<X402Intent> = {}, signer: PrivateKeyAccount = bot) {
    const intent = await x402Intent(env, bot, { token: usdc, payTo, amount }, overrides);
    const { body } = await x402Body(env, bot, intent);
    const signature = await signX402Intent(signer, env.manifest.domain as never, intent);
    return { intent, body, signature };
  }

  /** Nothing of `intent` is on the chain: no digest, the intent unused, the nonce unused. */
  async function expectNothingRecorded(intent: X402Intent) {
    expect(await recorded(env, vaultDigest(env, intent))).toBe(0n);
    expect(await erc1271(env, vaultDigest(env, intent))).toBe(INVALID);
    expect(await used(intent)).toBe(false);
    expect(await nonceUsed(env, usdc, intent.nonce)).toBe(false);
  }

  /** The API refuses `body` with `code`; then the leaked relayer key, with the bot's own signature, is refused `refusal` by the vault. Nothing recorded, nothing moved. */
  async function refusedBoth(x: Awaited<ReturnType<typeof signed>>, code: string, refusal: string) {
    const before = await balances(env, usdc, [env.vault, x.intent.payTo]);
    const res = await post(`${env.url}/v1/x402`, x.body);
    expect(res.body).toMatchObject({ code });
    await expectNothingRecorded(x.intent);
    expect(await asRelayer(env, "executeX402", [x.intent, x.signature, UNREVIEWED])).toEqual({ refusal, status: "reverted" });
    await expectNothingRecorded(x.intent);
    expect(await balances(env, usdc, [env.vault, x.intent.payTo])).toEqual(before);
  }

  describe("the vault's rules for the merchant", () => {
    it("a blacklisted merchant: 403 DESTINATION_NOT_ALLOWED, and the vault refuses it too", async () => {
      const blacklisted = devKeyPair(14).address;
      await ownerCall(env, "addGlobalBlacklist", [blacklisted]);
      await refusedBoth(await signed(env.bot, blacklisted, USDC(0.01)), "DESTINATION_NOT_ALLOWED", "DestinationBlacklisted");
      await ownerCall(env, "removeGlobalBlacklist", [blacklisted]);
    });

    it("a merchant off the vault's whitelist: 403 DESTINATION_NOT_ALLOWED, and the vault refuses it too", async () => {
      const listed = devKeyPair(15).address;
      await ownerCall(env, "addGlobalDestination", [listed]);
      await refusedBoth(await signed(env.bot, merchant, USDC(0.01)), "DESTINATION_NOT_ALLOWED", "DestinationNotAllowed");
      await ownerCall(env, "removeGlobalDestination", [listed]);
    });

    it("an amount over the bot's per-tx cap: 403 EXCEEDS_PER_TX_LIMIT, and the vault refuses it too", async () => {
      const bot = await newBot(env, { maxPerTxAmount: usd(1) });
      await refusedBoth(await signed(bot, merchant, USDC(2)), "EXCEEDS_PER_TX_LIMIT", "ExceedsPerTxLimit");
    });

    it("an amount over a spend window: the first records, the second is 403 EXCEEDS_DAILY_LIMIT, and the vault's bucket refuses it too", async () => {
      const bot = await newBot(env, { spendingLimits: [{ amount: usd(3), maxCount: 0n, windowSeconds: DAY }] });
      const first = await signed(bot, merchant, USDC(2));
      expect((await post(`${env.url}/v1/x402`, first.body)).body).toMatchObject({ status: "approved" });
      expect(await recorded(env, vaultDigest(env, first.intent))).toBe(first.intent.validBefore);
      await refusedBoth(await signed(bot, merchant, USDC(2)), "EXCEEDS_DAILY_LIMIT", "ExceedsSpendWindow");
    });

    it("more than the vault holds: 422 INSUFFICIENT_BALANCE, and the vault refuses it too", async () => {
      const bot = await newBot(env, { maxPerTxAmount: 0n, spendingLimits: [], aiTriggerThreshold: 0n });
      const [held] = await balances(env, usdc, [env.vault]);
      await refusedBoth(await signed(bot, merchant, held + 1n), "INSUFFICIENT_BALANCE", "InsufficientBalance");
    });

    it("the same authorization signed again with another deadline: 409 X402_NONCE_USED, the vault refuses it, and its spend is debited once", async () => {
      const bot = await newBot(env, { spendingLimits: [{ amount: usd(3), maxCount: 0n, windowSeconds: DAY }] });
      const first = await signed(bot, merchant, USDC(1));
      expect((await post(`${env.url}/v1/x402`, first.body)).body).toMatchObject({ status: "approved" });
      const { nonce, validAfter, validBefore, deadline } = first.intent;
      const again = await signed(bot, merchant, USDC(1), { nonce, validAfter, validBefore, deadline: deadline + 1n });
      expect(vaultDigest(env, again.intent)).toBe(vaultDigest(env, first.intent));
      const before = await balances(env, usdc, [env.vault, merchant]);
      expect((await post(`${env.url}/v1/x402`, again.body)).body).toMatchObject({ code: "X402_NONCE_USED" });
      expect(await asRelayer(env, "executeX402", [again.intent, again.signature, UNREVIEWED])).toEqual({ refusal: "X402NonceUsed", status: "reverted" });
      expect(await used(again.intent)).toBe(false);
      expect(await recorded(env, vaultDigest(env, first.intent))).toBe(validBefore);
      expect(await balances(env, usdc, [env.vault, merchant])).toEqual(before);
      // Debited once: $2 of the $3 window is still there for another purchase.
      const other = await signed(bot, merchant, USDC(2));
      expect((await post(`${env.url}/v1/x402`, other.body)).body).toMatchObject({ status: "approved" });
    });

    it("a \"token\" answering USDC's domain separator cannot have the vault vouch for a USDC transfer, even for a bot without limits", async () => {
      // The digest is computed from the token's own DOMAIN_SEPARATOR(): a contract the bot names as
      // the token, mimicking USDC's, would make it USDC's digest, valued as nothing by any rule.
      const mimic = await deployer(env).deploy("mocks/MockDomainMimic", [await domainSeparatorOf(env, usdc)]);
      const bot = await newBot(env, { maxPerTxAmount: 0n, spendingLimits: [], aiTriggerThreshold: 0n });
      const x = await signed(bot, merchant, USDC(1), {});
      const forMimic = { ...x, intent: { ...x.intent, token: mimic } };
      const body = await x402Body(env, bot, forMimic.intent);
      const signature = await signX402Intent(bot, env.manifest.domain as never, forMimic.intent);
      const usdcDigest = vaultDigest(env, forMimic.intent); // USDC's domain: the transfer the mimic would unlock
      const before = await balances(env, usdc, [env.vault, merchant]);
      expect((await post(`${env.url}/v1/x402`, body.body)).body).toMatchObject({ code: "INVALID_X402_REQUIREMENT" });
      expect(await asRelayer(env, "executeX402", [forMimic.intent, signature, UNREVIEWED])).toEqual({ refusal: "NoPriceFeed", status: "reverted" });
      expect(await recorded(env, usdcDigest)).toBe(0n);
      expect(await erc1271(env, usdcDigest)).toBe(INVALID);
      expect(await used(forMimic.intent)).toBe(false);
      await expect(env.owner.call(usdc, "mocks/MockUSDC", "transferWithAuthorization", settleArgs(env, forMimic.intent))).rejects.toThrow(/invalid signature/);
      expect(await balances(env, usdc, [env.vault, merchant])).toEqual(before);
    });

    it("the AI hold: an unreviewed intent at the bot's AI threshold is refused by the vault", async () => {
      const bot = await newBot(env, { aiTriggerThreshold: usd(1) });
      const x = await signed(bot, merchant, USDC(1));
      expect(await asRelayer(env, "executeX402", [x.intent, x.signature, UNREVIEWED])).toEqual({ refusal: "AiApprovalRequired", status: "reverted" });
      await expectNothingRecorded(x.intent);
    });
  });

  describe("a relayer key alone", () => {
    it("cannot record with a forged signature, another bot's, or a forged owner approval; nor skip a bot's review rule", async () => {
      const stranger = privateKeyToAccount(generatePrivateKey());
      const forged = await signed(env.bot, merchant, USDC(0.01), {}, stranger);
      expect(await asRelayer(env, "executeX402", [forged.intent, forged.signature, UNREVIEWED])).toEqual({ refusal: "InvalidSignature", status: "reverted" });
      const otherBots = await signed(env.bot, merchant, USDC(0.01), {}, env.reviewedBot);
      expect(await asRelayer(env, "executeX402", [otherBots.intent, otherBots.signature, UNREVIEWED])).toEqual({ refusal: "InvalidSignature", status: "reverted" });
      // The reviewed bot's genuine signature: its policy needs the owner, whom the relayer key cannot sign for.
      const reviewed = await signed(env.reviewedBot, merchant, USDC(0.01));
      expect(await asRelayer(env, "executeX402", [reviewed.intent, reviewed.signature, UNREVIEWED])).toEqual({ refusal: "ReviewRequired", status: "reverted" });
      const deadline = (await env.clients.publicClient.getBlock()).timestamp + 3600n;
      const fakeApproval = await signReviewApproval(relayerAccount(env), env.manifest.domain as never, { intentHash: intentHashOf(reviewed.intent), deadline });
      expect(await asRelayer(env, "executeX402", [reviewed.intent, reviewed.signature, { deadline, signature: fakeApproval }])).toEqual({ refusal: "InvalidOwnerApproval", status: "reverted" });
      for (const x of [forged, otherBots, reviewed]) await expectNothingRecorded(x.intent);
    });

    it("cannot record one intent twice", async () => {
      const x = await signed(env.bot, merchant, USDC(0.01));
      expect((await post(`${env.url}/v1/x402`, x.body)).body).toMatchObject({ status: "approved" });
      expect(await asRelayer(env, "executeX402", [x.intent, x.signature, UNREVIEWED])).toEqual({ refusal: "IntentAlreadyUsed", status: "reverted" });
    });

    it("gets no ERC-1271 answer for any digest the vault did not record, and cannot settle one", async () => {
      const x = await signed(env.bot, merchant, USDC(0.01));
      const digest = vaultDigest(env, x.intent);
      for (const d of [digest, randomNonce(), intentHashOf(x.intent)]) expect(await erc1271(env, d)).toBe(INVALID);
      // The relayer key signs the authorization itself, as if it were the vault's key: the token asks the vault, which says no.
      const own = await relayerAccount(env).signTypedData({ domain: usdcDomain(env), types: AUTHORIZATION_TYPES, primaryType: "TransferWithAuthorization", message: { from: env.vault, to: merchant, value: x.intent.amount, validAfter: x.intent.validAfter, validBefore: x.intent.validBefore, nonce: x.intent.nonce } });
      const before = await balances(env, usdc, [env.vault, merchant]);
      for (const signature of [own, "0x" as Hex]) {
        await expect(env.owner.call(usdc, "mocks/MockUSDC", "transferWithAuthorization", settleArgs(env, x.intent, signature))).rejects.toThrow(/invalid signature/);
      }
      expect(await balances(env, usdc, [env.vault, merchant])).toEqual(before);
      await expectNothingRecorded(x.intent);
    });
  });

  it("an intent the owner rejected is cancelled on-chain: a leaked relayer key cannot record it afterwards", async () => {
    const x = await signed(env.bot, merchant, USDC(0.01));
    const body = { ...x.body, metadata: { scenario: "ai-no-consensus" } };
    const held = await post(`${env.url}/v1/x402`, body);
    expect(held.body).toMatchObject({ status: "pending_review" });
    const auth = await ownerSession(env);
    expect((await post(`${env.url}/v1/reviews/${held.body.requestId}/reject`, { reason: "not this one" }, auth)).status).toBe(200);
    await waitUntilCancelled(env, intentHashOf(x.intent));
    expect(await asRelayer(env, "executeX402", [x.intent, x.signature, UNREVIEWED])).toEqual({ refusal: "IntentCancelled", status: "reverted" });
    await expectNothingRecorded(x.intent);
    expect((await post(`${env.url}/v1/x402`, { ...x.body, idempotencyKey: crypto.randomUUID() })).body).toMatchObject({ code: "INTENT_REJECTED" });
  });

  describe("a bot key alone", () => {
    it("cannot call the vault, nor sign for it", async () => {
      await env.owner.sendValue(env.bot.address, parseEther("1"));
      const x = await signed(env.bot, merchant, USDC(0.01));
      expect(await asAccount(env, env.bot, "executeX402", [x.intent, x.signature, UNREVIEWED])).toEqual({ refusal: "NotAuthorizedRelayer", status: "reverted" });
      const own = await env.bot.signTypedData({ domain: usdcDomain(env), types: AUTHORIZATION_TYPES, primaryType: "TransferWithAuthorization", message: { from: env.vault, to: merchant, value: x.intent.amount, validAfter: x.intent.validAfter, validBefore: x.intent.validBefore, nonce: x.intent.nonce } });
      const before = await balances(env, usdc, [env.vault, merchant]);
      const wallet = env.clients.walletFor(env.bot);
      await expect(wallet.writeContract({ address: usdc, abi: usdcAbi, functionName: "transferWithAuthorization", args: settleArgs(env, x.intent, own), chain: env.clients.chain, account: env.bot } as never)).rejects.toThrow(/invalid signature/);
      expect(await balances(env, usdc, [env.vault, merchant])).toEqual(before);
      await expectNothingRecorded(x.intent);
    });
  });

  describe("the authorization's window and nonce", () => {
    it("recording after validBefore: 400 X402_AUTHORIZATION_EXPIRED, and the vault refuses it too", async () => {
      const now = (await env.clients.publicClient.getBlock()).timestamp;
      await refusedBoth(await signed(env.bot, merchant, USDC(0.01), { validBefore: now - 1n }), "X402_AUTHORIZATION_EXPIRED", "X402AuthorizationExpired");
    });

    it("recording with a nonce the vault already used on the token: 409 X402_NONCE_USED, and the vault refuses it too", async () => {
      const first = await signed(env.bot, merchant, USDC(0.01));
      expect((await post(`${env.url}/v1/x402`, first.body)).body).toMatchObject({ status: "approved" });
      // Anyone may present a recorded authorization: it settles, once.
      await env.owner.call(usdc, "mocks/MockUSDC", "transferWithAuthorization", settleArgs(env, first.intent));
      expect(await nonceUsed(env, usdc, first.intent.nonce)).toBe(true);
      const again = await signed(env.bot, merchant, USDC(0.02), { nonce: first.intent.nonce });
      const before = await balances(env, usdc, [env.vault, merchant]);
      expect((await post(`${env.url}/v1/x402`, again.body)).body).toMatchObject({ code: "X402_NONCE_USED" });
      expect(await asRelayer(env, "executeX402", [again.intent, again.signature, UNREVIEWED])).toEqual({ refusal: "X402NonceUsed", status: "reverted" });
      expect(await recorded(env, vaultDigest(env, again.intent))).toBe(0n);
      expect(await used(again.intent)).toBe(false);
      expect(await balances(env, usdc, [env.vault, merchant])).toEqual(before);
    });

    it("a paused vault vouches for nothing, not even a recorded digest, until unpaused", async () => {
      const x = await signed(env.bot, merchant, USDC(0.01));
      expect((await post(`${env.url}/v1/x402`, x.body)).body).toMatchObject({ status: "approved" });
      const digest = vaultDigest(env, x.intent);
      expect(await erc1271(env, digest)).toBe(ERC1271_MAGIC);
      await ownerCall(env, "pause");
      expect(await erc1271(env, digest)).toBe(INVALID);
      const before = await balances(env, usdc, [env.vault, merchant]);
      await expect(env.owner.call(usdc, "mocks/MockUSDC", "transferWithAuthorization", settleArgs(env, x.intent))).rejects.toThrow(/invalid signature/);
      expect(await balances(env, usdc, [env.vault, merchant])).toEqual(before);
      await ownerCall(env, "unpause");
      expect(await erc1271(env, digest)).toBe(ERC1271_MAGIC);
    });
  });
});
