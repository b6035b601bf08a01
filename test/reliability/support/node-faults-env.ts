// The environment of the node-fault tests: `relay devnet` as one real process, a fault proxy in
// front of its JSON-RPC, and `relay serve --config` as another real process whose only way to the
// chain is the proxy. The test itself reads and steers the chain directly (not through the proxy).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { erc20Abi, keccak256, parseAbiItem, parseTransaction, type Address, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { clientsFor, type Clients } from "../../../src/chain/clients.ts";
import type { Manifest } from "../../../src/devnet/manifest.ts";
import { chainFromManifest, type RelayerConfigInput } from "../../../src/relayer/config.ts";
import { paymentRequestBody } from "../../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../../packages/client/src/sign.ts";
import { spawnRelay, type SpawnedRelay } from "../../helpers/cli.ts";
import { startRpcProxy, type RpcProxy, type SeenCall } from "./rpc-proxy.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

/** Relayer settings for one `relay serve` process (merged into its config file). */
export interface RelaySettings {
  rpcTimeoutMs?: number;
  inFlight?: RelayerConfigInput["inFlight"];
}

export interface FaultEnv {
  stateDir: string;
  manifest: Manifest;
  /** Clients straight to the devnet (not through the proxy). */
  chain: Clients;
  proxy: RpcProxy;
  bot: PrivateKeyAccount;
  relayerAddress: Address;
  /** The running relayer's base URL. */
  url: string;
  /** Starts `relay serve` (stopping a running one first) with `settings`. */
  startRelay(settings: RelaySettings): Promise<void>;
  stopRelay(): Promise<void>;
  /** A raw JSON-RPC call straight to the devnet (evm_mine, hardhat_dropTransaction, ...). */
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

export async function startFaultEnv(): Promise<FaultEnv> {
  const stateDir = tempDir("relay-node-faults-");
  const devnet = spawnRelay(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
  await devnet.waitFor(/relay: ready/);
  const manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
  const proxy = await startRpcProxy(manifest.rpcUrl);
  let relay: SpawnedRelay | undefined;

  const env: FaultEnv = {
    stateDir,
    manifest,
    chain: clientsFor(manifest.rpcUrl, manifest.chainId),
    proxy,
    bot: privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex),
    relayerAddress: privateKeyToAccount(manifest.accounts.relayer.privateKey as Hex).address,
    url: "",
    async startRelay(settings) {
      await env.stopRelay();
      const file = path.join(stateDir, "relay-config.json");
      const chain = { ...chainFromManifest(manifest, proxy.url, true), ...(settings.rpcTimeoutMs ? { rpcTimeoutMs: settings.rpcTimeoutMs } : {}) };
      writeFileSync(file, JSON.stringify({ chains: [chain], ...(settings.inFlight ? { inFlight: settings.inFlight } : {}) }));
      relay = spawnRelay(["serve", "--config", file, "--port", "0", "--state-dir", stateDir]);
      await relay.waitFor(/relay: ready/);
      env.url = /relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(relay.output.stderr)![1]!;
    },
    async stopRelay() {
      if (!relay) return;
      const running = relay;
      relay = undefined;
      if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill("SIGTERM");
      await running.exited;
    },
    async rpc(method, params = []) {
      const res = await fetch(manifest.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await res.json()) as { result?: unknown; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result;
    },
    async close() {
      await env.stopRelay();
      await proxy.close();
      if (devnet.child.exitCode === null && devnet.child.signalCode === null) devnet.child.kill("SIGTERM");
      await devnet.exited;
    },
  };
  return env;
}

/** A signed payment body: `amount` of the devnet's USDC from the vault to `to`, under a new idempotency key. */
export async function paymentTo(env: FaultEnv, to: Address, amount: bigint): Promise<Record<string, unknown>> {
  const domain = env.manifest.domain as never;
  const intent = { bot: env.bot.address, to, token: usdcOf(env), amount, deadline: defaultDeadline(), ref: randomRef() };
  return paymentRequestBody(domain, intent, await signPaymentIntent(env.bot, domain, intent), { idempotencyKey: crypto.randomUUID() }) as never;
}

/** POSTs a payment body to the relayer; status, parsed body and raw text. */
export async function postPayment(env: FaultEnv, body: unknown): Promise<{ status: number; text: string; body: Record<string, any> }> {
  const res = await fetch(`${env.url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any> };
}

export function usdcOf(env: FaultEnv): Address {
  return env.manifest.tokens.USDC!.address as Address;
}

export function balanceOf(env: FaultEnv, who: Address): Promise<bigint> {
  return env.chain.publicClient.readContract({ address: usdcOf(env), abi: erc20Abi, functionName: "balanceOf", args: [who] });
}

/** The vault's PaymentExecuted events paying `to`: one per execution. */
export async function executionsTo(env: FaultEnv, to: Address): Promise<unknown[]> {
  return env.chain.publicClient.getLogs({
    address: env.manifest.contracts.vault as Address,
    event: parseAbiItem("event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)"),
    args: { to },
    fromBlock: 0n,
  });
}

/** The relayer key's mined nonce (transactions it has in blocks). */
export async function minedNonce(env: FaultEnv): Promise<number> {
  return env.chain.publicClient.getTransactionCount({ address: env.relayerAddress, blockTag: "latest" });
}

/** A raw transaction the relayer sent through the proxy, decoded. */
export interface SentTx {
  hash: Hex;
  raw: Hex;
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  call: SeenCall;
}

/** The eth_sendRawTransaction calls the proxy has seen since index `from` of its log. */
export function sentSince(env: FaultEnv, from: number): SentTx[] {
  return env.proxy.seen.slice(from).filter((c) => c.method === "eth_sendRawTransaction").map((call) => {
    const raw = call.params[0] as Hex;
    const tx = parseTransaction(raw);
    return { hash: keccak256(raw), raw, nonce: tx.nonce!, maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas!, call };
  });
}

/** Polls `check` every 25 ms until it returns a value other than undefined (20 s at most). */
export async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
