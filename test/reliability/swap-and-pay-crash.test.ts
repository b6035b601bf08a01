// Crash safety of a swap-and-pay, with real processes: `relay serve` killed (SIGKILL) after the
// transaction is signed and recorded but before it is broadcast, then restarted; the retry with the
// same key and body executes the swap and the payment exactly once, in one transaction.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAbiItem, type Address, type Hex } from "viem";
import { signSwapAndPayRequest, swapForPayment } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef } from "../../packages/client/src/sign.ts";
import type { PaymentRequestBody } from "../../packages/client/src/types.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { executedEvents, freshAddress, getPayment, postPayment, startCrashEnv, usdcBalance, type CrashEnv } from "./support/crash-env.ts";

const swapExecuted = parseAbiItem(
  "event SwapExecuted(bytes32 indexed intentHash, address indexed bot, address fromToken, address toToken, uint256 amountIn, uint256 amountOut, bytes32 ref)",
);

let env: CrashEnv;
beforeAll(async () => {
  env = await startCrashEnv("relay-crash-swap-and-pay-");
});
afterAll(async () => {
  await env?.stop();
});

describe("kill -9 between record and broadcast of a swap-and-pay, then restart and retry", () => {
  it("executes swap and payment exactly once, in the recorded transaction", async () => {
    const to = freshAddress();
    const weth = env.manifest.tokens.WETH!.address as Address;
    const payment = { bot: env.bot.address, to, token: env.usdc, amount: 15_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const swap = swapForPayment(payment, weth, 10n ** 16n, randomRef());
    const domain = env.manifest.domain as never;
    const body = await signSwapAndPayRequest(env.bot, domain, payment, swap);
    const swapHash = hashIntent("swap", domain, swap);
    const paymentHash = hashIntent("payment", domain, payment);

    const faulty = await env.serve({ RELAY_FAULT: "after-record" });
    const sent = await postPayment(faulty.url, body as PaymentRequestBody).then(() => "answered", () => "dropped");
    expect(sent).toBe("dropped");
    expect((await faulty.relay.exited).signal).toBe("SIGKILL");
    expect(await usdcBalance(env, to)).toBe(0n);

    const relayer = await env.serve();
    const retry = await postPayment(relayer.url, body as PaymentRequestBody);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    const paid = await executedEvents(env, { to });
    expect(paid).toHaveLength(1);
    expect(paid[0]!.transactionHash).toBe(retry.body.txHash);
    const swaps = await env.clients.publicClient.getLogs({ address: env.vault, event: swapExecuted, args: { intentHash: swapHash }, fromBlock: 0n, toBlock: "latest" });
    expect(swaps).toHaveLength(1);
    expect(swaps[0]!.transactionHash).toBe(retry.body.txHash);
    expect(await usdcBalance(env, to)).toBe(payment.amount);
    const vaultAbi = readArtifact("ServiceVault").abi;
    const used = (hash: Hex) => env.clients.publicClient.readContract({ address: env.vault, abi: vaultAbi, functionName: "usedIntents", args: [hash] });
    expect(await used(swapHash)).toBe(true);
    expect(await used(paymentHash)).toBe(true);

    expect((await getPayment(relayer.url, retry.body.requestId)).body).toMatchObject({ status: "approved", txHash: retry.body.txHash });
    const again = await postPayment(relayer.url, body as PaymentRequestBody);
    expect(again.text).toBe(retry.text);
    relayer.relay.child.kill("SIGTERM");
    expect((await relayer.relay.exited).code).toBe(0);
  });
});
