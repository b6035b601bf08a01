// The vault's fallback serves VaultExtension at the vault's address: its functions check their own
// callers against the vault's storage, the extension is fixed at construction, its own address
// grants nothing, and extsload reads exactly what the named views read (slots from the pinned layout).
import { readFileSync } from "node:fs";
import path from "node:path";
import { encodeAbiParameters, encodeFunctionData, getAddress, hexToBigInt, keccak256, pad, toFunctionSelector, toHex, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readArtifact, readOwnArtifact } from "../../src/chain/artifacts.ts";
import type { SlotEntry } from "./storage-layout.ts";
import { account, emptyConfig, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

const layout = JSON.parse(readFileSync(path.join(import.meta.dirname, "storage-layout.expected.json"), "utf8")) as SlotEntry[];
/** The pinned slot of state variable `name`. */
const slotOf = (name: string): bigint => BigInt(layout.find((v) => v.name === name)!.slot);
/** Where mapping `slot` keeps `key`'s value (Solidity's rule: keccak256(key . slot)). */
const mapped = (key: Address | Hex, slot: bigint, type: "address" | "bytes32"): bigint =>
  hexToBigInt(keccak256(encodeAbiParameters([{ type }, { type: "uint256" }], [key, slot])));
/** Where a dynamic array at `slot` keeps its elements. */
const elements = (slot: bigint): bigint => hexToBigInt(keccak256(pad(toHex(slot))));

const extensionAbi = readOwnArtifact("vault/VaultExtension").abi;
const selectorsOf = (abi: typeof extensionAbi) =>
  new Map(abi.filter((i) => i.type === "function").map((i) => [toFunctionSelector(i), i.name]));

describe("the vault's extension", () => {
  let f: Fixture;
  let extension: Address;
  const word = (slot: bigint) => f.read<Hex>(f.vault, "ServiceVault", "extsload", [pad(toHex(slot))]);
  const uint = async (slot: bigint) => hexToBigInt(await word(slot));

  beforeAll(async () => {
    f = await setupFixture();
    extension = await f.read<Address>(f.vault, "ServiceVault", "extension");
  });
  afterAll(async () => f?.chain.close());

  it("is one contract for every clone, fixed in the implementation's code", async () => {
    const other = await f.newVault(f.stranger);
    expect(await f.read(other, "ServiceVault", "extension")).toBe(extension);
    expect((await f.clients.publicClient.getCode({ address: extension }))!.length).toBeGreaterThan(2);
    // No function of the vault's or the extension's can change it: none takes an address for it.
    const setters = readArtifact("ServiceVault").abi.filter((i) => i.type === "function" && /extension/i.test(i.name) && i.stateMutability !== "view");
    expect(setters).toEqual([]);
  });

  it("shares no selector with the vault's own code but EIP-712's domain (the vault's answers)", () => {
    const own = selectorsOf(readOwnArtifact("ServiceVault").abi);
    const shared = [...selectorsOf(extensionAbi)].filter(([selector]) => own.has(selector)).map(([, name]) => name);
    expect(shared).toEqual(["eip712Domain"]);
  });

  it("checks callers through the vault's address: owner only, owner or operator", async () => {
    expect((await revertOf(() => f.simulate(f.stranger, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]))).name).toBe("NotOwner");
    expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "setOperator", [f.relayer.address]))).name).toBe("NotOwner");
    expect((await revertOf(() => f.simulate(f.bot, f.vault, "ServiceVault", "removeBot", [f.bot.address]))).name).toBe("NotOwnerOrOperator");
    await f.write(f.owner, f.vault, "ServiceVault", "addBotWithPolicy", [account(9).address, emptyConfig({ maxPerTxAmount: USD(7) })]);
    expect(await f.read(f.vault, "ServiceVault", "isBotActive", [account(9).address])).toBe(true);
  });

  it("called at its own address grants nothing and reads nothing of any vault", async () => {
    const call = (from: Fixture["owner"], functionName: string, args: readonly unknown[]) =>
      revertOf(() => f.clients.publicClient.simulateContract({ account: from, address: extension, abi: [...extensionAbi, ...readArtifact("ServiceVault").abi.filter((i) => i.type === "error")], functionName, args }));
    // Its own storage has no owner or operator: the vault's owner is nobody here.
    expect((await call(f.owner, "transferOwnership", [f.stranger.address])).name).toBe("NotOwner");
    expect((await call(f.owner, "addBotWithPolicy", [f.stranger.address, emptyConfig()])).name).toBe("NotOwnerOrOperator");
    expect((await call(f.owner, "removeBot", [f.bot.address])).name).toBe("NotOwnerOrOperator");
    const read = (functionName: string, args: readonly unknown[] = []) =>
      f.clients.publicClient.readContract({ address: extension, abi: extensionAbi, functionName, args });
    expect(await read("getBots")).toEqual([]);
    expect(await read("operator")).toBe("0x0000000000000000000000000000000000000000");
  });

  it("refuses ETH sent with a call it serves (the fallback is not payable)", async () => {
    const data = encodeFunctionData({ abi: extensionAbi, functionName: "getBots" });
    await expect(f.clients.publicClient.call({ account: f.owner.address, to: f.vault, data })).resolves.toBeDefined();
    await expect(f.clients.publicClient.call({ account: f.owner.address, to: f.vault, data, value: 1n })).rejects.toThrow();
  });

  describe("extsload", () => {
    beforeAll(async () => {
      await f.write(f.owner, f.vault, "ServiceVault", "setOperator", [f.operator.address]);
      await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [
        f.bot.address,
        emptyConfig({ maxPerTxAmount: USD(50), maxRebalanceAmount: USD(20), aiTriggerThreshold: USD(30), requireAiVerification: true }),
      ]);
      await f.write(f.owner, f.vault, "ServiceVault", "setSwapSlippageBps", [250n]);
    });

    it("is a view: it can only read", () => {
      const items = extensionAbi.filter((i) => i.type === "function" && i.name === "extsload");
      expect(items.map((i) => (i as { stateMutability: string }).stateMutability)).toEqual(["view", "view"]);
    });

    it("reads the roles as owner() and operator() do", async () => {
      expect(getAddress(`0x${(await word(slotOf("_owner"))).slice(26)}`)).toBe(await f.read(f.vault, "ServiceVault", "owner"));
      const packed = await uint(slotOf("_operator"));
      expect(getAddress(toHex(packed & ((1n << 160n) - 1n), { size: 20 }))).toBe(await f.read(f.vault, "ServiceVault", "operator"));
      expect((packed >> 168n) & 0xffn).toBe((await f.read<boolean>(f.vault, "ServiceVault", "paused")) ? 1n : 0n);
    });

    it("reads the bots and a bot's config as getBots() and getBotConfig() do", async () => {
      const bots = await f.read<Address[]>(f.vault, "ServiceVault", "getBots");
      const length = await uint(slotOf("_bots"));
      expect(length).toBe(BigInt(bots.length));
      const first = elements(slotOf("_bots"));
      for (let i = 0; i < bots.length; i++) expect(getAddress(`0x${(await word(first + BigInt(i))).slice(26)}`)).toBe(bots[i]);
      const config = await f.read<{ maxPerTxAmount: bigint; maxRebalanceAmount: bigint; aiTriggerThreshold: bigint; requireAiVerification: boolean; requireHumanReview: boolean }>(
        f.vault, "ServiceVault", "getBotPolicy", [f.bot.address]);
      const base = mapped(f.bot.address, slotOf("_botConfigs"), "address");
      // BotConfigParams: maxPerTxAmount, maxRebalanceAmount, spendingLimits (length), aiTriggerThreshold, two bools packed.
      expect([await uint(base), await uint(base + 1n), await uint(base + 3n)]).toEqual([config.maxPerTxAmount, config.maxRebalanceAmount, config.aiTriggerThreshold]);
      const flags = await uint(base + 4n);
      expect([flags & 0xffn, (flags >> 8n) & 0xffn]).toEqual([config.requireAiVerification ? 1n : 0n, config.requireHumanReview ? 1n : 0n]);
    });

    it("reads an intent's state as usedIntents() and cancelledIntents() do, and the swap tolerance", async () => {
      const intentHash = keccak256(toHex("extsload-cancelled"));
      await f.write(f.owner, f.vault, "ServiceVault", "cancelIntent", [intentHash]);
      const state = await uint(mapped(intentHash, slotOf("_intentState"), "bytes32"));
      expect([(state & 1n) !== 0n, (state & 2n) !== 0n]).toEqual([
        await f.read(f.vault, "ServiceVault", "usedIntents", [intentHash]),
        await f.read(f.vault, "ServiceVault", "cancelledIntents", [intentHash]),
      ]);
      expect(state).toBe(2n);
      expect((await uint(slotOf("_swapSlippageBpsPlusOne"))) - 1n).toBe(await f.read(f.vault, "ServiceVault", "swapSlippageBps"));
    });

    it("reads many slots at once, each as the one-slot read does", async () => {
      const slots = [slotOf("_owner"), slotOf("_operator"), slotOf("_bots"), slotOf("_swapSlippageBpsPlusOne"), 12_345n].map((s) => pad(toHex(s)));
      const many = await f.read<Hex[]>(f.vault, "ServiceVault", "extsload", [slots]);
      expect(many).toEqual(await Promise.all(slots.map((s) => f.read<Hex>(f.vault, "ServiceVault", "extsload", [s]))));
      expect(many[4]).toBe(pad("0x0"));
    });
  });
});
