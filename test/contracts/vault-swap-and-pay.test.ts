import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentIntent, SwapIntent } from "../../packages/client/src/intent-types.ts";
import { abiOf, account, calldata, emptyConfig, revertOf, setupFixture, USD, type Fixture } from "./fixture.ts";

// executeSwapAndPayment: the bot's swap then the bot's payment in the swap's output token, one
// transaction. The vault here holds WETH only, so the USDC payment is paid from the swap's output.
describe("ServiceVault swap-and-pay", () => {
  let f: Fixture;
  let vault: Address;
  const recipient = account(7).address;
  const ETH = 10n ** 18n;

  beforeAll(async () => {
    f = await setupFixture();
    vault = await f.newVault(f.owner);
    await f.write(f.owner, vault, "ServiceVault", "addBotWithPolicy", [f.bot.address, emptyConfig()]);
    await f.write(f.owner, f.tokens.weth, "mocks/MockERC20", "mint", [vault, ETH]);
  });
  afterAll(async () => f?.chain.close());

  /** 0.01 WETH (≈ $30, ≈ 29.91 USDC after the router's fee) for a 25 USDC payment. */
  const pair = async (swapOver: Partial<SwapIntent> = {}, payOver: Partial<PaymentIntent> = {}) => {
    const deadline = (await f.now()) + 300n;
    const payment: PaymentIntent = { ...(await f.payment({ to: recipient, amount: USD(25), deadline })), ...payOver };
    const swap: SwapIntent = {
      bot: f.bot.address,
      fromToken: f.tokens.weth,
      maxFromAmount: ETH / 100n,
      toToken: payment.token,
      minToAmount: payment.amount,
      deadline,
      ref: f.ref("swap-and-pay"),
      ...swapOver,
    };
    return { swap, payment };
  };
  const routerCall = (s: SwapIntent): Hex =>
    calldata("mocks/MockSwapRouter", "swapExactIn", [s.fromToken, s.toToken, s.maxFromAmount, 0n, vault]);
  /** No owner approval: the bot's signatures alone authorize. */
  const NONE = { deadline: 0n, signature: "0x" as Hex };
  const args = async (p: { swap: SwapIntent; payment: PaymentIntent }, signer = f.bot, approval = NONE) =>
    [p.swap, await f.signSwap(signer, p.swap, vault), p.payment, await f.signPayment(signer, p.payment, vault), f.router, routerCall(p.swap), approval] as const;
  const approved = (a: readonly unknown[], deadline: bigint, signature: Hex) => [...a.slice(0, 6), { deadline, signature }];
  const hashes = async (p: { swap: SwapIntent; payment: PaymentIntent }) => ({
    swapHash: await f.read<Hex>(vault, "ServiceVault", "hashSwapIntent", [p.swap]),
    paymentHash: await f.read<Hex>(vault, "ServiceVault", "hashPaymentIntent", [p.payment]),
  });
  const used = (h: Hex) => f.read<boolean>(vault, "ServiceVault", "usedIntents", [h]);
  const refused = async (a: readonly unknown[], from = f.relayer) =>
    revertOf(() => f.simulate(from, vault, "ServiceVault", "executeSwapAndPayment", a));
  const balances = async () => ({
    weth: await f.balanceOf(f.tokens.weth, vault),
    usdc: await f.balanceOf(f.tokens.usdc, vault),
    paid: await f.balanceOf(f.tokens.usdc, recipient),
  });

  it("swaps then pays in one transaction; both intents are marked used", async () => {
    const p = await pair();
    const { swapHash, paymentHash } = await hashes(p);
    const quoted = await f.read<bigint>(f.router, "mocks/MockSwapRouter", "quote", [f.tokens.weth, f.tokens.usdc, p.swap.maxFromAmount]);
    const before = await balances();
    expect(before.usdc).toBe(0n); // the payment could not run without the swap
    const a = await args(p);
    const receipt = await f.write(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", a);
    const after = await balances();
    expect(after.paid - before.paid).toBe(USD(25));
    expect(before.weth - after.weth).toBeLessThanOrEqual(p.swap.maxFromAmount);
    expect(after.usdc).toBe(quoted - USD(25)); // the swap's surplus stays in the vault
    expect(await used(swapHash)).toBe(true);
    expect(await used(paymentHash)).toBe(true);
    expect(f.events(receipt, "ServiceVault", "SwapExecuted")[0]!.args).toMatchObject({ intentHash: swapHash, amountOut: quoted });
    expect(f.events(receipt, "ServiceVault", "PaymentExecuted")[0]!.args).toMatchObject({ intentHash: paymentHash, to: recipient, amount: USD(25) });
    expect(await f.read<bigint>(f.tokens.weth, "mocks/MockERC20", "allowance", [vault, f.router])).toBe(0n);

    // replay: the pair again, or either intent on its own path, is refused
    expect(await refused(a)).toEqual({ name: "IntentAlreadyUsed", args: [paymentHash] });
    const swapAlone = [p.swap, a[1], f.router, a[5]];
    expect(await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwap", swapAlone))).toEqual({ name: "IntentAlreadyUsed", args: [swapHash] });
    expect(await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executePayment", [p.payment, a[3]]))).toEqual({ name: "IntentAlreadyUsed", args: [paymentHash] });
    // a fresh payment paired with the used swap is refused too
    const fresh = await pair();
    const reuse = await args({ swap: p.swap, payment: fresh.payment });
    expect(await refused(reuse)).toEqual({ name: "IntentAlreadyUsed", args: [swapHash] });
  });

  it("atomic: a failing payment undoes the swap (a mined, reverted transaction moves nothing)", async () => {
    await f.write(f.owner, vault, "ServiceVault", "addGlobalBlacklist", [recipient]);
    const p = await pair();
    const { swapHash, paymentHash } = await hashes(p);
    const a = await args(p);
    expect(await refused(a)).toEqual({ name: "DestinationBlacklisted", args: [recipient] });
    const before = await balances();
    // send it anyway (no simulation): the swap ran first inside the transaction, then the payment reverted
    // (the devnet mines a reverting transaction and answers its revert as an error)
    await f.clients.walletFor(f.relayer).writeContract({
      address: vault, abi: abiOf("ServiceVault"), functionName: "executeSwapAndPayment", args: a, gas: 2_000_000n,
    } as never).catch(() => undefined);
    const block = await f.clients.publicClient.getBlock({ includeTransactions: true });
    const mined = block.transactions.at(-1) as { hash: Hex; to: Address };
    expect(mined.to.toLowerCase()).toBe(vault.toLowerCase());
    const receipt = await f.clients.publicClient.getTransactionReceipt({ hash: mined.hash });
    expect(receipt.status).toBe("reverted");
    expect(await balances()).toEqual(before);
    expect(await used(swapHash)).toBe(false);
    expect(await used(paymentHash)).toBe(false);
    await f.write(f.owner, vault, "ServiceVault", "removeGlobalBlacklist", [recipient]);
  });

  it("the payment's per-tx cap applies, after the swap, and undoes it", async () => {
    await f.write(f.owner, vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ maxPerTxAmount: USD(20) })]);
    const p = await pair();
    expect(await refused(await args(p))).toEqual({ name: "ExceedsPerTxLimit", args: [USD(25), USD(20)] });
    await f.write(f.owner, vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]);
  });

  it("output floor: the swap's minimum output and the vault's slippage floor hold", async () => {
    const quoted = await f.read<bigint>(f.router, "mocks/MockSwapRouter", "quote", [f.tokens.weth, f.tokens.usdc, ETH / 100n]);
    const greedy = await pair({ minToAmount: quoted + 1n });
    expect(await refused(await args(greedy))).toEqual({ name: "InsufficientOutput", args: [quoted, quoted + 1n] });
    // the router keeps 0.3 %; a 0.1 % tolerance puts the floor above what it delivers
    await f.write(f.owner, vault, "ServiceVault", "setSwapSlippageBps", [10n]);
    expect((await refused(await args(await pair()))).name).toBe("SwapBelowFloor");
    await f.write(f.owner, vault, "ServiceVault", "setSwapSlippageBps", [100n]);
  });

  it("the pair must match: one bot, the payment's token as output, enough output for the payment", async () => {
    const mismatch = { name: "SwapPaymentMismatch", args: [] };
    expect(await refused(await args(await pair({ toToken: f.tokens.dai })))).toEqual(mismatch);
    expect(await refused(await args(await pair({ minToAmount: USD(24) })))).toEqual(mismatch);
    await f.write(f.owner, vault, "ServiceVault", "addBotWithPolicy", [f.bot2.address, emptyConfig()]);
    const p = await pair({ bot: f.bot2.address });
    const mixed = [p.swap, await f.signSwap(f.bot2, p.swap, vault), p.payment, await f.signPayment(f.bot, p.payment, vault), f.router, routerCall(p.swap), NONE];
    expect(await refused(mixed)).toEqual(mismatch);
    // each signature is checked: the swap signed by another key is refused
    const q = await pair();
    const forged = [q.swap, await f.signSwap(f.bot2, q.swap, vault), q.payment, await f.signPayment(f.bot, q.payment, vault), f.router, routerCall(q.swap), NONE];
    expect(await refused(forged)).toEqual({ name: "InvalidSignature", args: [] });
  });

  it("the swap's rules apply: rebalance whitelist for the output token, rebalance cap, deadline", async () => {
    await f.write(f.owner, f.router, "mocks/MockSwapRouter", "setPairEnabled", [f.tokens.weth, f.tokens.wbtc, true]);
    const wbtc = await pair({}, { token: f.tokens.wbtc, amount: 10_000n });
    expect(await refused(await args(wbtc))).toEqual({ name: "RebalanceTokenNotAllowed", args: [f.tokens.wbtc] });
    await f.write(f.owner, vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ maxRebalanceAmount: USD(10) })]);
    expect((await refused(await args(await pair()))).name).toBe("ExceedsRebalanceLimit");
    await f.write(f.owner, vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]);
    const late = await pair({ deadline: (await f.now()) - 1n });
    expect((await refused(await args(late))).name).toBe("DeadlineExpired");
  });

  it("relayer-only", async () => {
    const a = await args(await pair());
    const approvalDeadline = (await f.now()) + 3600n;
    const { paymentHash } = await hashes({ swap: a[0], payment: a[2] });
    const ownerSig = await f.signReview(f.owner, paymentHash, approvalDeadline, vault);
    for (const caller of [f.owner, f.operator, f.stranger, f.bot]) {
      expect(await refused(a, caller)).toEqual({ name: "NotAuthorizedRelayer", args: [] });
      expect(await refused(approved(a, approvalDeadline, ownerSig), caller)).toEqual({ name: "NotAuthorizedRelayer", args: [] });
    }
    expect(await used(paymentHash)).toBe(false);
  });

  it("held for review: refused on the bot's signatures alone, executed with the owner's approval of the payment's hash", async () => {
    await f.write(f.owner, vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ requireHumanReview: true })]);
    const p = await pair({ deadline: (await f.now()) + 30n }, { deadline: (await f.now()) + 30n });
    const { swapHash, paymentHash } = await hashes(p);
    const a = await args(p);
    expect(await refused(a)).toEqual({ name: "ReviewRequired", args: [f.bot.address] });
    await f.increaseTime(60); // the review outlasts the bot's deadlines
    const approvalDeadline = (await f.now()) + 3600n;
    // an approval of the swap's hash is not an approval of the pair
    const wrong = await f.signReview(f.owner, swapHash, approvalDeadline, vault);
    expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", approved(a, approvalDeadline, wrong)))).name).toBe("InvalidOwnerApproval");
    const byBot = await f.signReview(f.bot, paymentHash, approvalDeadline, vault);
    expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", approved(a, approvalDeadline, byBot)))).name).toBe("InvalidOwnerApproval");
    const ownerSig = await f.signReview(f.owner, paymentHash, approvalDeadline, vault);
    const before = await balances();
    await f.write(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", approved(a, approvalDeadline, ownerSig));
    expect((await balances()).paid - before.paid).toBe(USD(25));
    expect(await used(swapHash)).toBe(true);
    expect(await used(paymentHash)).toBe(true);
    expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", approved(a, approvalDeadline, ownerSig)))).name).toBe("IntentAlreadyUsed");
    // a cancelled swap never runs, even paired with an approved payment
    const q = await pair();
    const qh = await hashes(q);
    await f.write(f.owner, vault, "ServiceVault", "cancelIntent", [qh.swapHash]);
    const qSig = await f.signReview(f.owner, qh.paymentHash, approvalDeadline, vault);
    const qa = await args(q);
    expect(await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", approved(qa, approvalDeadline, qSig)))).toEqual({ name: "IntentCancelled", args: [qh.swapHash] });
    await f.write(f.owner, vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig()]);
  });
});
