// Gas per payment, read from receipts on the in-process devnet (deterministic: same contracts, same
// seeded vault, same calldata shape every run):
//   direct: one `executePayment` transaction per payment;
//   relayed: one `executePaymentBatch` transaction of 1, 4, 16 or 64 payments, its gas ÷ its size.
// The seeded default bot has a per-transaction cap, so every payment is priced through the registry's
// feed like a real one. Three configurations of the spend windows, which the vault keeps as token
// buckets (contracts/vault/VaultBuckets.sol) debited by every payment: off (no spending limit), on
// per bot (the seeded $250k a day), on per bot and vault-wide (the bot's day and a vault-wide day),
// and the same with a vault-wide hour too (each limit is one more bucket: one more storage word
// read and written, ~5k gas on a direct payment). Targets: with the windows on, the batch of 16 at most 0.50× direct and direct at
// most 1.15× the direct payment before the buckets (115,807 gas, windows relayer-only) with a bot's and a vault-wide window (the
// third bucket's direct figure is printed beside no target); with them
// off, the batch of 16 at most 0.45× direct as before. Recipients: a pool of 64 payees that already hold USDC (a service paid
// again and again), the same payees for direct and batched payments, distinct within a batch. A
// payee's first payment costs both paths ~17k more (its balance slot goes from zero to non-zero);
// the line "new recipients" shows the batch of 16 against direct for payees never paid before.
// Then the code sizes of the vault's implementation, its extension and the factory as deployed on the
// devnet, with the bytes left under EIP-170's 24,576 (and the init codes' under EIP-3860's 49,152).
// Run: npm run bench:gas, or `bash scripts/run.sh node bench/gas.bench.ts`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encodeFunctionData, getAbiItem, getAddress, keccak256, toEventSelector, toHex, type AbiEvent, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../src/chain/artifacts.ts";
import { clientsFor } from "../src/chain/clients.ts";
import { createSender } from "../src/chain/sender.ts";
import { devKeyPair } from "../src/devnet/accounts.ts";
import { startDevnet } from "../src/devnet/start.ts";
import { signPaymentIntent } from "../packages/client/src/sign.ts";
import type { PaymentIntent } from "../packages/client/src/intent-types.ts";
import { targetLine } from "./support/target.ts";
import { bytesOf, sizeLine } from "../scripts/contract-sizes.ts";

const SIZES = [1, 4, 16, 64];
const PAYEES = 64;
const DIRECT_SAMPLES = 16;

