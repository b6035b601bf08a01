// Native ETH under its two names: the 0xEeee… marker that wallets and SDKs sign, and address(0).
// The intent is hashed as signed; the vault moves, measures and prices either name as ETH.
import { zeroAddress, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ETH_MARKER } from "../../src/chain/eth.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { account, emptyConfig, PRICE, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

const ETHER = 10n ** 18n;

describe("ServiceVault native ETH under the 0xEeee… marker", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
  });
  afterAll(async () => f?.chain.close());

  const ethOf = (holder: Address) => f.clients.publicClient.getBalance({ address: holder });
  const payRevert = async (intent: PaymentIntent) =>
    revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, sig(intent)]));
  const signatures = new Map<PaymentIntent, Hex>();
  const sig = (intent: PaymentIntent) => signatures.get(intent)!;
  const signed = async (over: Partial<PaymentIntent>) => {
    const intent = await f.payment(over);
    signatures.set(intent, await f.signPayment(f.bot, intent));
    return intent;
  };

  it("the registry prices the marker by the ETH feed set on address(0)", async () => {
    expect(await f.read(f.registry, "ServiceRegistry", "priceFeed", [ETH_MARKER])).toBe(f.feeds.eth);
    expect(await f.read(f.registry, "ServiceRegistry", "usdValue", [ETH_MARKER, ETHER])).toBe(USD(3000));
    expect(await f.read(f.registry, "ServiceRegistry", "amountForUsd", [ETH_MARKER, USD(1500)])).toBe(ETHER / 2n);
    // Setting a feed under the marker sets the one ETH feed.
    const other = await f.deploy("mocks/MockPriceFeed", [8, PRICE(2000), "ETH / USD"]);
    await f.write(f.owner, f.registry, "ServiceRegistry", "setPriceFeed", [ETH_MARKER, other]);
    expect(await f.read(f.registry, "ServiceRegistry", "priceFeed", [zeroAddress])).toBe(other);
    await f.write(f.owner, f.registry, "ServiceRegistry", "setPriceFeed", [zeroAddress, f.feeds.eth]);
    expect(await f.read(f.registry, "ServiceRegistry", "usdValue", [ETH_MARKER, ETHER])).toBe(USD(3000));
  });

  it("executes: the recipient's ETH rises by exactly the amount, the vault's falls, the event names the marker", async () => {
    const intent = await signed({ token: ETH_MARKER, amount: ETHER / 2n });
    const [toBefore, vaultBefore] = [await ethOf(intent.to), await ethOf(f.vault)];
    const receipt = await f.write(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, sig(intent)]);
    expect(await ethOf(intent.to)).toBe(toBefore + ETHER / 2n);
    expect(await ethOf(f.vault)).toBe(vaultBefore - ETHER / 2n);
    const hash = await f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [intent]);
    expect(await f.read(f.vault, "ServiceVault", "usedIntents", [hash])).toBe(true);
    const [ev] = f.events(receipt, "ServiceVault", "PaymentExecuted");
    expect(ev!.args).toMatchObject({ intentHash: hash, token: ETH_MARKER, amount: ETHER / 2n });
  });

  it("the per-tx cap applies at the ETH price, and moves with the ETH feed", async () => {
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ maxPerTxAmount: USD(3500) })]);
    const one = await signed({ token: ETH_MARKER, amount: ETHER }); // $3000
    await f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [one, sig(one)]);
    const over = await signed({ token: ETH_MARKER, amount: (ETHER * 6n) / 5n }); // 1.2 ETH = $3600
    const vaultBefore = await ethOf(f.vault);
    expect(await payRevert(over)).toEqual({ name: "ExceedsPerTxLimit", args: [USD(3600), USD(3500)] });
    await f.write(f.owner, f.feeds.eth, "mocks/MockPriceFeed", "setPrice", [PRICE(4000)]);
    expect(await payRevert(one)).toEqual({ name: "ExceedsPerTxLimit", args: [USD(4000), USD(3500)] });
    await f.write(f.owner, f.feeds.eth, "mocks/MockPriceFeed", "setPrice", [PRICE(3000)]);
    expect(await ethOf(f.vault)).toBe(vaultBefore);
    await f.write(f.owner, f.vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]);
  });

  it("balance: more ETH than the vault holds is refused with InsufficientBalance naming the marker", async () => {
    const held = await ethOf(f.vault);
    const intent = await signed({ token: ETH_MARKER, amount: held + 1n });
    expect(await payRevert(intent)).toEqual({ name: "InsufficientBalance", args: [ETH_MARKER, held, held + 1n] });
    expect(await ethOf(f.vault)).toBe(held);
  });

  it("to the zero address is refused with ZeroAddress", async () => {
    const intent = await signed({ token: ETH_MARKER, amount: 1n, to: zeroAddress });
    expect((await payRevert(intent)).name).toBe("ZeroAddress");
  });

  it("the marker and address(0) intents hash differently, and both pay ETH", async () => {
    const common = { to: account(9).address, amount: ETHER / 10n, deadline: (await f.now()) + 300n, ref: f.ref("same") };
    const marker = await signed({ ...common, token: ETH_MARKER });
    const zero = await signed({ ...common, token: zeroAddress });
    const [hm, hz] = await Promise.all([marker, zero].map((i) => f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [i])));
    expect(hm).not.toBe(hz);
    const before = await ethOf(common.to);
    for (const intent of [marker, zero]) await f.write(f.relayer, f.vault, "ServiceVault", "executePayment", [intent, sig(intent)]);
    expect(await ethOf(common.to)).toBe(before + (ETHER / 10n) * 2n);
    // A signature over one name does not authorize the other.
    expect((await revertOf(() => f.simulate(f.relayer, f.vault, "ServiceVault", "executePayment", [{ ...zero, ref: f.ref("x") }, sig(zero)]))).name).toBe("InvalidSignature");
  });

  it("the owner withdraws ETH under the marker", async () => {
    const to = account(10).address;
    const before = await ethOf(to);
    await f.write(f.owner, f.vault, "ServiceVault", "withdraw", [ETH_MARKER, ETHER / 4n, to]);
    expect(await ethOf(to)).toBe(before + ETHER / 4n);
  });
});
