// The AI hold end to end, with the panel in the relayer's process: a request the vault holds for the
// AI scan (at or above the bot's aiTriggerThreshold) that the agents approve goes on-chain through
// the vault's reviewed entry point with the approving agents' AiVerdict signatures, made with the
// panel's keys, which the devnet's vault registered as its scanners. Read from the chain: the
// transaction's call, its signers, the balances. A vault with no scanners, or a panel whose keys are
// not the vault's scanners, holds the request for the owner instead: the vault would refuse it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFunctionData, recoverAddress, zeroAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { devScannerKeys } from "../../src/devnet/accounts.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { verdictDigest } from "../../src/eip712/verdict.ts";
import { signSwapAndPayRequest, swapForPayment, swapRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signSwapIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { balanceOf, calldata, executeBody, fresh, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { readOf } from "./harness-extra.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;
const vaultAbi = readArtifact("ServiceVault").abi;

/** The vault call a transaction made, and the scanners whose verdicts it carried (by recovery). */
export async function verdictCall(env: Env, txHash: Hex) {
  const tx = await env.clients.publicClient.getTransaction({ hash: txHash });
  expect(tx.to?.toLowerCase()).toBe(env.vault.toLowerCase());
  const call = decodeFunctionData({ abi: vaultAbi, data: tx.input });
  const args = call.args as readonly unknown[];
  // The verdicts name the intent's hash (a swap-and-pay's: its payment's, the third argument).
  const [hashFn, intent] = call.functionName === "executeReviewedPayment" ? ["hashPaymentIntent", args[0]]
    : call.functionName === "executeReviewedProtocol" ? ["hashExecuteIntent", args[0]]
    : call.functionName === "executeReviewedSwap" ? ["hashSwapIntent", args[0]]
    : ["hashPaymentIntent", args[2]];
  const approval = call.functionName === "executeSwapAndPayment" ? (args[6] as { deadline: bigint; signature: Hex }) : undefined;
  const [deadline, packed] = approval ? [approval.deadline, approval.signature] : (args.slice(-2) as [bigint, Hex]);
  const intentHash = await readOf<Hex>(env, env.vault, "ServiceVault", hashFn as string, [intent]);
  const digest = verdictDigest(env.manifest.domain as never, intentHash, deadline);
  const signers: Address[] = [];
  for (let at = 2; at < packed.length; at += 130) signers.push(await recoverAddress({ hash: digest, signature: `0x${packed.slice(at, at + 130)}` }));
  return { functionName: call.functionName, signers, intentHash };
}

export function expectScannerSigners(signers: readonly Address[]) {
  const scanners = devScannerKeys().map((k) => k.address.toLowerCase());
  expect(signers.length).toBeGreaterThanOrEqual(2);
  for (const s of signers) expect(scanners).toContain(s.toLowerCase());
  expect([...signers].map((s) => BigInt(s))).toEqual([...signers].map((s) => BigInt(s)).sort((a, b) => (a < b ? -1 : 1)));
}

describe("AI holds through the relayer, the panel in its process", () => {
  let env: Env;
  let bot: PrivateKeyAccount;
  let lending: Address;
  const usdc = () => env.token("USDC");

  beforeAll(async () => {
    env = await startEnv();
    bot = privateKeyToAccount(generatePrivateKey());
    lending = env.manifest.contracts.lending as Address;
    await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, aiTriggerThreshold: USDC(50) }]);
    await ownerCall(env, "approveProtocol", [lending]);
  });
  afterAll(() => env?.close());

  it("a $60 payment the agents approve executes with 2+ scanner verdicts (executeReviewedPayment)", async () => {
    const to = fresh();
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(60) }, { signer: bot, memo: "invoice 42 for October hosting, 60 USDC", metadata: { scenario: "ai-approve" } }));
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: res.body.txHash });
    expect(receipt.status).toBe("success");
    const { functionName, signers } = await verdictCall(env, res.body.txHash);
    expect(functionName).toBe("executeReviewedPayment");
    expectScannerSigners(signers);
    expect(await balanceOf(env, usdc(), to)).toBe(USDC(60));
  });

  it("by the default rules too: an ordinary invoice above the threshold is approved with verdicts, or held; never paid without them", async () => {
    const to = fresh();
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(60) }, { signer: bot, memo: "invoice 43 for November hosting, 60 USDC" }));
    expect(["approved", "pending_review"]).toContain(res.body.status);
    if (res.body.status === "approved") {
      expect((await verdictCall(env, res.body.txHash)).functionName).toBe("executeReviewedPayment");
      expect(await balanceOf(env, usdc(), to)).toBe(USDC(60));
    } else {
      expect(await balanceOf(env, usdc(), to)).toBe(0n);
    }
  });

  it("a $60 protocol call the agents approve executes with verdicts (executeReviewedProtocol)", async () => {
    const before = await readOf<bigint>(env, lending, "mocks/MockLendingPool", "supplied", [env.vault, usdc()]);
    const data = calldata("mocks/MockLendingPool", "supply", [usdc(), USDC(60)]);
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: lending, tokens: [usdc()], amounts: [USDC(60)] }, data, { signer: bot, memo: "supply 60 USDC to the lending pool", metadata: { scenario: "ai-approve" } }));
    expect(res.body).toMatchObject({ status: "approved" });
    const { functionName, signers } = await verdictCall(env, res.body.txHash);
    expect(functionName).toBe("executeReviewedProtocol");
    expectScannerSigners(signers);
    expect(await readOf<bigint>(env, lending, "mocks/MockLendingPool", "supplied", [env.vault, usdc()])).toBe(before + USDC(60));
  });

  it("a swap worth $60 the agents approve executes with verdicts (executeReviewedSwap)", async () => {
    const weth = env.token("WETH");
    const wethBefore = await balanceOf(env, weth, env.vault);
    const intent = { bot: bot.address, fromToken: usdc(), toToken: weth, maxFromAmount: USDC(60), minToAmount: 1n, deadline: defaultDeadline(), ref: randomRef() };
    const signature = await signSwapIntent(bot, env.manifest.domain as never, intent);
    const res = await post(`${env.url}/v1/swap`, swapRequestBody(env.manifest.domain as never, intent, signature, { metadata: { scenario: "ai-approve" } }));
    expect(res.body).toMatchObject({ status: "approved" });
    const { functionName, signers } = await verdictCall(env, res.body.txHash);
    expect(functionName).toBe("executeReviewedSwap");
    expectScannerSigners(signers);
    expect(await balanceOf(env, weth, env.vault)).toBeGreaterThan(wethBefore);
  });

  it("a swap-and-pay whose payment is worth $60: its verdicts name the payment's hash; both legs execute (executeSwapAndPayment)", async () => {
    const to = fresh();
    const payment: PaymentIntent = { bot: bot.address, to, token: usdc(), amount: USDC(60), deadline: defaultDeadline(), ref: randomRef() };
    const swap = swapForPayment(payment, env.token("WETH"), 3n * 10n ** 16n, randomRef());
    const body = await signSwapAndPayRequest(bot, env.manifest.domain as never, payment, swap, { metadata: { scenario: "ai-approve" } });
    const res = await post(`${env.url}/v1/payments`, body);
    expect(res.body).toMatchObject({ status: "approved" });
    const { functionName, signers, intentHash } = await verdictCall(env, res.body.txHash);
    expect(functionName).toBe("executeSwapAndPayment");
    expect(intentHash).toBe(hashIntent("payment", env.manifest.domain as never, payment));
    expectScannerSigners(signers);
    expect(await balanceOf(env, usdc(), to)).toBe(USDC(60));
  });

  it("below the threshold the fast path is untouched (executePayment)", async () => {
    const to = fresh();
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(5) }, { signer: bot }));
    expect(res.body.status).toBe("approved");
    const tx = await env.clients.publicClient.getTransaction({ hash: res.body.txHash });
    expect(decodeFunctionData({ abi: vaultAbi, data: tx.input }).functionName).toMatch(/^executePayment/);
    expect(await balanceOf(env, usdc(), to)).toBe(USDC(5));
  });

  it("a vault with no scanners registered: held for the owner, the agents not asked, nothing paid", async () => {
    await ownerCall(env, "setScanners", [[zeroAddress, zeroAddress, zeroAddress]]);
    try {
      const to = fresh();
      const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(60) }, { signer: bot, metadata: { scenario: "ai-approve" } }));
      expect(res.body.status).toBe("pending_review");
      const record = await env.store.getRequest(res.body.requestId);
      expect(record?.heldBecause).toMatch(/registered no scanner keys/);
      expect(await balanceOf(env, usdc(), to)).toBe(0n);
    } finally {
      await ownerCall(env, "setScanners", [devScannerKeys().map((k) => k.address)]);
    }
  });

  it("a scanner key that is also a relayer key: the relayer refuses to start, naming it", async () => {
    await env.stopRelayers();
    const relayerKey = env.manifest.accounts.relayer.privateKey as Hex;
    try {
      await expect(env.startRelayers({ ai: { timeoutMs: 30_000, scannerKeys: [relayerKey, generatePrivateKey(), generatePrivateKey()] } }))
        .rejects.toThrow(/ai\.scannerKeys: 0x[0-9a-fA-F]{40} is also a relayer key/);
    } finally {
      await env.startRelayers();
    }
  });

  it("a panel whose keys are not the vault's scanners: the agents approve, the request is held, nothing paid", async () => {
    await env.stopRelayers();
    await env.startRelayers({ ai: { timeoutMs: 30_000, scannerKeys: [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()] } });
    try {
      const to = fresh();
      const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(60) }, { signer: bot, metadata: { scenario: "ai-approve" } }));
      expect(res.body.status).toBe("pending_review");
      const record = await env.store.getRequest(res.body.requestId);
      expect(record?.heldBecause).toMatch(/0 of their verdicts are signed by the vault's registered scanner keys/);
      expect(await balanceOf(env, usdc(), to)).toBe(0n);
    } finally {
      await env.stopRelayers();
      await env.startRelayers();
    }
  });
});