const stateDir = mkdtempSync(path.join(tmpdir(), "relay-gas-bench-"));
const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
try {
  const m = devnet.manifest;
  const clients = clientsFor(devnet.chain.provider, m.chainId);
  const deployer = createSender(clients, devKeyPair(5).privateKey);
  // A key of its own, authorized as a relayer, sends every measured transaction.
  const relayerKey = devKeyPair(6);
  await deployer.call(m.contracts.registry as Address, "ServiceRegistry", "addRelayer", [relayerKey.address]);
  const relayer = privateKeyToAccount(relayerKey.privateKey);
  const wallet = clients.walletFor(relayer);
  const bot = privateKeyToAccount(m.accounts.bots.default.privateKey as Hex);
  const vault = m.contracts.vault as Address;
  const usdc = m.tokens.USDC!.address as Address;
  const vaultAbi = readArtifact("ServiceVault").abi;
  const executedTopic = toEventSelector(getAbiItem({ abi: vaultAbi, name: "PaymentExecuted" }) as AbiEvent);

  let serial = 0;
  // Addresses and refs look like real ones (20 and 32 bytes of hash, not mostly zero bytes): the
  // calldata of a payment costs what it costs on a real chain.
  const payee = (k: number): Address => getAddress(`0x${keccak256(toHex(`payee ${k}`)).slice(26)}`);
  const existing = Array.from({ length: PAYEES }, (_, k) => payee(k));
  for (const to of existing) await deployer.call(usdc, "mocks/MockERC20", "mint", [to, 1n]);
  let fresh = 1_000_000; // payees never paid before, one new address per payment

  async function signed(to: Address): Promise<{ intent: PaymentIntent; signature: Hex }> {
    serial++;
    const intent: PaymentIntent = {
      bot: bot.address,
      to,
      token: usdc,
      amount: 1000n,
      deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
      ref: keccak256(toHex(`order ${serial}`)),
    };
    return { intent, signature: await signPaymentIntent(bot, m.domain as never, intent) };
  }

  async function gasOf(data: Hex): Promise<bigint> {
    const hash = await wallet.sendTransaction({ to: vault, data, account: relayer, chain: clients.chain, gas: 10_000_000n });
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
    return receipt.gasUsed;
  }

  /** Mean gas of one direct executePayment to each of `payees`. */
  async function direct(payees: Address[]): Promise<number> {
    let total = 0n;
    for (const to of payees) {
      const { intent, signature } = await signed(to);
      total += await gasOf(encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [intent, signature] }));
    }
    return Number(total) / payees.length;
  }

  /** Gas per payment of one executePaymentBatch paying each of `payees`; every item must execute. */
  async function batch(payees: Address[]): Promise<number> {
    const items = await Promise.all(payees.map((to) => signed(to)));
    const data = encodeFunctionData({
      abi: vaultAbi,
      functionName: "executePaymentBatch",
      args: [items.map((i) => i.intent), items.map((i) => i.signature)],
    });
    const hash = await wallet.sendTransaction({ to: vault, data, account: relayer, chain: clients.chain, gas: 20_000_000n });
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== "success") throw new Error(`batch ${hash} reverted`);
    const executed = receipt.logs.filter((l) => l.topics[0] === executedTopic).length;
    if (executed !== payees.length) throw new Error(`batch of ${payees.length}: only ${executed} executed`);
    return Number(receipt.gasUsed) / payees.length;
  }

  const owner = createSender(clients, m.accounts.owner.privateKey as Hex);
  const DAY = 86_400n;
  const usd = (dollars: bigint) => dollars * 1_000_000n;
  const seeded = (await clients.publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "getBotPolicy", args: [bot.address] })) as Record<string, unknown>;
  const configs = [
    { label: "windows off", botLimits: [], vaultLimits: [] },
    { label: "windows on, per bot", botLimits: [{ amount: usd(250_000n), maxCount: 0n, windowSeconds: DAY }], vaultLimits: [] },
    {
      label: "windows on, per bot and vault-wide",
      botLimits: [{ amount: usd(250_000n), maxCount: 0n, windowSeconds: DAY }],
      vaultLimits: [{ amount: usd(1_000_000n), maxCount: 0n, windowSeconds: DAY }],
    },
    {
      label: "windows on, per bot and two vault-wide (a day and an hour): one more bucket",
      botLimits: [{ amount: usd(250_000n), maxCount: 0n, windowSeconds: DAY }],
      vaultLimits: [{ amount: usd(1_000_000n), maxCount: 0n, windowSeconds: DAY }, { amount: usd(100_000n), maxCount: 0n, windowSeconds: 3_600n }],
    },
  ];
  const BEFORE_BUCKETS_DIRECT = 115_807; // direct executePayment before the buckets (windows relayer-only)
  for (const config of configs) {
    await owner.call(vault, "ServiceVault", "updateBotPolicy", [bot.address, { ...seeded, spendingLimits: config.botLimits }]);
    await owner.call(vault, "ServiceVault", "setVaultSpendingLimits", [config.vaultLimits]);
    const on = config.botLimits.length + config.vaultLimits.length > 0;
    console.log(`— ${config.label}`);
    const directGas = await direct(existing.slice(0, DIRECT_SAMPLES));
    console.log(`direct executePayment, existing recipients: ${Math.round(directGas)} gas per payment`);
    const vsBefore = directGas / BEFORE_BUCKETS_DIRECT;
    // The target is for the windows the vault's policy names (a bot's and a vault-wide one); a third
    // bucket is shown for its cost, beside no target.
    if (on && config.botLimits.length + config.vaultLimits.length <= 2) console.log(targetLine("  direct ÷ direct before the buckets (115,807)", vsBefore, { op: "<=", value: 1.15 }, "", 3));
    else if (on) console.log(`  direct ÷ direct before the buckets (115,807): ${vsBefore.toFixed(3)} (three buckets: beyond the 1.15 target's per-bot and vault-wide windows)`);
    const relayed = new Map<number, number>();
    for (const n of SIZES) {
      const perPayment = await batch(existing.slice(0, n));
      relayed.set(n, perPayment);
      console.log(`relayed executePaymentBatch of ${n}, existing recipients: ${Math.round(perPayment)} gas per payment (${(perPayment / directGas).toFixed(3)}× direct)`);
    }
    console.log(targetLine("  relayed batch of 16 ÷ direct, gas per payment", relayed.get(16)! / directGas, { op: "<=", value: on ? 0.5 : 0.45 }, "", 3));

    const freshPayees = (n: number) => Array.from({ length: n }, () => payee(fresh++));
    const directFresh = await direct(freshPayees(DIRECT_SAMPLES));
    const batchFresh = await batch(freshPayees(16));
    console.log(`new recipients (never paid before): direct ${Math.round(directFresh)}, batch of 16 ${Math.round(batchFresh)} gas per payment (${(batchFresh / directFresh).toFixed(3)}× direct)`);
  }

  // Code sizes, read from the chain: the implementation the vault's clone runs, the extension its
  // fallback delegates to, the factory. Init codes are the compiled ones (not kept on chain).
  const codeOf = async (address: Address) => bytesOf((await clients.publicClient.getCode({ address })) ?? "0x");
  const factory = m.contracts.factory as Address;
  const read = (address: Address, name: "ServiceVault" | "ServiceVaultFactory", functionName: string) =>
    clients.publicClient.readContract({ address, abi: readArtifact(name).abi, functionName }) as Promise<Address>;
  const sizes = [
    { label: "ServiceVault (implementation)", runtime: await codeOf(await read(factory, "ServiceVaultFactory", "implementation")), init: bytesOf(readArtifact("ServiceVault").bytecode) },
    { label: "VaultExtension", runtime: await codeOf(await read(vault, "ServiceVault", "extension")), init: bytesOf(readArtifact("vault/VaultExtension").bytecode) },
    { label: "ServiceVaultFactory", runtime: await codeOf(factory), init: bytesOf(readArtifact("ServiceVaultFactory").bytecode) },
  ];
  for (const size of sizes) console.log(sizeLine(size));
} finally {
  await devnet.close();
  rmSync(stateDir, { recursive: true, force: true });
}
