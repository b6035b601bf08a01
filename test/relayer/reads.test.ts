// The vault reads end to end (SPEC.md and DESIGN.md §6): value, rebalance whitelist and check,
// balances, bot status, info, destination and protocol checks, each compared with the chain itself,
// and the read errors (VAULT_NOT_FOUND, INVALID_ADDRESS, INVALID_CHAIN_ID) as exact error envelopes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroAddress, type Address } from "viem";
import type { Sender } from "../../src/chain/sender.ts";
import { ETH_MARKER } from "../../src/chain/eth.ts";
import { balanceOf, fresh, get, ownerCall, startEnv, type Env } from "./harness.ts";
import { badChecksum, deployVault, expectErrorEnvelope, fundedSender, newBot, readOf } from "./harness-extra.ts";

describe("vault reads", () => {
  let env: Env;
  let anyone: Sender;
  let v: string;

  beforeAll(async () => {
    env = await startEnv();
    anyone = await fundedSender(env);
    v = `${env.url}/v1/vault/${env.vault}`;
  });
  afterAll(() => env?.close());

  /** A feed's price in USD, as its answer over 10^decimals. */
  async function feedPrice(symbol: string): Promise<number> {
    const feed = env.manifest.contracts.priceFeeds[symbol] as Address;
    const [, answer] = await readOf<readonly [bigint, bigint, bigint, bigint, bigint]>(env, feed, "mocks/MockPriceFeed", "latestRoundData");
    const decimals = await readOf<number>(env, feed, "mocks/MockPriceFeed", "decimals");
    return Number(answer) / 10 ** decimals;
  }

  describe("GET /v1/vault/:address/value", () => {
    it("lists native ETH and every funded token with its on-chain balance and feed price; the values add up to the total", async () => {
      const res = await get(`${v}/value`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ vault: env.vault, chainId: env.manifest.chainId, totalValueUsd: expect.any(Number), tokens: expect.any(Array) });
      const symbols = res.body.tokens.map((t: { symbol: string }) => t.symbol).sort();
      // The devnet vault holds ETH too (10 ETH): listed under the 0xEeee… marker, priced by the ETH feed.
      expect(symbols).toEqual(["ETH", ...Object.keys(env.manifest.tokens)].sort());
      for (const entry of res.body.tokens) {
        const isEth = entry.symbol === "ETH";
        expect(Object.keys(entry).sort()).toEqual(["balance", "decimals", "priceUsd", "symbol", "token", "valueUsd"]);
        expect(entry.token).toBe(isEth ? ETH_MARKER : env.token(entry.symbol));
        expect(entry.decimals).toBe(isEth ? 18 : env.manifest.tokens[entry.symbol]!.decimals);
        const held = isEth ? await env.clients.publicClient.getBalance({ address: env.vault }) : await balanceOf(env, entry.token, env.vault);
        expect(entry.balance).toBe(held.toString());
        expect(entry.priceUsd).toBe(await feedPrice(entry.symbol));
        expect(entry.valueUsd).toBeCloseTo((Number(entry.balance) / 10 ** entry.decimals) * entry.priceUsd, 2);
      }
      const sum = res.body.tokens.reduce((s: number, t: { valueUsd: number }) => s + t.valueUsd, 0);
      expect(res.body.totalValueUsd).toBeGreaterThan(0);
      expect(Math.abs(sum - res.body.totalValueUsd)).toBeLessThan(0.01);
    });

    it("follows the feed: a new WBTC price changes priceUsd and valueUsd", async () => {
      const feed = env.manifest.contracts.priceFeeds.WBTC as Address;
      const original = await readOf<readonly bigint[]>(env, feed, "mocks/MockPriceFeed", "latestRoundData");
      await anyone.call(feed, "mocks/MockPriceFeed", "setPrice", [61_234_50000000n]);
      try {
        const wbtc = (await get(`${v}/value`)).body.tokens.find((t: { symbol: string }) => t.symbol === "WBTC");
        expect(wbtc.priceUsd).toBe(61_234.5);
        expect(wbtc.valueUsd).toBeCloseTo((Number(wbtc.balance) / 1e8) * 61_234.5, 2);
      } finally {
        await anyone.call(feed, "mocks/MockPriceFeed", "setPrice", [original[1]]);
      }
    });

    it("leaves out tokens with a zero balance (a new vault holding only USDC)", async () => {
      const vault = await deployVault(env, anyone);
      const empty = await get(`${env.url}/v1/vault/${vault}/value`);
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ vault, chainId: env.manifest.chainId, totalValueUsd: 0, tokens: [] });
      await anyone.call(env.token("USDC"), "mocks/MockERC20", "mint", [vault, 12_500_000n]);
      const res = await get(`${env.url}/v1/vault/${vault}/value`);
      expect(res.body.tokens).toEqual([{ token: env.token("USDC"), symbol: "USDC", balance: "12500000", decimals: 6, priceUsd: 1, valueUsd: 12.5 }]);
      expect(res.body.totalValueUsd).toBe(12.5);
    });
  });

  describe("rebalance whitelist", () => {
    it("default list (USDC, WETH, USDT) until the owner sets one; then the on-chain list with its count", async () => {
      const [usdc, weth, usdt, dai, wbtc] = ["USDC", "WETH", "USDT", "DAI", "WBTC"].map((s) => env.token(s));
      const before = await get(`${v}/rebalance-tokens`);
      expect(before.status).toBe(200);
      expect(before.body).toEqual({ source: "default", tokens: [usdc, weth, usdt], rebalanceTokenCount: 0 });
      expect((await get(`${v}/rebalance-token/${usdc}`)).body).toEqual({ allowed: true, source: "default" });
      expect((await get(`${v}/rebalance-token/${dai}`)).body).toEqual({ allowed: false, source: "default" });

      await ownerCall(env, "addRebalanceTokens", [[dai, wbtc]]);
      try {
        const after = await get(`${v}/rebalance-tokens`);
        expect(after.body).toEqual({ source: "on_chain", tokens: [dai, wbtc], rebalanceTokenCount: 2 });
        expect((await get(`${v}/rebalance-token/${dai}`)).body).toEqual({ allowed: true, source: "on_chain" });
        expect((await get(`${v}/rebalance-token/${usdc}`)).body).toEqual({ allowed: false, source: "on_chain" });
      } finally {
        await ownerCall(env, "removeRebalanceTokens", [[dai, wbtc]]);
      }
      expect((await get(`${v}/rebalance-tokens`)).body.source).toBe("default");
    });
  });

  describe("balances", () => {
    it("balance/:token reads an ERC-20, and ETH through the zero address", async () => {
      const usdc = env.token("USDC");
      const res = await get(`${v}/balance/${usdc}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ balance: (await balanceOf(env, usdc, env.vault)).toString() });
      const eth = await get(`${v}/balance/${zeroAddress}`);
      expect(eth.body).toEqual({ balance: (await env.clients.publicClient.getBalance({ address: env.vault })).toString() });
      expect(BigInt(eth.body.balance)).toBeGreaterThan(0n);
    });

    it("balances?tokens=a,b answers one entry per token, keyed by address", async () => {
      const [usdc, weth] = [env.token("USDC"), env.token("WETH")];
      const res = await get(`${v}/balances?tokens=${usdc},${weth},${zeroAddress}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        balances: {
          [usdc]: (await balanceOf(env, usdc, env.vault)).toString(),
          [weth]: (await balanceOf(env, weth, env.vault)).toString(),
          [zeroAddress]: (await env.clients.publicClient.getBalance({ address: env.vault })).toString(),
        },
      });
    });

    it("balances without tokens is 400 INVALID_REQUEST naming tokens", async () => {
      const res = await get(`${v}/balances`);
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, "INVALID_REQUEST");
      expect(res.body.details).toMatch(/tokens/);
    });
  });

  describe("bots, info, destinations, protocols", () => {
    it("bot status: the seeded bot is active, a stranger is not, a removed bot no longer is", async () => {
      expect((await get(`${v}/bot/${env.bot.address}/status`)).body).toEqual({ isActive: true });
      expect((await get(`${v}/bot/${fresh()}/status`)).body).toEqual({ isActive: false });
      const bot = await newBot(env);
      expect((await get(`${v}/bot/${bot.address}/status`)).body).toEqual({ isActive: true });
      await ownerCall(env, "removeBot", [bot.address]);
      expect((await get(`${v}/bot/${bot.address}/status`)).body).toEqual({ isActive: false });
    });

    it("info: owner, operator, paused, version and trackUsedIntents as the vault reports them", async () => {
      const res = await get(`${v}/info`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        owner: env.manifest.accounts.owner.address,
        operator: env.manifest.accounts.operator.address,
        paused: false,
        version: await readOf<string>(env, env.vault, "ServiceVault", "version"),
        trackUsedIntents: await readOf<boolean>(env, env.vault, "ServiceVault", "trackUsedIntents"),
      });
      await ownerCall(env, "pause");
      try {
        expect((await get(`${v}/info`)).body.paused).toBe(true);
      } finally {
        await ownerCall(env, "unpause");
      }
    });

    it("destination: allowed, blacklisted with its reason, not whitelisted with its reason", async () => {
      const to = fresh();
      expect((await get(`${v}/bot/${env.bot.address}/destination/${to}`)).body).toEqual({ allowed: true });

      const bad = fresh();
      await ownerCall(env, "addGlobalBlacklist", [bad]);
      expect((await get(`${v}/bot/${env.bot.address}/destination/${bad}`)).body).toEqual({ allowed: false, reason: "blacklisted" });

      const bot = await newBot(env);
      const listed = fresh();
      await ownerCall(env, "addBotDestination", [bot.address, listed]);
      expect((await get(`${v}/bot/${bot.address}/destination/${listed}`)).body).toEqual({ allowed: true });
      expect((await get(`${v}/bot/${bot.address}/destination/${to}`)).body).toEqual({ allowed: false, reason: "not_whitelisted" });
    });

    it("protocol: approved by the vault, a registry default token, and one never approved", async () => {
      const lending = env.manifest.contracts.lending as Address;
      const marketplace = env.manifest.contracts.marketplace as Address;
      expect((await get(`${v}/protocol/${lending}`)).body).toEqual({ approved: false });
      await ownerCall(env, "approveProtocol", [lending]);
      expect((await get(`${v}/protocol/${lending}`)).body).toEqual({ approved: true });
      expect((await get(`${v}/protocol/${env.token("USDC")}`)).body).toEqual({ approved: true });
      expect((await get(`${v}/protocol/${marketplace}`)).body).toEqual({ approved: false });
    });
  });

  describe("errors", () => {
    /** Every read path of a vault, with valid other parameters. */
    function readPaths(vault: string): string[] {
      const usdc = env.token("USDC");
      return [
        `/v1/vault/${vault}/value`,
        `/v1/vault/${vault}/rebalance-tokens`,
        `/v1/vault/${vault}/rebalance-token/${usdc}`,
        `/v1/vault/${vault}/balance/${usdc}`,
        `/v1/vault/${vault}/balances?tokens=${usdc}`,
        `/v1/vault/${vault}/bot/${env.bot.address}/status`,
        `/v1/vault/${vault}/info`,
        `/v1/vault/${vault}/bot/${env.bot.address}/destination/${usdc}`,
        `/v1/vault/${vault}/protocol/${usdc}`,
      ];
    }

    it("404 VAULT_NOT_FOUND on every read for an address that is not a vault (an EOA, a token contract)", async () => {
      for (const notVault of [fresh(), env.token("USDC")]) {
        for (const path of readPaths(notVault)) {
          const res = await get(`${env.url}${path}`);
          expect(res.status, path).toBe(404);
          expectErrorEnvelope(res.body, "VAULT_NOT_FOUND");
        }
      }
    });

    it("400 INVALID_ADDRESS for a wrong checksum and for a short address, in the vault or another parameter", async () => {
      const wrong = badChecksum(env.vault);
      const short = env.vault.slice(0, 40);
      for (const path of [...readPaths(wrong), ...readPaths(short)]) {
        const res = await get(`${env.url}${path}`);
        expect(res.status, path).toBe(400);
        expectErrorEnvelope(res.body, "INVALID_ADDRESS");
      }
      const wrongToken = await get(`${v}/balance/${badChecksum(env.token("USDC"))}`);
      expect(wrongToken.status).toBe(400);
      expectErrorEnvelope(wrongToken.body, "INVALID_ADDRESS");
      expect(wrongToken.body.details).toMatch(/token/);
      const wrongBot = await get(`${v}/bot/${badChecksum(env.bot.address)}/status`);
      expectErrorEnvelope(wrongBot.body, "INVALID_ADDRESS");
      const shortInList = await get(`${v}/balances?tokens=${env.token("USDC")},0x1234`);
      expectErrorEnvelope(shortInList.body, "INVALID_ADDRESS");
    });

    it("an all-lowercase address carries no checksum and is accepted", async () => {
      const res = await get(`${env.url}/v1/vault/${env.vault.toLowerCase()}/info`);
      expect(res.status).toBe(200);
      expect(res.body.owner).toBe(env.manifest.accounts.owner.address);
    });

    it("400 INVALID_CHAIN_ID for ?chainId=1 and for a chainId that is not a number; the served chain is fine", async () => {
      for (const query of ["chainId=1", "chainId=8453", "chainId=abc"]) {
        for (const path of readPaths(env.vault)) {
          const url = `${env.url}${path}${path.includes("?") ? "&" : "?"}${query}`;
          const res = await get(url);
          expect(res.status, url).toBe(400);
          expectErrorEnvelope(res.body, "INVALID_CHAIN_ID");
        }
      }
      expect((await get(`${v}/info?chainId=${env.manifest.chainId}`)).status).toBe(200);
    });
  });
});
