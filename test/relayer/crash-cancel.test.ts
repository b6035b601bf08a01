// A rejection survives a crash on its way to the chain: `relay devnet` in one process, `relay serve
// --rpc-url` in another, the relayer killed with SIGKILL (a) right after the owner's rejection
// committed, before any cancel was sent, and (b) right after the cancel's transaction was recorded,
// before it was broadcast. After a restart the relayer's key cancels the intent on the vault, so the
// bot's leaked signature, sent straight to the vault by a leaked relayer key, reverts and nothing
// moves; and in (b) the key's next transaction is not stuck behind the recorded cancel's nonce.
import { describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { signInWithEthereum } from "../../packages/client/src/siwe.ts";
import { fresh } from "./harness.ts";
import { splitDevnet } from "./support/split-devnet.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const { readManifest, startServe } = splitDevnet("relay-crash-cancel-");

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("kill -9 between a rejection and its on-chain cancel", () => {
  for (const fault of ["after-rejection", "after-record"] as const) {
    it(`killed ${fault === "after-rejection" ? "once the rejection committed, before any cancel was sent" : "once the cancel's transaction was recorded, before it was broadcast"}: the restarted relayer cancels the intent, and the leaked signature moves nothing`, async () => {
      const manifest = readManifest();
      const { publicClient, walletFor, chain } = clientsFor(manifest.rpcUrl, manifest.chainId);
      const vault = manifest.contracts.vault as Address;
      const usdc = manifest.tokens.USDC!.address as Address;
      const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex);
      const relayerKey = privateKeyToAccount(manifest.accounts.relayer.privateKey as Hex);
      const owner = privateKeyToAccount(manifest.accounts.owner.privateKey as Hex);
      const domain = manifest.domain as never;
      const cancelled = (intentHash: Hex) => publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "cancelledIntents", args: [intentHash] }) as Promise<boolean>;

      // The default bot's 12,000 USDC payment, held by the agents for the owner.
      const first = await startServe({ RELAY_FAULT: fault });
      const to = fresh();
      const intent = { bot: bot.address, to, token: usdc, amount: 12_000_000_000n, deadline: defaultDeadline(), ref: randomRef() };
      const signature = await signPaymentIntent(bot, domain, intent);
      const intentHash = hashIntent("payment", domain, intent);
      const held = await post(`${first.url}/v1/payments`, paymentRequestBody(domain, intent, signature, { idempotencyKey: crypto.randomUUID(), metadata: { scenario: "ai-no-consensus" } }));
      const { requestId, status } = (await held.json()) as { requestId: string; status: string };
      expect(status).toBe("pending_review");

      const login = await signInWithEthereum(new RelayClient({ baseUrl: first.url }), owner, { chainId: manifest.chainId, baseUrl: first.url });
      const rejecting = post(`${first.url}/v1/reviews/${requestId}/reject`, { reason: "not ours" }, { authorization: `Bearer ${login.token}` });
      // Killed before answering; or, at the cancel's record, possibly after the answer (the cancel is
      // sent once the rejection is committed, and the answer does not wait for it).
      if (fault === "after-rejection") await expect(rejecting).rejects.toThrow();
      else await rejecting.catch(() => undefined);
      expect((await first.relay.exited).signal).toBe("SIGKILL");
      // Killed before the cancel reached the chain: the signature is still live there.
      expect(await cancelled(intentHash)).toBe(false);

      const second = await startServe();
      const until = Date.now() + 30_000;
      while (!(await cancelled(intentHash))) {
        if (Date.now() > until) throw new Error(`the restarted relayer did not cancel ${intentHash}:\n${second.relay.output.stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const logs = await publicClient.getLogs({ address: vault, fromBlock: 0n });
      const cancels = (parseEventLogs({ abi: vaultAbi, logs, eventName: "IntentCancelled" }) as unknown as Array<{ args: { intentHash: Hex; by: Address } }>).filter(
        (e) => e.args.intentHash === intentHash,
      );
      expect(cancels.map((e) => e.args.by)).toEqual([relayerKey.address]);
      const polled = (await (await fetch(`${second.url}/v1/payments/${requestId}`)).json()) as { status: string; reason: string };
      expect(polled).toMatchObject({ status: "rejected", reason: "not ours" });

      // The leaked relayer key sends the bot's signature to the vault itself: it reverts, nothing moves.
      const data = encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [intent, signature] });
      const hash = await walletFor(relayerKey).sendTransaction({ to: vault, data, gas: 3_000_000n, account: relayerKey, chain });
      expect((await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe("reverted");
      const balance = () => publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [to] });
      expect(await balance()).toBe(0n);

      // The key's next transaction goes through: no nonce was left unsent behind it.
      const next = { ...intent, to: fresh(), amount: 1_000_000n, ref: randomRef() };
      const paid = await post(`${second.url}/v1/payments`, paymentRequestBody(domain, next, await signPaymentIntent(bot, domain, next), { idempotencyKey: crypto.randomUUID() }));
      expect(await paid.json()).toMatchObject({ status: "approved" });

      second.relay.child.kill("SIGTERM");
      expect((await second.relay.exited).code).toBe(0);
    });
  }
});
