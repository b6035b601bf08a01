// Real processes for the crash and shutdown tests: `relay devnet` in one process and
// `relay serve --rpc-url` in others (restartable on their own, optionally with RELAY_FAULT set),
// plus what the tests check against: signed payment bodies, POST/GET over HTTP, the vault's
// PaymentExecuted events, recipients' balances and the relayer's ledger file read directly.
import { readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { erc20Abi, parseAbiItem, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { clientsFor, type Clients } from "../../../src/chain/clients.ts";
import type { Manifest } from "../../../src/devnet/manifest.ts";
import { ledgerPath } from "../../../src/ledger/index.ts";
import { paymentRequestBody } from "../../../packages/client/src/bodies.ts";
import type { PaymentRequestBody } from "../../../packages/client/src/types.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../../packages/client/src/sign.ts";
import { spawnRelay, type SpawnedRelay } from "../../helpers/cli.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

export const paymentExecuted = parseAbiItem(
  "event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)",
);

export interface Served {
  relay: SpawnedRelay;
  url: string;
}

/** A devnet process and its state directory; relayers started from it share the directory. */
export interface CrashEnv {
  stateDir: string;
  devnet: SpawnedRelay;
  manifest: Manifest;
  clients: Clients;
  bot: PrivateKeyAccount;
  vault: Address;
  usdc: Address;
  /** `relay serve --rpc-url` on a free port; resolves once it says it is ready. */
  serve(env?: Record<string, string>): Promise<Served>;
  /** SIGTERM to every process still running (relayers first, then the devnet). */
  stop(): Promise<void>;
}

export async function startCrashEnv(prefix: string): Promise<CrashEnv> {
  const stateDir = tempDir(prefix);
  const devnet = spawnRelay(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
  await devnet.waitFor(/relay: ready/);
  const manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
  const started: SpawnedRelay[] = [];
  return {
    stateDir,
    devnet,
    manifest,
    clients: clientsFor(manifest.rpcUrl, manifest.chainId),
    bot: privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex),
    vault: manifest.contracts.vault as Address,
    usdc: manifest.tokens.USDC!.address as Address,
    async serve(env = {}) {
      const relay = spawnRelay(["serve", "--rpc-url", manifest.rpcUrl, "--port", "0", "--state-dir", stateDir], env);
      started.push(relay);
      await relay.waitFor(/relay: ready/);
      const url = /relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(relay.output.stderr)![1]!;
      return { relay, url };
    },
    async stop() {
      for (const p of [...started, devnet]) {
        if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
        p.child.kill("SIGTERM");
        await p.exited;
      }
    },
  };
}

/** A fresh address no one holds funds at. */
export function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** A payment body signed by the default bot, with a fresh idempotency key. */
export async function signedPayment(env: CrashEnv, to: Address, amount: bigint): Promise<PaymentRequestBody> {
  const intent = { bot: env.bot.address, to, token: env.usdc, amount, deadline: defaultDeadline(), ref: randomRef() };
  const domain = env.manifest.domain as never;
  const signature = await signPaymentIntent(env.bot, domain, intent);
  return paymentRequestBody(domain, intent, signature, { idempotencyKey: crypto.randomUUID() });
}

export interface Answer {
  status: number;
  text: string;
  body: Record<string, any>;
}

/** POST /v1/payments; a refused or dropped connection rejects. */
export async function postPayment(url: string, body: PaymentRequestBody): Promise<Answer> {
  const res = await fetch(`${url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

/** POST /v1/payments as a well-behaved client: a 429 is retried after its Retry-After. */
export async function postPaymentPolitely(url: string, body: PaymentRequestBody): Promise<Answer> {
  for (;;) {
    const res = await fetch(`${url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 429) return { status: res.status, text, body: JSON.parse(text) };
    await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 1) * 1000));
  }
}

/** Maps `items` through `fn` with at most `limit` calls under way at once; results in order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** GET /v1/payments/:id */
export async function getPayment(url: string, requestId: string): Promise<Answer> {
  const res = await fetch(`${url}/v1/payments/${requestId}`);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

/** The vault's PaymentExecuted events (to one recipient, if given) since `fromBlock`. */
export function executedEvents(env: CrashEnv, options: { to?: Address; fromBlock?: bigint } = {}) {
  return env.clients.publicClient.getLogs({
    address: env.vault,
    event: paymentExecuted,
    args: options.to ? { to: options.to } : {},
    fromBlock: options.fromBlock ?? 0n,
    toBlock: "latest",
  });
}

export function usdcBalance(env: CrashEnv, who: Address): Promise<bigint> {
  return env.clients.publicClient.readContract({ address: env.usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
}

/** Payment requests in the relayer's ledger, counted by status (read straight from the file). */
export function ledgerStatusCounts(stateDir: string): Record<string, number> {
  const db = new DatabaseSync(ledgerPath(stateDir), { readOnly: true });
  try {
    const rows = db.prepare("SELECT status, count(*) AS n FROM requests WHERE kind = 'payment' GROUP BY status").all() as Array<{ status: string; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  } finally {
    db.close();
  }
}
