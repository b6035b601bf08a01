// AI holds bind on-chain: a request the relayer sends to the AI scan (the bot requires AI
// verification, or it is worth at least the bot's aiTriggerThreshold) executes only through a
// reviewed entry point, with the owner's ReviewApproval or with AiVerdict signatures of 2 of the 3
// scanner keys the owner registered (setScanners), concatenated in ascending order of signer.
import { concat, type Address, type Hex, type LocalAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentIntent, SwapIntent } from "../../packages/client/src/intent-types.ts";
import { verdictTypes } from "../../src/eip712/verdict.ts";
import { account, calldata, emptyConfig, executeIntent, revertOf, setupFixture, USD, type BotConfig, type Fixture } from "./fixture.ts";

describe("ServiceVault AI holds: scanners' verdicts or the owner's approval", () => {
  let f: Fixture;
  let vault: Address;
  const payee = account(6).address;
  // The three scanner keys, by ascending address, and a fourth key the owner never registered.
  let scanners: LocalAccount[];
  const outsider = account(10);
  const THRESHOLD = USD(50);

  beforeAll(async () => {
    f = await setupFixture();
    scanners = [account(7), account(8), account(9)].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
    vault = await f.newVault(f.owner);
    await f.write(f.owner, vault, "ServiceVault", "addBotWithPolicy", [f.bot.address, emptyConfig({ aiTriggerThreshold: THRESHOLD })]);
    await f.write(f.owner, f.tokens.usdc, "mocks/MockERC20", "mint", [vault, USD(10_000)]);
    await f.write(f.owner, f.tokens.weth, "mocks/MockERC20", "mint", [vault, 10n ** 19n]);
    await f.write(f.owner, vault, "ServiceVault", "approveProtocol", [f.lending]);
    await f.write(f.owner, vault, "ServiceVault", "setScanners", [scanners.map((s) => s.address)]);
  });
  afterAll(async () => f?.chain.close());

  const setConfig = (over: Partial<BotConfig>) =>
    f.write(f.owner, vault, "ServiceVault", "updateBotPolicy", [f.bot.address, emptyConfig({ aiTriggerThreshold: THRESHOLD, ...over })]);

  const verdict = async (signer: LocalAccount, intentHash: Hex, deadline: bigint): Promise<Hex> =>
    signer.signTypedData({ domain: await f.domainOf(vault), types: verdictTypes, primaryType: "AiVerdict", message: { intentHash, deadline } });
  const verdicts = async (signers: LocalAccount[], intentHash: Hex, deadline: bigint): Promise<Hex> =>
    concat(await Promise.all(signers.map((s) => verdict(s, intentHash, deadline))));

  const held = async (amount = USD(60)) => {
    const intent = await f.payment({ to: payee, amount });
    const botSig = await f.signPayment(f.bot, intent, vault);
    const intentHash = await f.read<Hex>(vault, "ServiceVault", "hashPaymentIntent", [intent]);
    return { intent, botSig, intentHash, deadline: (await f.now()) + 300n };
  };
  const reviewed = (p: { intent: PaymentIntent; botSig: Hex }, deadline: bigint, approval: Hex) =>
    revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [p.intent, p.botSig, deadline, approval]));

  describe("registering scanners (setScanners)", () => {
    it("reads back the three keys", async () => {
      expect(await f.read<Address[]>(vault, "ServiceVault", "scanners")).toEqual(scanners.map((s) => s.address));
    });

    it("refuses a relayer key, a repeated key, a zero among others, and anyone but the owner", async () => {
      const [a, b] = [scanners[0]!.address, scanners[1]!.address];
      const cases: [Address[], string, Address][] = [
        [[a, b, f.relayer.address], "InvalidScanner", f.relayer.address],
        [[a, b, a], "InvalidScanner", a],
        [[a, b, "0x0000000000000000000000000000000000000000"], "InvalidScanner", "0x0000000000000000000000000000000000000000"],
      ];
      for (const [keys, name, bad] of cases) {
        const r = await revertOf(() => f.simulate(f.owner, vault, "ServiceVault", "setScanners", [keys]));
        expect(r.name).toBe(name);
        expect((r.args as Address[])[0]!.toLowerCase()).toBe(bad.toLowerCase());
      }
      const r = await revertOf(() => f.simulate(f.operator, vault, "ServiceVault", "setScanners", [scanners.map((s) => s.address)]));
      expect(r.name).toBe("NotOwner");
    });
  });

  describe("the hold", () => {
    it("below the threshold a payment executes with the bot's signature alone", async () => {
      const p = await held(USD(49));
      const before = await f.balanceOf(f.tokens.usdc, payee);
      await f.write(f.relayer, vault, "ServiceVault", "executePayment", [p.intent, p.botSig]);
      expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + USD(49));
    });

    it("at the threshold and above, executePayment and a batch item are refused with AiApprovalRequired", async () => {
      const p = await held(USD(50));
      const r = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executePayment", [p.intent, p.botSig]));
      expect(r).toEqual({ name: "AiApprovalRequired", args: [f.bot.address] });
      const before = await f.balanceOf(f.tokens.usdc, payee);
      const receipt = await f.write(f.relayer, vault, "ServiceVault", "executePaymentBatch", [[p.intent], [p.botSig]]);
      expect(f.events(receipt, "ServiceVault", "PaymentFailed")).toHaveLength(1);
      expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before);
    });

    it("in a batch (one price per token and limit), exactly the items at or above the threshold fail, beside a per-tx cap", async () => {
      await setConfig({ maxPerTxAmount: USD(70) });
      try {
        const amounts = [USD(10), USD(50), USD(49.999999), USD(60), USD(71), USD(1)];
        const items = await Promise.all(amounts.map(async (amount) => {
          const intent = await f.payment({ to: payee, amount });
          return { intent, sig: await f.signPayment(f.bot, intent, vault) };
        }));
        const before = await f.balanceOf(f.tokens.usdc, payee);
        const ok = await f.simulate<boolean[]>(f.relayer, vault, "ServiceVault", "executePaymentBatch", [items.map((i) => i.intent), items.map((i) => i.sig)]);
        expect(ok).toEqual([true, false, true, false, false, true]);
        await f.write(f.relayer, vault, "ServiceVault", "executePaymentBatch", [items.map((i) => i.intent), items.map((i) => i.sig)]);
        expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + USD(10) + USD(49.999999) + USD(1));
        // the refusals are the one-payment path's: the hold at $50 and $60, the cap at $71
        for (const [k, name] of [[1, "AiApprovalRequired"], [3, "AiApprovalRequired"], [4, "ExceedsPerTxLimit"]] as const) {
          const r = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executePayment", [items[k]!.intent, items[k]!.sig]));
          expect(r.name).toBe(name);
        }
      } finally {
        await setConfig({});
      }
    });

    it("a bot that requires AI verification is held whatever the value", async () => {
      await setConfig({ requireAiVerification: true });
      try {
        const p = await held(USD(1));
        const r = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executePayment", [p.intent, p.botSig]));
        expect(r.name).toBe("AiApprovalRequired");
        await f.write(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [p.intent, p.botSig, p.deadline, await verdicts(scanners.slice(0, 2), p.intentHash, p.deadline)]);
        expect(await f.read(vault, "ServiceVault", "usedIntents", [p.intentHash])).toBe(true);
      } finally {
        await setConfig({});
      }
    });
  });

  describe("verdicts", () => {
    it("2 of the 3 scanners, sorted, execute a held payment (any 2, or all 3)", async () => {
      for (const signers of [scanners.slice(0, 2), [scanners[0]!, scanners[2]!], scanners.slice(1), scanners]) {
        const p = await held();
        const before = await f.balanceOf(f.tokens.usdc, payee);
        await f.write(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [p.intent, p.botSig, p.deadline, await verdicts(signers, p.intentHash, p.deadline)]);
        expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + USD(60));
      }
    });

    it("refuses a wrong signer, a duplicate, an unsorted pair, another intent's or deadline's verdicts", async () => {
      const p = await held();
      const [s0, s1] = [scanners[0]!, scanners[1]!];
      const other = `0x${"cd".repeat(32)}` as Hex;
      const bad: Hex[] = [
        await verdicts([s0, outsider], p.intentHash, p.deadline),
        await verdicts([outsider, s1], p.intentHash, p.deadline),
        await verdicts([s0, f.owner], p.intentHash, p.deadline),
        await verdicts([s0, s0], p.intentHash, p.deadline),
        await verdicts([s1, s0], p.intentHash, p.deadline),
        await verdicts([s0, s1, s0], p.intentHash, p.deadline),
        await verdicts([s0, s1], other, p.deadline),
        concat([await verdict(s0, p.intentHash, p.deadline), await verdict(s1, p.intentHash, p.deadline + 1n)]),
      ];
      for (const approval of bad) expect((await reviewed(p, p.deadline, approval)).name).toBe("InvalidVerdicts");
      const before = await f.balanceOf(f.tokens.usdc, payee);
      expect(await f.read(vault, "ServiceVault", "usedIntents", [p.intentHash])).toBe(false);
      expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before);
    });

    it("one valid verdict alone is not enough (read as an owner's approval, and refused)", async () => {
      const p = await held();
      expect((await reviewed(p, p.deadline, await verdict(scanners[0]!, p.intentHash, p.deadline))).name).toBe("InvalidOwnerApproval");
    });

    it("refuses verdicts whose deadline has passed", async () => {
      const p = await held();
      const deadline = (await f.now()) + 10n;
      const v = await verdicts(scanners.slice(0, 2), p.intentHash, deadline);
      await f.simulate(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [p.intent, p.botSig, deadline, v]);
      await f.increaseTime(30);
      expect((await reviewed(p, deadline, v)).name).toBe("ApprovalExpired");
    });

    it("a scanner the registry later makes a relayer no longer counts", async () => {
      const p = await held();
      const [s0, s1, s2] = scanners as [LocalAccount, LocalAccount, LocalAccount];
      await f.write(f.owner, f.registry, "ServiceRegistry", "addRelayer", [s0.address]);
      try {
        expect((await reviewed(p, p.deadline, await verdicts([s0, s1], p.intentHash, p.deadline))).name).toBe("InvalidVerdicts");
        // Nor may the owner register it again while it is a relayer.
        const r = await revertOf(() => f.simulate(f.owner, vault, "ServiceVault", "setScanners", [scanners.map((s) => s.address)]));
        expect(r.name).toBe("InvalidScanner");
        await f.write(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [p.intent, p.botSig, p.deadline, await verdicts([s1, s2], p.intentHash, p.deadline)]);
      } finally {
        await f.write(f.owner, f.registry, "ServiceRegistry", "removeRelayer", [s0.address]);
      }
    });

    it("stand only for the AI hold: the bot's deadline and its human-review rule still apply", async () => {
      const intent = await f.payment({ to: payee, amount: USD(60), deadline: (await f.now()) + 20n });
      const botSig = await f.signPayment(f.bot, intent, vault);
      const intentHash = await f.read<Hex>(vault, "ServiceVault", "hashPaymentIntent", [intent]);
      await f.increaseTime(40);
      const deadline = (await f.now()) + 300n;
      const v = await verdicts(scanners.slice(0, 2), intentHash, deadline);
      expect((await reviewed({ intent, botSig }, deadline, v)).name).toBe("DeadlineExpired");
      // the owner's approval is still valid past the bot's deadline
      await f.write(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [intent, botSig, deadline, await f.signReview(f.owner, intentHash, deadline, vault)]);

      await setConfig({ requireHumanReview: true });
      try {
        const p = await held();
        expect((await reviewed(p, p.deadline, await verdicts(scanners.slice(0, 2), p.intentHash, p.deadline))).name).toBe("ReviewRequired");
      } finally {
        await setConfig({});
      }
    });

    it("with no scanners registered, no verdict executes; the owner's approval still does", async () => {
      const zero = "0x0000000000000000000000000000000000000000";
      await f.write(f.owner, vault, "ServiceVault", "setScanners", [[zero, zero, zero]]);
      try {
        const p = await held();
        expect((await reviewed(p, p.deadline, await verdicts(scanners.slice(0, 2), p.intentHash, p.deadline))).name).toBe("InvalidVerdicts");
        const before = await f.balanceOf(f.tokens.usdc, payee);
        await f.write(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [p.intent, p.botSig, p.deadline, await f.signReview(f.owner, p.intentHash, p.deadline, vault)]);
        expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + USD(60));
      } finally {
        await f.write(f.owner, vault, "ServiceVault", "setScanners", [scanners.map((s) => s.address)]);
      }
    });
  });

  describe("executes, swaps and swap-and-pay alike", () => {
    it("an execute worth its declared tokens: held at the threshold, executed with verdicts, never an approval grant", async () => {
      const data = calldata("mocks/MockLendingPool", "supply", [f.tokens.usdc, USD(50)]);
      const intent = executeIntent(f, f.lending, data, (await f.now()) + 300n, { tokens: [f.tokens.usdc], amounts: [USD(50)] });
      const botSig = await f.signExecute(f.bot, intent, vault);
      const intentHash = await f.read<Hex>(vault, "ServiceVault", "hashExecuteIntent", [intent]);
      expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeProtocol", [intent, botSig, data]))).name).toBe("AiApprovalRequired");
      const deadline = (await f.now()) + 300n;
      await f.write(f.relayer, vault, "ServiceVault", "executeReviewedProtocol", [intent, botSig, data, deadline, await verdicts(scanners.slice(1), intentHash, deadline)]);
      expect(await f.read(f.lending, "mocks/MockLendingPool", "supplied", [vault, f.tokens.usdc])).toBe(USD(50));

      const grant = calldata("mocks/MockERC20", "approve", [f.lending, USD(1)]);
      const approve = executeIntent(f, f.tokens.usdc, grant, (await f.now()) + 300n);
      const approveSig = await f.signExecute(f.bot, approve, vault);
      const approveHash = await f.read<Hex>(vault, "ServiceVault", "hashExecuteIntent", [approve]);
      const grantVerdicts = await verdicts(scanners.slice(1), approveHash, deadline);
      const r = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeReviewedProtocol", [approve, approveSig, grant, deadline, grantVerdicts]));
      expect(r.name).toBe("ReviewRequired");
    });

    it("a swap worth its maximum input: held at the threshold, executed with verdicts", async () => {
      const intent: SwapIntent = {
        bot: f.bot.address, fromToken: f.tokens.usdc, toToken: f.tokens.weth, maxFromAmount: USD(60), minToAmount: 1n,
        deadline: (await f.now()) + 300n, ref: f.ref("swap"),
      };
      const data = calldata("mocks/MockSwapRouter", "swapExactIn", [intent.fromToken, intent.toToken, intent.maxFromAmount, 0n, vault]);
      const botSig = await f.signSwap(f.bot, intent, vault);
      const intentHash = await f.read<Hex>(vault, "ServiceVault", "hashSwapIntent", [intent]);
      expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwap", [intent, botSig, f.router, data]))).name).toBe("AiApprovalRequired");
      const deadline = (await f.now()) + 300n;
      const wethBefore = await f.balanceOf(f.tokens.weth, vault);
      await f.write(f.relayer, vault, "ServiceVault", "executeReviewedSwap", [intent, botSig, f.router, data, deadline, await verdicts(scanners.slice(0, 2), intentHash, deadline)]);
      expect(await f.balanceOf(f.tokens.weth, vault)).toBeGreaterThan(wethBefore);
    });

    it("a swap-and-pay is held when either leg is at the threshold; verdicts over the payment's hash execute both", async () => {
      const deadline = (await f.now()) + 300n;
      const NONE = { deadline: 0n, signature: "0x" as Hex };
      const make = async (amount: bigint, maxFrom: bigint) => {
        const payment: PaymentIntent = await f.payment({ to: payee, amount, deadline });
        const swap: SwapIntent = {
          bot: f.bot.address, fromToken: f.tokens.weth, maxFromAmount: maxFrom, toToken: payment.token, minToAmount: payment.amount,
          deadline, ref: f.ref("swap-and-pay"),
        };
        const route = calldata("mocks/MockSwapRouter", "swapExactIn", [swap.fromToken, swap.toToken, swap.maxFromAmount, 0n, vault]);
        const args = [swap, await f.signSwap(f.bot, swap, vault), payment, await f.signPayment(f.bot, payment, vault), f.router, route] as const;
        const paymentHash = await f.read<Hex>(vault, "ServiceVault", "hashPaymentIntent", [payment]);
        return { args, paymentHash };
      };
      // 0.01 WETH ≈ $30 for $25: both legs below; 0.02 WETH ≈ $60 for $25: the swap leg is at or above.
      const below = await make(USD(25), 10n ** 16n);
      await f.write(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", [...below.args, NONE]);
      for (const p of [await make(USD(55), 2n * 10n ** 16n), await make(USD(25), 2n * 10n ** 16n)]) {
        const r = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", [...p.args, NONE]));
        expect(r.name).toBe("AiApprovalRequired");
        const before = await f.balanceOf(f.tokens.usdc, payee);
        const v = { deadline, signature: await verdicts(scanners.slice(0, 2), p.paymentHash, deadline) };
        await f.write(f.relayer, vault, "ServiceVault", "executeSwapAndPayment", [...p.args, v]);
        expect(await f.balanceOf(f.tokens.usdc, payee)).toBe(before + (p.args[2] as PaymentIntent).amount);
      }
    });
  });
});
