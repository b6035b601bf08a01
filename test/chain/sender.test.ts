// A transaction's gas limit must hold once it is mined, not only on the block its estimate was made
// on. The vault's bucket words carry the time they were written, and a word rewritten with the value
// it holds costs less than one that changes: `updateBotPolicy` estimated in the second the bot's
// buckets were last written, then mined a second later, needs more gas than the estimate. Sent with
// the bare estimate it reverted (out of gas), as a CI run's setup once did. Each sender is tried with
// the chain's clock pinned for the estimate and moved on before the transaction is mined: the
// devnet's and `relay deploy`'s senders (src/chain/sender.ts) and relay-client's owner helpers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Address, type EIP1193Provider, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { createNodeAccountSender, createSender, type Sender } from "../../src/chain/sender.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { VaultOwner, type OwnerWallet } from "../../packages/client/src/index.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const VAULT_ABI = readArtifact("ServiceVault").abi;

describe("a sent transaction's gas limit holds when the block it is mined in is later than its estimate's", () => {
  let devnet: Devnet;
  let provider: EIP1193Provider;
  let vault: Address;
  let bot: Address;
  /** The chain time the next mined block gets once a transaction is sent (undefined: the node's own). */
  let minedAt: number | undefined;
  /** The devnet's provider, but a transaction sent through it is mined at `minedAt`. */
  let later: Clients;

  const rpc = (method: string, params: unknown[] = []) => provider.request({ method, params } as never) as Promise<unknown>;
  const latestTime = async () => Number(((await rpc("eth_getBlockByNumber", ["latest", false])) as { timestamp: Hex }).timestamp);
  const policy = (maxPerTxAmount: bigint) => ({ ...PERMISSIVE_LIMITS, maxPerTxAmount });
  /** A read of the vault (through `later`, which passes reads to the devnet as they are). */
  const read = <T>(functionName: string, args: readonly unknown[]) => later.publicClient.readContract({ address: vault, abi: VAULT_ABI, functionName, args }) as Promise<T>;

  beforeAll(async () => {
    devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir: tempDir("relay-sender-gas-") });
    provider = devnet.chain.provider as EIP1193Provider;
    vault = devnet.manifest.contracts.vault as Address;
    bot = devnet.manifest.accounts.bots.default.address as Address;
    const moved: EIP1193Provider = {
      ...provider,
      request: (async (args: { method: string; params?: unknown }) => {
        if ((args.method === "eth_sendRawTransaction" || args.method === "eth_sendTransaction") && minedAt !== undefined) await rpc("evm_setNextBlockTimestamp", [minedAt]);
        return provider.request(args as never);
      }) as EIP1193Provider["request"],
    };
    later = clientsFor(moved, devnet.manifest.chainId);
  });
  afterAll(async () => devnet?.close());

  /**
   * The bot's policy set to `first` in a block at a time well ahead of the wall clock, then `sendSecond`
   * asked to set it again (the same bucket words but for the time) with the estimate's block at that
   * same time and the transaction mined 60 seconds later; answers the bot's maxPerTxAmount after.
   */
  async function updatedTwice(sendFirst: () => Promise<unknown>, sendSecond: () => Promise<unknown>): Promise<bigint> {
    const pinned = (await latestTime()) + 1000;
    minedAt = undefined;
    await rpc("evm_setNextBlockTimestamp", [pinned]);
    await sendFirst();
    expect(await latestTime()).toBe(pinned);
    // The estimate runs on the pending block, at the pinned time: the bucket words it writes are the ones already there.
    await rpc("evm_setNextBlockTimestamp", [pinned]);
    minedAt = pinned + 60;
    try {
      await sendSecond();
    } finally {
      minedAt = undefined;
    }
    expect(await latestTime()).toBe(pinned + 60);
    return (await read<{ maxPerTxAmount: bigint }>("getBotPolicy", [bot])).maxPerTxAmount;
  }

  const ownerKey = () => devnet.manifest.accounts.owner.privateKey as Hex;
  const updateThrough = (sender: Sender, amount: bigint) => () => sender.call(vault, "ServiceVault", "updateBotPolicy", [bot, policy(amount)]);

  it("createSender (a key it signs with): mined, the policy set", async () => {
    const sender = createSender(later, ownerKey());
    expect(await updatedTwice(updateThrough(sender, 101_000_000n), updateThrough(sender, 101_000_000n))).toBe(101_000_000n);
  });

  it("createNodeAccountSender (a devnet account, whose key the node holds): mined, the policy set", async () => {
    const owner = privateKeyToAccount(ownerKey()).address;
    const sender = createNodeAccountSender(later, owner);
    expect(await updatedTwice(updateThrough(sender, 102_000_000n), updateThrough(sender, 102_000_000n))).toBe(102_000_000n);
  });

  it("relay-client's VaultOwner.updateBot: mined, the policy set", async () => {
    const owner = new VaultOwner({ wallet: later.walletFor(privateKeyToAccount(ownerKey())) as OwnerWallet, publicClient: later.publicClient as PublicClient, vault });
    const update = () => owner.updateBot(bot, { maxPerTx: "103" });
    expect(await updatedTwice(update, update)).toBe(103_000_000n);
  });
});
