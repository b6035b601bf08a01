// Coalesced reads against a real devnet: requests that queue behind a running read go together (one
// call with state overrides; or, on a node without them, one lens call and one batch simulation per
// vault), each still gets exactly what it would get alone (its snapshot, its own simulation outcome
// and revert reason), and one bad query harms no other. Both ways are tested: the second through a
// provider that refuses eth_call state overrides as such nodes do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAbiItem, toFunctionSelector, type AbiFunction, type Address, type EIP1193Provider, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { validateBody, type PaymentRequest } from "../../src/api/validate.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { ChainRuntime, type SnapshotQuery } from "../../src/relayer/chain/chain-runtime.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { vaultAbi } from "../../src/relayer/chain/intents.ts";
import { executionCalldata, snapshotQuery } from "../../src/relayer/kinds/index.ts";
import { ReadBatcher } from "../../src/relayer/chain/read-batcher.ts";
import { intentHashOf } from "../../src/relayer/intake/checks.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const batchSelector = toFunctionSelector(getAbiItem({ abi: vaultAbi, name: "executePaymentBatch" }) as AbiFunction);

describe.each([
  { mode: "one call with state overrides", overrides: true },
  { mode: "a node without state overrides", overrides: false },
])("ReadBatcher, $mode", ({ overrides }) => {
  let devnet: Devnet;
  let runtime: ChainRuntime;
  let relayer: Address;
  const calls = { combined: 0, lens: 0, batch: 0, single: 0 };

  beforeAll(async () => {
    const stateDir = tempDir("relay-reads-");
    devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
    const inner = devnet.chain.provider as EIP1193Provider;
    // Counts the eth_calls the batcher makes; everything goes to the real chain unchanged, except
    // that without `overrides` a call with a state override is refused, as such a node does.
    const counting = {
      ...inner,
      request: async (args: { method: string; params?: unknown }) => {
        if (args.method === "eth_call") {
          const params = args.params as [{ to?: string; data?: string }, unknown, unknown?];
          const call = params[0];
          if (params[2] !== undefined) {
            if (!overrides) throw Object.assign(new Error("invalid argument 2: state overrides are not supported"), { code: -32602 });
            calls.combined++;
          } else if (!call.to) calls.lens++;
          else if (call.data?.startsWith(batchSelector)) calls.batch++;
          else calls.single++;
        }
        return inner.request(args as never);
      },
    } as EIP1193Provider;
    const config = parseRelayerConfig({ stateDir, chains: [chainFromManifest(devnet.manifest)] });
    runtime = new ChainRuntime(config.chains[0]!, counting);
    relayer = privateKeyToAccount(devnet.manifest.accounts.relayer.privateKey as Hex).address;
    expect(await runtime.supportsStateOverride()).toBe(overrides);
    // The runtime asks once which lens code to place (src/relayer/chain/lens-code.ts): asked here, so
    // that the counts below are the batcher's own calls.
    if (overrides) await runtime.readAndSimulate([], []);
  });
  afterAll(() => devnet?.close());

  const m = () => devnet.manifest;
  const usdc = () => m().tokens.USDC!.address as Address;
  const reset = () => Object.assign(calls, { combined: 0, lens: 0, batch: 0, single: 0 });

  async function payment(intent: Partial<PaymentIntent> = {}): Promise<{ request: PaymentRequest; query: SnapshotQuery; data: Hex }> {
    const bot = privateKeyToAccount(m().accounts.bots.default.privateKey as Hex);
    const full: PaymentIntent = {
      bot: bot.address,
      to: "0x000000000000000000000000000000000000dEaD",
      token: usdc(),
      amount: 1_000_000n,
      deadline: defaultDeadline(),
      ref: randomRef(),
      ...intent,
    };
    const signature = await signPaymentIntent(bot, m().domain as never, full);
    const request = validateBody("payment", paymentRequestBody(m().domain as never, full, signature, { idempotencyKey: crypto.randomUUID() }));
    const domain = await runtime.domainOf(request.vaultAddress);
    return { request, query: snapshotQuery(request, intentHashOf(request, domain)), data: executionCalldata(request) };
  }

  const batcher = () => new ReadBatcher(runtime, () => relayer, { maxBatch: 64 });

  it("reads the first request at once and the ones queued behind it together", async () => {
    const reads = batcher();
    const payments = await Promise.all(Array.from({ length: 5 }, () => payment()));
    reset();
    const results = await Promise.all(payments.map((p) => reads.read(p.query, { request: p.request, data: p.data })));
    // The first went alone (lens + its own simulation); the other four as one group.
    if (overrides) expect(calls).toEqual({ combined: 2, lens: 0, batch: 0, single: 0 });
    else expect(calls).toEqual({ combined: 0, lens: 2, batch: 1, single: 1 });
    for (const [i, r] of results.entries()) {
      expect(r.snapshot.isVault).toBe(true);
      expect(r.snapshot.intentUsed).toBe(false);
      expect(r.snapshot.usdValue).toBe(1_000_000n);
      expect(r.snapshot.blockNumber).toBe(r.blockNumber);
      await expect(r.simulation).resolves.toEqual({ success: true });
      // Same snapshot as reading it alone at the same block.
      expect(await runtime.snapshot(payments[i]!.query, r.blockNumber)).toEqual(r.snapshot);
    }
  });

  it("reads a large group in calls of at most 12 requests, each request as it reads alone", async () => {
    const reads = batcher();
    const payments = await Promise.all(Array.from({ length: 30 }, () => payment({ amount: 10_000n })));
    reset();
    const results = await Promise.all(payments.map((p) => reads.read(p.query, { request: p.request, data: p.data })));
    // The first alone, then 29 together: three calls of up to 12 (one lens call per 12 queries without overrides).
    if (overrides) expect(calls).toEqual({ combined: 4, lens: 0, batch: 0, single: 0 });
    else expect(calls).toEqual({ combined: 0, lens: 4, batch: 1, single: 1 });
    for (const [i, r] of results.entries()) {
      await expect(r.simulation).resolves.toEqual({ success: true });
      expect(await runtime.snapshot(payments[i]!.query, r.blockNumber)).toEqual(r.snapshot);
    }
  });

  it("gives a payment that fails inside a group its own SIMULATION_FAILED and reason; the others pass", async () => {
    const reads = batcher();
    const [first, ...rest] = await Promise.all([payment(), payment(), payment({ amount: 10n ** 30n }), payment()]);
    const all = [first!, ...rest];
    const results = await Promise.all(all.map((p) => reads.read(p.query, { request: p.request, data: p.data })));
    await expect(results[0]!.simulation).resolves.toEqual({ success: true });
    await expect(results[1]!.simulation).resolves.toEqual({ success: true });
    await expect(results[3]!.simulation).resolves.toEqual({ success: true });
    const failed = await results[2]!.simulation!.then(() => undefined, (error: unknown) => error as { code: string; details?: string });
    expect(failed?.code).toBe("SIMULATION_FAILED");
    expect(failed?.details).toMatch(/^ExceedsPerTxLimit\(/); // the vault's own revert, decoded
  });

  it("reads a group again query by query when the lens call fails: only the bad query fails", async () => {
    const reads = batcher();
    const good = await Promise.all([payment(), payment(), payment()]);
    // Two tokens and one amount: the lens reverts (index out of bounds) on this query.
    const bad: SnapshotQuery = { ...good[1]!.query, tokens: [usdc(), usdc()], amounts: [1n] };
    const [a, b, c, d] = await Promise.all([
      reads.read(good[0]!.query),
      reads.read(good[1]!.query),
      reads.read(bad),
      reads.read(good[2]!.query),
    ].map((p) => p.then((r) => ({ ok: true as const, r }), (error: unknown) => ({ ok: false as const, error }))));
    expect([a!.ok, b!.ok, c!.ok, d!.ok]).toEqual([true, true, false, true]);
  });

  it("ChainRuntime.snapshots: 30 queries of two bots (three lens calls) read exactly what each query reads alone", async () => {
    const reviewed = privateKeyToAccount(m().accounts.bots.reviewed.privateKey as Hex).address;
    const queries: SnapshotQuery[] = [];
    for (let i = 0; i < 30; i++) {
      const { query } = await payment({ amount: BigInt(i + 1) * 1000n });
      queries.push(i % 3 === 0 ? { ...query, bot: reviewed } : query);
    }
    const block = await runtime.latestBlock();
    reset();
    const together = await runtime.snapshots(queries, block);
    expect(calls.lens).toBe(3);
    const alone = await Promise.all(queries.map((q) => runtime.snapshot(q, block)));
    expect(together).toEqual(alone);
    expect(new Set(together.map((s) => s.config.requireHumanReview))).toEqual(new Set([true, false]));
  });

  it("answers a node that cannot be reached with RPC_ERROR for every request of the group", async () => {
    const config = parseRelayerConfig({ stateDir: "unused", chains: [{ ...chainFromManifest(m()), rpcUrl: "http://127.0.0.1:9", rpcTimeoutMs: 2000 }] });
    const down = new ReadBatcher(new ChainRuntime(config.chains[0]!), () => relayer, { maxBatch: 64 });
    const p = await payment();
    const outcomes = await Promise.all([down.read(p.query), down.read(p.query)].map((x) => x.then(() => "ok", (e: { code?: string }) => e.code)));
    expect(outcomes).toEqual(["RPC_ERROR", "RPC_ERROR"]);
  });
});
