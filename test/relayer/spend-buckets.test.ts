// The relayer refuses what the vault's spend buckets would refuse, before sending anything. The
// buckets are made to hold less than the relayer's own windows think the way it happens for real:
// a key outside this relayer (here the relayer's own key with the bot's, sent straight to the vault,
// as a leaked pair would) spends first, so the ledger has seen none of it. Each refusal carries the
// window's code; the chain shows nothing sent (the relayer key's nonce), nothing paid, the intent unused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAbiItem, toEventSelector, type AbiEvent, type Address, type Hex } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import type { PrivateKeyAccount } from "viem/accounts";
import { defaultDeadline, randomRef, signPaymentIntent, signSwapIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent, SwapIntent } from "../../packages/client/src/intent-types.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { asRelayer, relayerAccount } from "../security/support/leaked-relayer.ts";
import { balanceOf, calldata, executeBody, fresh, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { newBot, readOf, swapBodyAs, usd } from "./harness-extra.ts";

const DAY = 86_400n;

describe("the vault's spend buckets, read by the relayer", () => {
  let env: Env;
  let usdc: Address;
  let weth: Address;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    weth = env.token("WETH");
    await ownerCall(env, "approveProtocol", [usdc]);
  });
  afterAll(() => env?.close());

  const domain = () => env.manifest.domain as never;
  const nonce = () => env.clients.publicClient.getTransactionCount({ address: relayerAccount(env).address, blockTag: "pending" });
  const used = (hash: Hex) => readOf<boolean>(env, env.vault, "ServiceVault", "usedIntents", [hash]);

  /** A payment the bot signed, sent straight to the vault with the relayer's key: the relayer never sees it. */
  async function spendOutside(bot: PrivateKeyAccount, amount: bigint): Promise<void> {
    const intent: PaymentIntent = { bot: bot.address, to: fresh(), token: usdc, amount, deadline: defaultDeadline(), ref: randomRef() };
    const signature = await signPaymentIntent(bot, domain(), intent);
    expect(await asRelayer(env, "executePayment", [intent, signature])).toEqual({ refusal: "", status: "success" });
  }

  it("a bot's daily bucket: a payment it cannot cover is 403 EXCEEDS_DAILY_LIMIT before anything is sent; one it can pays", async () => {
    const bot = await newBot(env, { spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: DAY }] });
    await spendOutside(bot, usd(8));
    const to = fresh();
    const before = await nonce();
    const intent: PaymentIntent = { bot: bot.address, to, token: usdc, amount: usd(5), deadline: defaultDeadline(), ref: randomRef() };
    const body = paymentRequestBody(domain(), intent, await signPaymentIntent(bot, domain(), intent), { idempotencyKey: crypto.randomUUID() });
    const res = await post(`${env.url}/v1/payments`, body);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("EXCEEDS_DAILY_LIMIT");
    // $2 and what refilled since the outside payment ($10 a day is about $0.0001 a second).
    expect(res.body.details).toMatch(/^the bot's limit of 10 USD per 86400 s has 2(\.0\d*)? USD left$/);
    expect(await nonce()).toBe(before);
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await used(hashIntent("payment", domain(), intent))).toBe(false);

    const ok = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: usd(2) }, { signer: bot }));
    expect(ok.body.status).toBe("approved");
    expect(await balanceOf(env, usdc, to)).toBe(usd(2));
  });

  it("requests in flight count against the bucket: of two at once that it cannot both cover, one pays and the other is refused before sending", async () => {
    const bot = await newBot(env, { spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: DAY }] });
    await spendOutside(bot, usd(8)); // the bucket holds $2 (and a little refill); the ledger has seen nothing
    // A few seconds on, so that both are reserved after the second of the block their buckets are read at.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const payees = [fresh(), fresh()];
    const answers = await Promise.all(payees.map(async (to) => post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: usd(1) + 500_000n }, { signer: bot }))));
    const outcomes = answers.map((a) => a.body.status ?? a.body.code).sort();
    expect(outcomes).toEqual(["EXCEEDS_DAILY_LIMIT", "approved"]);
    const paid = answers.find((a) => a.body.status === "approved")!;
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: paid.body.txHash });
    const failedTopic = toEventSelector(getAbiItem({ abi: readArtifact("ServiceVault").abi, name: "PaymentFailed" }) as AbiEvent);
    expect(receipt.logs.filter((l) => l.topics[0] === failedTopic)).toEqual([]);
    const balances = await Promise.all(payees.map((to) => balanceOf(env, usdc, to)));
    expect(balances.sort()).toEqual([0n, usd(1) + 500_000n].sort());
  });

  it("the vault-wide bucket: another bot's payment is 403 EXCEEDS_VELOCITY_LIMIT when the vault's hour is spent outside", async () => {
    await ownerCall(env, "setVaultSpendingLimits", [[{ amount: usd(10), maxCount: 0n, windowSeconds: 3_600n }]]);
    try {
      const spender = await newBot(env, { spendingLimits: [] });
      const other = await newBot(env, { spendingLimits: [] });
      await spendOutside(spender, usd(9));
      const to = fresh();
      const before = await nonce();
      const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: other.address, to, amount: usd(5) }, { signer: other }));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_VELOCITY_LIMIT");
      expect(res.body.details).toMatch(/^the vault's limit of 10 USD per 3600 s has 1(\.\d+)? USD left$/);
      expect(await nonce()).toBe(before);
      expect(await balanceOf(env, usdc, to)).toBe(0n);
    } finally {
      await ownerCall(env, "setVaultSpendingLimits", [[]]);
    }
  });

  it("an execute is refused with the window's code, not as a failed simulation", async () => {
    const bot = await newBot(env, { spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: DAY }] });
    await spendOutside(bot, usd(8));
    const to = fresh();
    const transfer = calldata("mocks/MockERC20", "transfer", [to, usd(5)]);
    const before = await nonce();
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { bot: bot.address, protocol: usdc, tokens: [usdc], amounts: [usd(5)] }, transfer, { signer: bot }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("EXCEEDS_DAILY_LIMIT");
    expect(await nonce()).toBe(before);
    expect(await balanceOf(env, usdc, to)).toBe(0n);
  });

  it("a swap against the swap volume bucket: 403 EXCEEDS_REBALANCE_LIMIT, nothing swapped", async () => {
    const bot = await newBot(env);
    await ownerCall(env, "setBotSwapLimit", [bot.address, usd(100), DAY]);
    const router = env.manifest.contracts.router as Address;
    const outside: SwapIntent = { bot: bot.address, fromToken: usdc, toToken: weth, maxFromAmount: usd(90), minToAmount: 0n, deadline: defaultDeadline(), ref: randomRef() };
    const swapCall = calldata("mocks/MockSwapRouter", "swapExactIn", [usdc, weth, usd(90), 0n, env.vault]);
    expect(await asRelayer(env, "executeSwap", [outside, await signSwapIntent(bot, domain(), outside), router, swapCall])).toEqual({ refusal: "", status: "success" });
    const before = await nonce();
    const holdings = await balanceOf(env, usdc, env.vault);
    const res = await post(`${env.url}/v1/swap`, await swapBodyAs(env, bot, { fromToken: usdc, toToken: weth, maxFromAmount: usd(20), minToAmount: 0n }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("EXCEEDS_REBALANCE_LIMIT");
    expect(res.body.details).toMatch(/^the bot's swap volume limit of 100 USD per 86400 s has 10(\.\d+)? USD left$/);
    expect(await nonce()).toBe(before);
    expect(await balanceOf(env, usdc, env.vault)).toBe(holdings);
  });
});
