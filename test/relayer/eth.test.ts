// Native ETH end to end on a real devnet and relayer: payments under the 0xEeee… marker and the zero
// address, the per-tx cap at the ETH feed's price, the vault's balance, an execute's `value`, and the
// vault value read. Every refusal is checked on-chain too: nothing moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseEther, zeroAddress, type Address } from "viem";
import { ETH_MARKER } from "../../src/chain/eth.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import type { BotConfigParams } from "../../src/chain/vault-config.ts";
import { executeBody, fresh, get, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";

const usd = (n: number) => BigInt(n) * 1_000_000n;

describe("native ETH", () => {
  let env: Env;
  let payments: string;
  const eth = (who: Address) => env.clients.publicClient.getBalance({ address: who });

  beforeAll(async () => {
    env = await startEnv();
    payments = `${env.url}/v1/payments`;
  });
  afterAll(() => env?.close());

  async function newBot(config: Partial<BotConfigParams> = {}) {
    const bot = privateKeyToAccount(generatePrivateKey());
    await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, ...config }]);
    return bot;
  }

  it.each([
    ["the 0xEeee… marker", ETH_MARKER],
    ["the zero address", zeroAddress],
  ])("a payment with token %s is approved and the recipient's ETH rises by exactly the amount", async (_name, token) => {
    const to = fresh();
    const vaultBefore = await eth(env.vault);
    const res = await post(payments, await paymentBody(env, { to, token, amount: parseEther("0.5") }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await eth(to)).toBe(parseEther("0.5"));
    expect(await eth(env.vault)).toBe(vaultBefore - parseEther("0.5"));
  });

  it("over the bot's per-tx cap at the ETH feed's price ($3000): 403 EXCEEDS_PER_TX_LIMIT, nothing moves", async () => {
    const bot = await newBot({ maxPerTxAmount: usd(1000) });
    const to = fresh();
    const vaultBefore = await eth(env.vault);
    // 0.5 ETH = $1500 > $1000
    const over = await post(payments, await paymentBody(env, { bot: bot.address, to, token: ETH_MARKER, amount: parseEther("0.5") }, { signer: bot }));
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ code: "EXCEEDS_PER_TX_LIMIT" });
    expect(over.body.details).toBe("amount worth 1500 USD exceeds the bot's maxPerTxAmount of 1000 USD");
    expect(await eth(to)).toBe(0n);
    expect(await eth(env.vault)).toBe(vaultBefore);
    // 0.3 ETH = $900 is within it.
    const within = await post(payments, await paymentBody(env, { bot: bot.address, to, token: ETH_MARKER, amount: parseEther("0.3") }, { signer: bot }));
    expect(within.body).toMatchObject({ status: "approved" });
    expect(await eth(to)).toBe(parseEther("0.3"));
  });

  it("to the zero address is refused, nothing moves", async () => {
    const vaultBefore = await eth(env.vault);
    const res = await post(payments, await paymentBody(env, { to: zeroAddress, token: ETH_MARKER, amount: 1n }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_ADDRESS" });
    expect(await eth(env.vault)).toBe(vaultBefore);
  });

  it("more ETH than the vault holds: 422 INSUFFICIENT_BALANCE naming ETH, nothing moves", async () => {
    const held = await eth(env.vault);
    const to = fresh();
    const res = await post(payments, await paymentBody(env, { to, token: ETH_MARKER, amount: held + 1n }));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "INSUFFICIENT_BALANCE" });
    expect(res.body.details).toBe(`vault holds ${held} of ETH, needs ${held + 1n}`);
    expect(await eth(to)).toBe(0n);
    expect(await eth(env.vault)).toBe(held);
  });

  describe("an execute's value", () => {
    let sink: Address; // a contract that accepts ETH: a bare vault implementation (it has receive())

    beforeAll(async () => {
      sink = await env.owner.deploy("ServiceVault", [env.manifest.contracts.registry, "Sink"]);
      await ownerCall(env, "approveProtocol", [sink]);
    });

    it("is priced at the ETH feed: over the per-tx cap is 403 EXCEEDS_PER_TX_LIMIT and nothing moves", async () => {
      const bot = await newBot({ maxPerTxAmount: usd(1000) });
      const vaultBefore = await eth(env.vault);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { bot: bot.address, protocol: sink, value: parseEther("0.5") }, "0x", { signer: bot }));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: "EXCEEDS_PER_TX_LIMIT" });
      expect(res.body.details).toMatch(/^amount worth 1500 USD exceeds/);
      expect(await eth(sink)).toBe(0n);
      expect(await eth(env.vault)).toBe(vaultBefore);
    });

    it("within the cap it runs: the protocol receives exactly the value", async () => {
      const bot = await newBot({ maxPerTxAmount: usd(1000) });
      const before = await eth(sink);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { bot: bot.address, protocol: sink, value: parseEther("0.2") }, "0x", { signer: bot }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "approved" });
      expect(await eth(sink)).toBe(before + parseEther("0.2"));
    });

    it("more than the vault holds: 422 INSUFFICIENT_BALANCE naming ETH", async () => {
      const held = await eth(env.vault);
      const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: sink, value: held + 1n }, "0x"));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: "INSUFFICIENT_BALANCE" });
      expect(res.body.details).toContain("of ETH");
      expect(await eth(env.vault)).toBe(held);
    });
  });

  it("GET /v1/vault/:v/value lists ETH with symbol, decimals, balance and USD value", async () => {
    const held = await eth(env.vault);
    const res = await get(`${env.url}/v1/vault/${env.vault}/value?chainId=${env.manifest.chainId}`);
    expect(res.status).toBe(200);
    const entry = (res.body.tokens as Array<Record<string, unknown>>).find((t) => t.symbol === "ETH");
    expect(entry).toEqual({
      token: ETH_MARKER,
      symbol: "ETH",
      balance: held.toString(),
      decimals: 18,
      priceUsd: 3000,
      valueUsd: Number((held * 3000n) / 10n ** 12n) / 1e6,
    });
    const others = (res.body.tokens as Array<{ valueUsd: number }>).reduce((sum, t) => sum + t.valueUsd, 0);
    expect(res.body.totalValueUsd).toBeCloseTo(others, 2);
  });

  it("GET the vault's balance of the marker reads its ETH", async () => {
    const res = await get(`${env.url}/v1/vault/${env.vault}/balance/${ETH_MARKER}?chainId=${env.manifest.chainId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ balance: (await eth(env.vault)).toString() });
  });
});
