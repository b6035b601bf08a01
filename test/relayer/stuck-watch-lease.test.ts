// Fee bumps and key leases (several instances on one PostgreSQL database): a replacement uses the
// key's nonce, so only the instance holding the key's lease may sign one, and it is filed under
// the lease's fencing token. Against an in-process chain that mines only when told, a stuck
// transaction: the holder bumps it (the control); an instance while another holds the lease signs
// nothing; an instance whose lease passed to another without it noticing yet files nothing and
// broadcasts nothing. The node's pool is read to prove what was (not) sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, type Hex } from "viem";
import type pg from "pg";
import { startChain, type LocalChain } from "../../src/chain/hardhat.ts";
import { transactionSigner } from "../../src/crypto/sign-transaction.ts";
import { devRoles } from "../../src/devnet/accounts.ts";
import { openPostgresPool, PostgresKeyLeases, PostgresStore } from "../../src/ledger/postgres/index.ts";
import { ChainRuntime } from "../../src/relayer/chain/chain-runtime.ts";
import { parseRelayerConfig } from "../../src/relayer/config.ts";
import { Dispatcher } from "../../src/relayer/submit/dispatcher.ts";
import { KeyLeaseGate } from "../../src/relayer/submit/key-lease.ts";
import { StuckWatch } from "../../src/relayer/submit/stuck-watch.ts";
import { startPostgres, type PostgresServer } from "../support/postgres.ts";
import { newRequest } from "../ledger/support.ts";

const roles = devRoles();
const relayerKey = roles.relayer.privateKey as Hex;
const relayerAddress = roles.relayer.address;
const sign = transactionSigner(relayerKey);
const CHAIN_ID = 84532;

describe("StuckWatch with key leases", () => {
  let chain: LocalChain;
  let runtime: ChainRuntime;
  let postgres: PostgresServer;
  let pool: pg.Pool;
  let store: PostgresStore;
  const gates: KeyLeaseGate[] = [];

  beforeAll(async () => {
    chain = await startChain({ chainId: CHAIN_ID });
    await rpc("evm_setAutomine", [false]);
    const config = parseRelayerConfig({
      stateDir: "unused",
      chains: [{ chainId: CHAIN_ID, rpcUrl: "http://127.0.0.1:1", registry: relayerAddress, factory: relayerAddress, relayerKeys: [relayerKey] }],
    });
    runtime = new ChainRuntime(config.chains[0]!, chain.provider);
    postgres = await startPostgres();
    pool = await openPostgresPool(await postgres.newDatabase());
    store = new PostgresStore(pool, { now: Date.now, chainNow: () => Date.now(), latestNow: Date.now });
  }, 120_000);
  afterAll(async () => {
    for (const gate of gates) await gate.letGo();
    await store?.close();
    await postgres?.stop();
    await chain?.close();
  });

  const rpc = (method: string, params: unknown[] = []) => chain.provider.request({ method, params } as never) as Promise<unknown>;
  const inPool = async (hash: string) => (await rpc("eth_getTransactionByHash", [hash])) !== null;

  /** The stuck watch of one instance (its own name in the key leases), with that instance's lease of the key. */
  function instance(name: string): { watch: StuckWatch; gate: KeyLeaseGate } {
    const chains = new Map([[CHAIN_ID, runtime]]);
    const gate = new KeyLeaseGate(new PostgresKeyLeases(pool, name), CHAIN_ID, relayerAddress, { ttlMs: 60_000, waitMs: 1_000, onTakeover: async () => {} });
    gates.push(gate);
    const dispatcher = new Dispatcher(chains, store, { maxBatch: 1, gatherMs: 0, leaseFor: () => gate });
    const watch = new StuckWatch(store, chains, { replaceAfterMs: 1, feeBumpPercent: 20, maxReplacements: 5 }, () => {}, (c, s) => dispatcher.signingRight(c, s));
    return { watch, gate };
  }

  it("only the lease holder signs a replacement; another instance, or one whose lease passed on, signs and sends nothing", async () => {
    // A submitted transaction that cannot mine: the next blocks' base fee far above its fee cap.
    const nonce = BigInt((await rpc("eth_getTransactionCount", [relayerAddress, "pending"])) as string);
    const raw = sign({ type: "eip1559", chainId: CHAIN_ID, nonce: Number(nonce), to: roles.owner.address as Hex, value: 1n, gas: 21_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
    const hash = keccak256(raw);
    const request = await store.createRequest(newRequest());
    expect((await store.recordSubmission(request.id, { signer: relayerAddress, nonce, txHash: hash, rawTx: raw, chainPendingNonce: nonce })).ok).toBe(true);
    await rpc("eth_sendRawTransaction", [raw]);
    await store.transition(request.id, ["submitting"], "submitted");
    await rpc("hardhat_setNextBlockBaseFeePerGas", ["0x174876e800"]); // 100 gwei
    await rpc("evm_mine");

    const a = instance("instance-a");
    const b = instance("instance-b");

    // The control: A takes the free lease and bumps; the replacement displaces the original in the pool.
    await new Promise((r) => setTimeout(r, 5));
    expect(await a.watch.check()).toEqual({ rebroadcast: 0, replaced: 1 });
    expect(a.gate.held).toBe(true);
    const [bump] = await store.replacementsOf(hash);
    expect(bump).toBeDefined();
    expect(await inPool(bump!.txHash)).toBe(true);

    // B while A holds the lease: no replacement.
    await new Promise((r) => setTimeout(r, 5));
    expect(await b.watch.check()).toEqual({ rebroadcast: 0, replaced: 0 });
    expect(b.gate.held).toBe(false);
    expect(await store.replacementsOf(hash)).toHaveLength(1);
    expect(await inPool(bump!.txHash)).toBe(true);

    // The lease passes to another instance (a larger token) before A's next renewal tells it: A
    // still believes it holds the key, signs, but the store refuses the stale token. Nothing is
    // filed and nothing broadcast: A's last version is still the one in the node's pool.
    await pool.query("UPDATE key_leases SET holder = 'instance-c', token = token + 1, expires_at = expires_at + 60000 WHERE chain_id = $1 AND signer = $2", [CHAIN_ID, relayerAddress.toLowerCase()]);
    expect(a.gate.held).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(await a.watch.check()).toEqual({ rebroadcast: 0, replaced: 0 });
    expect(await store.replacementsOf(hash)).toHaveLength(1);
    expect(await inPool(bump!.txHash)).toBe(true);
    expect(BigInt((await rpc("eth_getTransactionCount", [relayerAddress, "pending"])) as string)).toBe(nonce + 1n);
  });
});
