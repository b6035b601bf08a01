// ChainRuntime.readAndSimulate on a real devnet: one eth_call (SimulatingLens at the relayer key's
// address by a state override) gives the same snapshots as the deployless lens at that block, and
// each simulation's outcome as if it ran alone from that state.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFunctionResult, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { validateBody } from "../../src/api/validate.ts";
import { paymentRequestBody } from "../../src/client/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../src/client/sign.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import type { PaymentIntent } from "../../src/eip712/types.ts";
import { ChainRuntime, type SnapshotQuery } from "../../src/relayer/chain-runtime.ts";
import { intentHashOf } from "../../src/relayer/checks.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { batchCalldata, executionCalldata, snapshotQuery, vaultAbi } from "../../src/relayer/intents.ts";
import { decodeRevert } from "../../src/relayer/simulate.ts";

describe("ChainRuntime.readAndSimulate", () => {
  let devnet: Devnet;
  let runtime: ChainRuntime;
  let relayer: Address;

  beforeAll(async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), "relay-simlens-"));
    devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
    const config = parseRelayerConfig({ stateDir, chains: [chainFromManifest(devnet.manifest)] });
    runtime = new ChainRuntime(config.chains[0]!, devnet.chain.provider);
    relayer = privateKeyToAccount(devnet.manifest.accounts.relayer.privateKey as Hex).address;
  });
  afterAll(() => devnet?.close());

  async function payment(intent: Partial<PaymentIntent> = {}) {
    const m = devnet.manifest;
    const bot = privateKeyToAccount(m.accounts.bots.default.privateKey as Hex);
    const full: PaymentIntent = {
      bot: bot.address,
      to: "0x000000000000000000000000000000000000dEaD",
      token: m.tokens.USDC!.address as Address,
      amount: 2_000_000n,
      deadline: defaultDeadline(),
      ref: randomRef(),
      ...intent,
    };
    const signature = await signPaymentIntent(bot, m.domain as never, full);
    const request = validateBody("payment", paymentRequestBody(m.domain as never, full, signature, { idempotencyKey: crypto.randomUUID() }));
    const query: SnapshotQuery = snapshotQuery(request, intentHashOf(request, await runtime.domainOf(request.vaultAddress)));
    return { request, query, data: executionCalldata(request), vault: request.vaultAddress };
  }

  it("is available on the devnet, whose calls at latest run at the latest block", async () => {
    expect(await runtime.supportsStateOverride()).toBe(true);
  });

  it("reads the snapshots the deployless lens reads at the block it reports", async () => {
    const [a, b] = await Promise.all([payment(), payment({ amount: 7n })]);
    const { snapshots, outcomes } = await runtime.readAndSimulate([a.query, b.query], []);
    expect(outcomes).toEqual([]);
    expect(snapshots[0]!.blockNumber).toBe(await runtime.latestBlock());
    expect(snapshots).toEqual(await runtime.snapshots([a.query, b.query], snapshots[0]!.blockNumber));
  });

  it("undoes each simulation's effects: the same payment simulated twice passes twice", async () => {
    const p = await payment();
    const call = { from: relayer, to: p.vault, data: p.data };
    const { outcomes } = await runtime.readAndSimulate([p.query], [call, call]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect((await runtime.snapshot(p.query)).intentUsed).toBe(false);
  });

  it("gives a reverting simulation its revert data, and runs each from its own key's address", async () => {
    const [good, tooBig] = await Promise.all([payment(), payment({ amount: 10n ** 30n })]);
    const stranger = privateKeyToAccount(`0x${"5a".repeat(32)}`).address;
    const { outcomes } = await runtime.readAndSimulate(
      [good.query],
      [
        { from: relayer, to: tooBig.vault, data: tooBig.data },
        { from: stranger, to: good.vault, data: good.data },
        { from: relayer, to: good.vault, data: batchCalldata([good.request, tooBig.request]) },
      ],
    );
    expect(outcomes[0]!.ok).toBe(false);
    expect(decodeRevert(outcomes[0]!.result)).toMatch(/^ExceedsPerTxLimit\(/);
    expect(outcomes[1]!.ok).toBe(false);
    expect(decodeRevert(outcomes[1]!.result)).toBe("NotAuthorizedRelayer()");
    expect(outcomes[2]!.ok).toBe(true);
    expect(decodeFunctionResult({ abi: vaultAbi, functionName: "executePaymentBatch", data: outcomes[2]!.result })).toEqual([true, false]);
  });
});
