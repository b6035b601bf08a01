// A submitter test's setting on anvil: `relay deploy` onto a fresh anvil, then `relay serve` as its
// own process reaching the node through the recording proxy of the node-fault tests (every call it
// makes is seen, and a method can be held back or failed). The test reads the chain straight from
// anvil. Each test file calls proxiedAnvil() once at the top of its describe.
import { afterAll, beforeAll } from "vitest";
import { erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor, type Clients } from "../../../src/chain/clients.ts";
import type { Manifest } from "../../../src/devnet/manifest.ts";
import { paymentRequestBody } from "../../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../../packages/client/src/sign.ts";
import { startRelayProcess, type RelayProcess } from "../../../bench/support/relay-process.ts";
import { startAnvil, type Anvil } from "../../support/anvil.ts";
import { startRpcProxy, type RpcProxy } from "../../reliability/support/rpc-proxy.ts";

export interface ProxiedAnvil {
  anvil: Anvil;
  proxy: RpcProxy;
  relay: RelayProcess;
  manifest: Manifest;
  /** Clients of anvil itself (not through the proxy). */
  chain: Clients;
  /** POST /v1/payments of the default bot paying `amount` of USDC to `to`: the status, the answer, and how long it took (ms). */
  pay(to: Address, amount: bigint): Promise<{ status: number; body: Record<string, any>; ms: number }>;
  /** `who`'s USDC balance on the chain. */
  balance(who: Address): Promise<bigint>;
}

/** Starts the setting before the describe's tests and stops it after them; its parts are there once they start. */
export function proxiedAnvil(): ProxiedAnvil {
  const env = {} as ProxiedAnvil;
  beforeAll(async () => {
    env.anvil = await startAnvil();
    env.proxy = await startRpcProxy(env.anvil.url);
    env.relay = await startRelayProcess({ rpcUrl: env.anvil.url, serveRpcUrl: env.proxy.url });
    env.manifest = env.relay.manifest;
    env.chain = clientsFor(env.anvil.url, env.manifest.chainId);
  }, 180_000);
  afterAll(async () => {
    await env.relay?.stop();
    await env.proxy?.close();
    await env.anvil?.stop();
  });
  const usdc = () => env.manifest.tokens.USDC!.address as Address;
  env.pay = async (to, amount) => {
    const bot = privateKeyToAccount(env.manifest.accounts.bots.default.privateKey as Hex);
    const domain = env.manifest.domain as never;
    const intent = { bot: bot.address, to, token: usdc(), amount, deadline: defaultDeadline(), ref: randomRef() };
    const body = JSON.stringify(paymentRequestBody(domain, intent, await signPaymentIntent(bot, domain, intent), { idempotencyKey: crypto.randomUUID() }));
    const started = performance.now();
    const res = await fetch(`${env.relay.url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const answer = (await res.json()) as Record<string, any>;
    return { status: res.status, body: answer, ms: performance.now() - started };
  };
  env.balance = (who) => env.chain.publicClient.readContract({ address: usdc(), abi: erc20Abi, functionName: "balanceOf", args: [who] });
  return env;
}
