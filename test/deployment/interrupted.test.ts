// A request a dead instance recorded but never signed: two `relay serve` processes on one
// PostgreSQL ledger, behind nginx. While the relayer key's lease is held elsewhere (a holder this
// test plays), each instance receives a payment and records it (`received`, waiting for the key).
// kill -9 of one instance: once its heartbeat expires, the survivor settles the dead instance's
// request with the restart rule (rejected internally, key freed), and leaves its own, live request
// alone. A same-key retry through the proxy then runs afresh and executes once; a second retry
// gets that answer byte for byte. Read from the chain: each intent executed exactly once, nothing
// signed while the key was held elsewhere, nonces contiguous.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { parseAbiItem, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { PostgresKeyLeases, type KeyLease } from "../../src/ledger/postgres/index.ts";
import { startCluster, type Cluster } from "../support/cluster.ts";
import { balanceOf, fresh, get, paymentBody, post, type Env } from "../relayer/harness.ts";

const LEASE_TTL_MS = 1_500;
const paymentExecuted = parseAbiItem("event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)");

let devnetDir: string;
let devnet: Devnet;
let cluster: Cluster;
let pool: pg.Pool;
let env: Env;
let stopRenewing = () => {};

beforeAll(async () => {
  devnetDir = mkdtempSync(path.join(tmpdir(), "relay-interrupted-"));
  devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir: devnetDir });
  cluster = await startCluster({ devnet, instances: 2, serveArgs: ["--lease-ttl-ms", String(LEASE_TTL_MS)] });
  pool = new pg.Pool({ connectionString: cluster.databaseUrl });
  const m = devnet.manifest;
  env = {
    manifest: m,
    clients: clientsFor(devnet.chain.provider, m.chainId),
    bot: privateKeyToAccount(m.accounts.bots.default.privateKey as Hex),
    token: (symbol: string) => m.tokens[symbol]!.address as Address,
  } as unknown as Env;
}, 240_000);
afterAll(async () => {
  stopRenewing();
  await pool?.end();
  await cluster?.stop();
  await devnet?.close();
  rmSync(devnetDir, { recursive: true, force: true });
});

const rows = async (text: string, values: unknown[] = []) => (await pool.query(text, values)).rows;
const requestOf = async (key: string) => (await rows("SELECT id, status, reason, instance, intent_hash FROM requests WHERE idempotency_key = $1 ORDER BY seq", [key])) as { id: string; status: string; reason: string | null; instance: string; intent_hash: string }[];
async function until<T>(what: string, read: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a dead instance's recorded, unsigned request", () => {
  it("is settled by the survivor once the dead instance's heartbeat expires; the live instance's is not; a same-key retry executes it once", async () => {
    const m = devnet.manifest;
    const relayer = m.accounts.relayer.address as Address;
    const nonceBefore = await env.clients.publicClient.getTransactionCount({ address: relayer, blockTag: "latest" });
    const fromBlock = await env.clients.publicClient.getBlockNumber();

    // The relayer key's lease is held by a live holder that never signs: every payment waits for it.
    const blocker = new PostgresKeyLeases(pool, "a-holder-that-never-signs");
    const lease = await until("the key's lease", () => blocker.acquire(m.chainId, relayer, 60_000));
    let held: KeyLease | undefined = lease;
    const renewing = setInterval(() => void blocker.renew(lease, 60_000).then((l) => (held = l), () => {}), 1_000);
    stopRenewing = () => clearInterval(renewing);

    const [victim, survivor] = cluster.instances as [Cluster["instances"][number], Cluster["instances"][number]];
    const ids = await Promise.all([victim, survivor].map(async (i) => (await get(`${i.url}/readyz`)).body.instance as string));
    expect(new Set(ids).size).toBe(2);

    const toDead = fresh();
    const toLive = fresh();
    const deadBody = await paymentBody(env, { to: toDead, amount: 1_000_000n });
    const liveBody = await paymentBody(env, { to: toLive, amount: 2_000_000n });
    const deadKey = deadBody.idempotencyKey;
    const liveKey = liveBody.idempotencyKey;
    const deadAnswer = post(`${victim.url}/v1/payments`, deadBody).catch((error: Error) => error);
    const liveAnswer = post(`${survivor.url}/v1/payments`, liveBody);

    // Both are recorded by the instance that received them, and wait for the key.
    const dead = await until("the victim's request", async () => (await requestOf(deadKey))[0]);
    const live = await until("the survivor's request", async () => (await requestOf(liveKey))[0]);
    expect(dead).toMatchObject({ status: "received", instance: ids[0] });
    expect(live).toMatchObject({ status: "received", instance: ids[1] });

    await victim.kill("SIGKILL");
    expect(await deadAnswer).toBeInstanceOf(Error); // its client never got an answer

    // The survivor settles the dead instance's request once its heartbeat has expired…
    const settled = await until("the dead instance's request to be settled", async () => {
      const [r] = await requestOf(deadKey);
      return r!.status === "received" ? undefined : r;
    });
    expect(settled).toMatchObject({ status: "rejected", reason: "not executed: interrupted by a relayer restart" });
    // …and leaves its own live request alone, across further passes.
    await new Promise((r) => setTimeout(r, 6_000));
    expect((await requestOf(liveKey))[0]).toMatchObject({ status: "received", instance: ids[1] });
    // Nothing was signed while the key was held elsewhere.
    expect(await env.clients.publicClient.getTransactionCount({ address: relayer, blockTag: "latest" })).toBe(nonceBefore);

    // The holder goes away: the live request goes on and executes.
    clearInterval(renewing);
    if (held) await blocker.release(held);
    const liveDone = await liveAnswer;
    expect(liveDone.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });

    // A same-key retry of the dead instance's request, through the proxy: it runs afresh, once.
    const retry = await post(`${cluster.url}/v1/payments`, deadBody);
    expect(retry.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    const again = await post(`${cluster.url}/v1/payments`, deadBody);
    expect(again.text).toBe(retry.text);
    expect((await post(`${cluster.url}/v1/payments`, liveBody)).text).toBe(liveDone.text);

    // The chain: each intent executed exactly once, to its payee; the key's nonces contiguous.
    expect(await balanceOf(env, env.token("USDC"), toDead)).toBe(1_000_000n);
    expect(await balanceOf(env, env.token("USDC"), toLive)).toBe(2_000_000n);
    const logs = await env.clients.publicClient.getLogs({ event: paymentExecuted, fromBlock: fromBlock + 1n });
    const executed = logs.map((l) => l.args.intentHash!.toLowerCase());
    expect(executed.filter((h) => h === dead!.intent_hash)).toHaveLength(1);
    expect(executed.filter((h) => h === live!.intent_hash)).toHaveLength(1);
    const txs = new Set([retry.body.txHash as Hex, liveDone.body.txHash as Hex]);
    const nonces = await Promise.all([...txs].map(async (hash) => (await env.clients.publicClient.getTransaction({ hash })).nonce));
    const nonceAfter = await env.clients.publicClient.getTransactionCount({ address: relayer, blockTag: "latest" });
    expect(nonces.sort((a, b) => a - b)).toEqual(Array.from({ length: nonceAfter - nonceBefore }, (_, i) => nonceBefore + i));
  }, 180_000);
});
