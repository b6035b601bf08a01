// A rejection is final everywhere, not only at this relayer. Attack: the owner rejects a held payment,
// but the bot's signature has leaked along with the relayer key, which calls the vault's
// `executePayment(intent, signature)` directly. `relay review reject` (through main, against a real
// devnet and relayer) also sends `cancelIntent` with the owner key by default, so the vault itself
// refuses the signature (IntentCancelled) and the recipient gets nothing; with --no-cancel the
// signature stays live on-chain, which is what the cancel is for.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { runMain } from "../helpers/cli.ts";
import { balanceOf, fresh, get, post, startEnv, type Env } from "../relayer/harness.ts";
import { asRelayer } from "./support/leaked-relayer.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
let env: Env;

beforeAll(async () => {
  env = await startEnv();
});
afterAll(() => env?.close());

/** `relay <args>` through main() against the env's relayer; the devnet manifest gives RPC, vault and owner key. */
async function relay(args: string[], stateDir = env.stateDir) {
  const run = runMain([...args, "--relayer-url", env.url, "--state-dir", stateDir]);
  const code = await run.done;
  return { code, ...run.output };
}

/**
 * The default bot's 12,000 USDC payment to a fresh address, above its AI threshold and sent with
 * metadata.scenario=ai-no-consensus, so the agents hold it for the owner. Returns what a leak exposes.
 */
async function heldPayment(): Promise<{ requestId: string; intentHash: Hex; intent: PaymentIntent; signature: Hex; to: Address }> {
  const to = fresh();
  const intent: PaymentIntent = { bot: env.bot.address, to, token: env.token("USDC"), amount: 12_000_000_000n, deadline: defaultDeadline(), ref: randomRef() };
  const signature = await signPaymentIntent(env.bot, env.manifest.domain as never, intent);
  const body = paymentRequestBody(env.manifest.domain as never, intent, signature, { idempotencyKey: crypto.randomUUID(), metadata: { scenario: "ai-no-consensus" } });
  const held = await post(`${env.url}/v1/payments`, body);
  expect(held.body.status).toBe("pending_review");
  return { requestId: held.body.requestId, intentHash: hashIntent("payment", env.manifest.domain as never, intent), intent, signature, to };
}

const cancelledOnChain = (intentHash: Hex) =>
  env.clients.publicClient.readContract({ address: env.vault, abi: vaultAbi, functionName: "cancelledIntents", args: [intentHash] }) as Promise<boolean>;

const relayerStatus = async (requestId: string) => (await get(`${env.url}/v1/payments/${requestId}`)).body.status as string;

describe("relay review reject cancels the intent on-chain", () => {
  it("by default: rejected at the relayer, cancelled on the vault, and a leaked relayer key calling executePayment directly reverts IntentCancelled; nothing moved", async () => {
    const { requestId, intentHash, intent, signature, to } = await heldPayment();

    const rejected = await relay(["review", "reject", requestId, "--reason", "not ours"]);
    expect(rejected.stderr).toBe("");
    expect(rejected.code).toBe(0);
    const lines = rejected.stdout.split("\n");
    expect(lines[0]).toBe(`${requestId}: rejected, reason: not ours`);
    expect(lines[1]).toMatch(new RegExp(`^intent ${intentHash} cancelled on-chain, tx 0x[0-9a-f]{64}$`));
    expect(lines.slice(2)).toEqual([""]);

    expect(await relayerStatus(requestId)).toBe("rejected");
    expect(await cancelledOnChain(intentHash)).toBe(true);

    const leaked = await asRelayer(env, "executePayment", [intent, signature]);
    expect(leaked).toEqual({ refusal: "IntentCancelled", status: "reverted" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it("--json prints the relayer's decision with the cancel's intent hash and transaction", async () => {
    const { requestId, intentHash } = await heldPayment();
    const rejected = await relay(["review", "reject", requestId, "--reason", "no", "--json"]);
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.stdout)).toEqual({
      requestId,
      status: "rejected",
      reason: "no",
      errorCode: "OWNER_REJECTED",
      cancel: { intentHash, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    expect(await cancelledOnChain(intentHash)).toBe(true);
  });

  it("--no-cancel rejects at this relayer only: cancelledIntents stays false, and the leaked signature would still execute on-chain", async () => {
    const { requestId, intentHash, intent, signature, to } = await heldPayment();
    const rejected = await relay(["review", "reject", requestId, "--reason", "not ours", "--no-cancel"]);
    expect(rejected).toMatchObject({ code: 0, stdout: `${requestId}: rejected, reason: not ours\n`, stderr: "" });
    expect(await relayerStatus(requestId)).toBe("rejected");
    expect(await cancelledOnChain(intentHash)).toBe(false);

    // The contrast that makes the default worth its gas: the relayer's refusal does not bind the vault.
    const leaked = await asRelayer(env, "executePayment", [intent, signature]);
    expect(leaked).toEqual({ refusal: "", status: "success" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(12_000_000_000n);
  });

  it("without an owner key, the on-chain cancel is a usage error before anything is sent: the request stays held, nothing cancelled", async () => {
    const { requestId, intentHash } = await heldPayment();
    const bare = mkdtempSync(path.join(tmpdir(), "relay-no-owner-"));
    try {
      const flags = ["--rpc-url", env.manifest.rpcUrl, "--chain-id", String(env.manifest.chainId), "--vault", env.vault];
      const refused = await relay(["review", "reject", requestId, "--reason", "not ours", ...flags], bare);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toBe("relay: cancelling the intent on-chain needs the owner key: pass --owner-key or set RELAY_OWNER_KEY\n");
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
    expect(await relayerStatus(requestId)).toBe("pending_review");
    expect(await cancelledOnChain(intentHash)).toBe(false);
  });

  it("an on-chain cancel that fails after the relayer's rejection exits 1 with one line naming the retry, and the retry cancels it", async () => {
    const { requestId, intentHash } = await heldPayment();
    const owner = env.ownerAccount.address;
    const funds = await env.clients.publicClient.getBalance({ address: owner });
    // An owner wallet without gas: the relayer accepts the rejection (signing in costs nothing), the transaction cannot be paid.
    await env.clients.publicClient.request({ method: "hardhat_setBalance" as never, params: [owner, "0x0"] as never });
    let failed;
    try {
      failed = await relay(["review", "reject", requestId, "--reason", "not ours"]);
    } finally {
      await env.clients.publicClient.request({ method: "hardhat_setBalance" as never, params: [owner, `0x${funds.toString(16)}`] as never });
    }
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe(`${requestId}: rejected, reason: not ours\n`);
    const lines = failed.stderr.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^relay: ${requestId} was rejected by the relayer, but cancelling its intent on-chain failed: Sender doesn't have enough funds to send tx\\..*; retry with \`relay owner cancel ${intentHash}\`$`));
    expect(await relayerStatus(requestId)).toBe("rejected");
    expect(await cancelledOnChain(intentHash)).toBe(false);

    const retried = await relay(["owner", "cancel", intentHash]);
    expect(retried.code).toBe(0);
    expect(await cancelledOnChain(intentHash)).toBe(true);
  });
});
