// A payment held for the owner, with what a leak exposes (the bot's signed intent), and what the
// chain says of its intent afterwards: cancelled or not, and by whom (the IntentCancelled events).
import { parseEventLogs, type Address, type Hex } from "viem";
import { expect } from "vitest";
import { paymentRequestBody } from "../../../packages/client/src/bodies.ts";
import type { PaymentIntent } from "../../../packages/client/src/intent-types.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../../packages/client/src/sign.ts";
import { readArtifact } from "../../../src/chain/artifacts.ts";
import { hashIntent } from "../../../src/eip712/hash.ts";
import { fresh, post, type Env } from "../../relayer/harness.ts";

const vaultAbi = readArtifact("ServiceVault").abi;

export interface HeldPayment {
  requestId: string;
  intentHash: Hex;
  intent: PaymentIntent;
  signature: Hex;
  to: Address;
}

/**
 * The default bot's payment of `amount` USDC base units to a fresh address, held for the owner:
 * by default 12,000 USDC, above its AI threshold, with metadata.scenario=ai-no-consensus. The
 * default bot needs no review on-chain, so only a cancel stops this signature there.
 */
export async function heldPayment(env: Env, options: { amount?: bigint; scenario?: string } = {}): Promise<HeldPayment> {
  const to = fresh();
  const intent: PaymentIntent = { bot: env.bot.address, to, token: env.token("USDC"), amount: options.amount ?? 12_000_000_000n, deadline: defaultDeadline(), ref: randomRef() };
  const signature = await signPaymentIntent(env.bot, env.manifest.domain as never, intent);
  const body = paymentRequestBody(env.manifest.domain as never, intent, signature, {
    idempotencyKey: crypto.randomUUID(),
    metadata: { scenario: options.scenario ?? "ai-no-consensus" },
  });
  const held = await post(`${env.url}/v1/payments`, body);
  expect(held.body.status).toBe("pending_review");
  return { requestId: held.body.requestId, intentHash: hashIntent("payment", env.manifest.domain as never, intent), intent, signature, to };
}

export function cancelledOnChain(env: Env, intentHash: Hex): Promise<boolean> {
  return env.clients.publicClient.readContract({ address: env.vault, abi: vaultAbi, functionName: "cancelledIntents", args: [intentHash] }) as Promise<boolean>;
}

/** Waits (up to `timeoutMs`) until the vault shows the intent cancelled: the relayer sends the cancel after the rejection commits. */
export async function waitUntilCancelled(env: Env, intentHash: Hex, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cancelledOnChain(env, intentHash))) {
    if (Date.now() > until) throw new Error(`intent ${intentHash} was not cancelled on-chain within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Who cancelled the intent on the vault, one address per IntentCancelled event, oldest first. */
export async function cancelledBy(env: Env, intentHash: Hex): Promise<Address[]> {
  const logs = await env.clients.publicClient.getLogs({ address: env.vault, fromBlock: 0n, toBlock: "latest" });
  const events = parseEventLogs({ abi: vaultAbi, logs, eventName: "IntentCancelled" }) as unknown as Array<{ args: { intentHash: Hex; by: Address } }>;
  return events.filter((e) => e.args.intentHash.toLowerCase() === intentHash.toLowerCase()).map((e) => e.args.by);
}
