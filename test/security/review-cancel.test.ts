// A rejection is final everywhere, not only at this relayer. Attack: the owner rejects a held payment,
// but the bot's signature has leaked along with the relayer key, which calls the vault's
// `executePayment(intent, signature)` directly. `relay review reject` (through main, against a real
// devnet and relayer) rejects through the relayer, whose own key then cancels the intent on the vault
// (rejection-on-chain.test.ts: every rejection is); by default the CLI also sends `cancelIntent` with
// the owner key. Either way the vault refuses the signature (IntentCancelled) and the recipient gets
// nothing, with --no-cancel (no owner cancel) too.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { runMain } from "../helpers/cli.ts";
import { balanceOf, get, startEnv, type Env } from "../relayer/harness.ts";
import { asRelayer, relayerAccount } from "./support/leaked-relayer.ts";
import { cancelledBy, cancelledOnChain as cancelledOnChainOf, heldPayment as heldPaymentOf, waitUntilCancelled } from "./support/held-payment.ts";

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

const heldPayment = () => heldPaymentOf(env);
const cancelledOnChain = (intentHash: Hex) => cancelledOnChainOf(env, intentHash);

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

  it("--no-cancel sends no owner cancel, yet the rejection is final on-chain: the relayer's key cancels the intent, and the leaked signature reverts IntentCancelled; nothing moved", async () => {
    const { requestId, intentHash, intent, signature, to } = await heldPayment();
    const rejected = await relay(["review", "reject", requestId, "--reason", "not ours", "--no-cancel"]);
    expect(rejected).toMatchObject({ code: 0, stdout: `${requestId}: rejected, reason: not ours\n`, stderr: "" });
    expect(await relayerStatus(requestId)).toBe("rejected");

    await waitUntilCancelled(env, intentHash);
    expect(await cancelledBy(env, intentHash)).toEqual([relayerAccount(env).address]);
    const leaked = await asRelayer(env, "executePayment", [intent, signature]);
    expect(leaked).toEqual({ refusal: "IntentCancelled", status: "reverted" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
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

  it("the owner's on-chain cancel failing after the relayer's rejection exits 1 with one line naming the retry; the relayer's own cancel lands anyway, and the retry still works", async () => {
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
    // The owner's cancel failed, the relayer's own lands all the same: the rejection is final on-chain.
    await waitUntilCancelled(env, intentHash);
    expect(await cancelledBy(env, intentHash)).toEqual([relayerAccount(env).address]);

    // The retry the line names still works (a cancel changes nothing twice).
    const retried = await relay(["owner", "cancel", intentHash]);
    expect(retried.code).toBe(0);
    expect(await cancelledOnChain(intentHash)).toBe(true);
    expect(await cancelledBy(env, intentHash)).toEqual([relayerAccount(env).address, env.ownerAccount.address]);
  });
});
