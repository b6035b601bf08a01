// The stuck-transaction watch on its own, against an in-process chain that mines only when told:
// what it leaves alone (a mined version, a nonce someone else used), how far it bumps fees, and
// its cap on replacements, and that a rejection's on-chain cancel stuck under a low fee is bumped as a
// request's transaction is. The end-to-end cases are in test/reliability/stuck-transactions.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, parseEther, parseTransaction, toHex, type Hex } from "viem";
import { startChain, type LocalChain } from "../../src/chain/hardhat.ts";
import { transactionSigner } from "../../src/crypto/sign-transaction.ts";
import { devRoles } from "../../src/devnet/accounts.ts";
import type { Ledger } from "../../src/ledger/index.ts";
import { ChainRuntime } from "../../src/relayer/chain/chain-runtime.ts";
import { parseRelayerConfig } from "../../src/relayer/config.ts";
import { hashesOf, receiptOfAny, StuckWatch, type StuckWatchSettings } from "../../src/relayer/submit/stuck-watch.ts";
import { newRequest, open, tempDir } from "../ledger/support.ts";

const roles = devRoles();
const relayerKey = roles.relayer.privateKey as Hex;
const relayerAddress = roles.relayer.address;
const sign = transactionSigner(relayerKey);

describe("StuckWatch", () => {
  let chain: LocalChain;
  let runtime: ChainRuntime;

  beforeAll(async () => {
    chain = await startChain({ chainId: 84532 });
    await rpc("evm_setAutomine", [false]);
    const config = parseRelayerConfig({
      stateDir: "unused", // the watch never touches the state directory
      chains: [{ chainId: 84532, rpcUrl: "http://127.0.0.1:1", registry: relayerAddress, factory: relayerAddress, relayerKeys: [relayerKey] }],
    });
    runtime = new ChainRuntime(config.chains[0]!, chain.provider);
  });
  afterAll(() => chain?.close());

  const rpc = (method: string, params: unknown[] = []) => chain.provider.request({ method, params } as never) as Promise<unknown>;
  const nonceOf = async (tag: "latest" | "pending") => BigInt((await rpc("eth_getTransactionCount", [relayerAddress, tag])) as string);
  const watch = (ledger: Ledger, settings: Partial<StuckWatchSettings> = {}, onReplaced?: (chainId: number) => void) =>
    new StuckWatch(ledger, new Map([[84532, runtime]]), { replaceAfterMs: 1, feeBumpPercent: 20, maxReplacements: 5, ...settings }, onReplaced);

  /** Signs a transfer from the relayer key at the next nonce, records it as a submitted request, and broadcasts it. */
  async function submitted(ledger: Ledger, maxFeePerGas = 2_000_000_000n): Promise<{ id: string; hash: Hex; raw: Hex; nonce: bigint }> {
    const nonce = await nonceOf("pending");
    const raw = sign({ type: "eip1559", chainId: 84532, nonce: Number(nonce), to: roles.owner.address as Hex, value: 1n, gas: 21_000n, maxFeePerGas, maxPriorityFeePerGas: maxFeePerGas / 2n });
    const hash = keccak256(raw);
    const request = await ledger.createRequest(newRequest());
    expect((await ledger.recordSubmission(request.id, { signer: relayerAddress, nonce, txHash: hash, rawTx: raw, chainPendingNonce: nonce })).ok).toBe(true);
    await rpc("eth_sendRawTransaction", [raw]);
    await ledger.transition(request.id, ["submitting"], "submitted");
    return { id: request.id, hash, raw, nonce };
  }

  /** Records and broadcasts, as cancels.ts does through the submitter, the cancel of a rejected request's intent. */
  async function sentCancel(ledger: Ledger, maxFeePerGas: bigint): Promise<{ hash: Hex; raw: Hex; nonce: bigint }> {
    const held = await ledger.createRequest(newRequest({ status: "held", heldBecause: "review" }));
    await ledger.rejectReview(held.id, "no");
    const key = { chainId: 84532, vault: held.vault, intentHash: held.intentHash };
    expect(await ledger.claimCancel(key, Date.now() + 60_000)).toBeDefined();
    const nonce = await nonceOf("pending");
    const raw = sign({ type: "eip1559", chainId: 84532, nonce: Number(nonce), to: roles.owner.address as Hex, value: 1n, gas: 21_000n, maxFeePerGas, maxPriorityFeePerGas: maxFeePerGas / 2n });
    const hash = keccak256(raw);
    expect(await ledger.recordCancelSubmission(key, { signer: relayerAddress, nonce, txHash: hash, rawTx: raw, chainPendingNonce: nonce })).toEqual({ ok: true });
    await rpc("eth_sendRawTransaction", [raw]);
    return { hash, raw, nonce };
  }

  it("receiptOfAny: nothing for versions not mined; the mined one's receipt, formatted as viem's", async () => {
    const ledger = open(`${tempDir()}/ledger.sqlite`);
    const tx = await submitted(ledger);
    const unknown = keccak256(toHex("never sent"));
    expect(await receiptOfAny(runtime, [unknown, tx.hash])).toBeUndefined();
    await rpc("evm_mine");
    const receipt = await receiptOfAny(runtime, [unknown, tx.hash]);
    expect(receipt).toMatchObject({ transactionHash: tx.hash, status: "success", from: relayerAddress.toLowerCase(), gasUsed: 21_000n });
    expect(receipt).toEqual(await runtime.clients.publicClient.getTransactionReceipt({ hash: tx.hash }));
  });

  it("leaves a mined transaction alone", async () => {
    const ledger = open(`${tempDir()}/ledger.sqlite`);
    const tx = await submitted(ledger);
    await rpc("evm_mine");
    expect(await watch(ledger).check()).toEqual({ rebroadcast: 0, replaced: 0 });
    expect(await ledger.replacementsOf(tx.hash)).toEqual([]);
  });

  it("does not re-send a dropped transaction whose nonce another transaction used", async () => {
    const ledger = open(`${tempDir()}/ledger.sqlite`);
    const tx = await submitted(ledger);
    expect(await rpc("hardhat_dropTransaction", [tx.hash])).toBe(true);
    // Someone else uses the nonce: a plain transfer signed with the same key and nonce.
    const other = sign({ type: "eip1559", chainId: 84532, nonce: Number(tx.nonce), to: roles.operator.address as Hex, value: parseEther("0.001"), gas: 21_000n, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
    await rpc("eth_sendRawTransaction", [other]);
    await rpc("evm_mine");
    expect(await nonceOf("latest")).toBe(tx.nonce + 1n);
    expect(await watch(ledger).check()).toEqual({ rebroadcast: 0, replaced: 0 });
    expect(await rpc("eth_getTransactionByHash", [tx.hash])).toBeNull();
  });

  it("bumps both fees by at least the bump, files each replacement in the ledger, and stops at maxReplacements", async () => {
    const ledger = open(`${tempDir()}/ledger.sqlite`);
    const tx = await submitted(ledger, 2_000_000_000n);
    // Make it unminable: the next blocks' base fee far above its fee cap.
    await rpc("hardhat_setNextBlockBaseFeePerGas", [toHex(100_000_000_000n)]);
    await rpc("evm_mine");
    const told: number[] = []; // what relay_transactions_total{result="replaced"} counts
    const stuck = watch(ledger, { maxReplacements: 2, feeBumpPercent: 20 }, (chainId) => told.push(chainId));
    await new Promise((r) => setTimeout(r, 5));
    expect(await stuck.check()).toEqual({ rebroadcast: 0, replaced: 1 });
    await new Promise((r) => setTimeout(r, 5));
    expect(await stuck.check()).toEqual({ rebroadcast: 0, replaced: 1 });
    await new Promise((r) => setTimeout(r, 5));
    expect(await stuck.check()).toEqual({ rebroadcast: 0, replaced: 0 });

    const versions = await ledger.replacementsOf(tx.hash);
    expect(versions).toHaveLength(2);
    expect(told).toEqual([84532, 84532]);
    expect(await hashesOf(ledger, tx.hash)).toEqual([tx.hash, ...versions.map((v) => v.txHash)]);
    let previous = parseTransaction(tx.raw);
    for (const version of versions) {
      const next = parseTransaction(version.rawTx as Hex);
      expect(next.nonce).toBe(Number(tx.nonce));
      expect({ to: next.to, value: next.value, gas: next.gas }).toEqual({ to: previous.to, value: previous.value, gas: previous.gas });
      expect(next.maxFeePerGas! * 100n).toBeGreaterThanOrEqual(previous.maxFeePerGas! * 120n);
      expect(next.maxPriorityFeePerGas! * 100n).toBeGreaterThanOrEqual(previous.maxPriorityFeePerGas! * 120n);
      previous = next;
    }
    // The last replacement follows the market (it can pay the raised base fee), and it is the one that mines.
    expect(previous.maxFeePerGas!).toBeGreaterThan(87_500_000_000n);
    await rpc("evm_mine");
    const receipt = (await rpc("eth_getTransactionReceipt", [versions.at(-1)!.txHash])) as { status: string } | null;
    expect(receipt?.status).toBe("0x1");
    expect(await rpc("eth_getTransactionReceipt", [tx.hash])).toBeNull();
  });

  it("bumps a rejection's on-chain cancel stuck under a low fee, as it does a request's transaction", async () => {
    const ledger = open(`${tempDir()}/ledger.sqlite`);
    const cancel = await sentCancel(ledger, 2_000_000_000n);
    await rpc("hardhat_setNextBlockBaseFeePerGas", [toHex(100_000_000_000n)]);
    await rpc("evm_mine");
    expect(await rpc("eth_getTransactionReceipt", [cancel.hash])).toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    expect(await watch(ledger).check()).toEqual({ rebroadcast: 0, replaced: 1 });
    const [replacement] = await ledger.replacementsOf(cancel.hash);
    expect(parseTransaction(replacement!.rawTx as Hex)).toMatchObject({ nonce: Number(cancel.nonce), to: roles.owner.address.toLowerCase() });
    await rpc("evm_mine");
    expect(((await rpc("eth_getTransactionReceipt", [replacement!.txHash])) as { status: string } | null)?.status).toBe("0x1");
    expect(await nonceOf("latest")).toBe(cancel.nonce + 1n);
  });
});
