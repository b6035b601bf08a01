// Crash safety, as a user would meet it: `relay devnet` in one process, `relay serve --rpc-url` in
// another, the relayer killed with SIGKILL right after it durably recorded a payment's signed
// transaction and before broadcasting it. After a restart the payment executes exactly once, and
// a retry with the same idempotency key gets the outcome.
import { describe, expect, it } from "vitest";
import { erc20Abi, parseAbiItem, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { fresh } from "./harness.ts";
import { splitDevnet } from "./support/split-devnet.ts";

const { readManifest, startServe } = splitDevnet("relay-crash-");

describe("kill -9 between record and broadcast", () => {
  it("executes the payment exactly once after a restart", async () => {
    const manifest = readManifest();
    const clients = clientsFor(manifest.rpcUrl, manifest.chainId);
    const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex);
    const usdc = manifest.tokens.USDC!.address as Address;
    const to = fresh();
    const intent = { bot: bot.address, to, token: usdc, amount: 7_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const domain = manifest.domain as never;
    const body = paymentRequestBody(domain, intent, await signPaymentIntent(bot, domain, intent), { idempotencyKey: crypto.randomUUID() });

    const first = await startServe({ RELAY_FAULT: "after-record" });
    const send = () => fetch(`${first.url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    await expect(send()).rejects.toThrow();
    const exit = await first.relay.exited;
    expect(exit.signal).toBe("SIGKILL");
    const balance = () => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [to] });
    expect(await balance()).toBe(0n);

    const second = await startServe();
    const retry = await fetch(`${second.url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(retry.status).toBe(200);
    const answer = (await retry.json()) as { status: string; txHash: string; requestId: string };
    expect(answer).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    expect(await balance()).toBe(7_000_000n);

    const events = await clients.publicClient.getLogs({
      address: manifest.contracts.vault as Address,
      event: parseAbiItem("event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)"),
      args: { to },
      fromBlock: 0n,
    });
    expect(events).toHaveLength(1);
    const again = await fetch(`${second.url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(await again.json()).toEqual(answer);
    second.relay.child.kill("SIGTERM");
    expect((await second.relay.exited).code).toBe(0);
  });
});
