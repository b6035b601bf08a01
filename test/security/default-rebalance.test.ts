// One default rebalance list. Attack: on a vault that sets no rebalance list of its own, the relayer
// and its API said USDC/WETH/USDT (a list in the relayer's config) while the vault fell back to all
// five registry default tokens, so a leaked relayer key swapped a bot's signed intent into WBTC that
// the relayer itself would have refused. Now the registry keeps one default rebalance list: the vault
// falls back to it on-chain, the API answers it, and the relayer's check is the vault's own answer
// (isRebalanceAllowed, read by the policy lens). The three agree for every token, off-list swaps are
// refused by all of them with nothing moved, and a change of the list by the registry's owner
// reaches all three at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { defaultDeadline, randomRef, signSwapIntent } from "../../packages/client/src/sign.ts";
import type { SwapIntent } from "../../packages/client/src/intent-types.ts";
import { balanceOf, calldata, get, post, startEnv, swapBody, type Env } from "../relayer/harness.ts";
import { readOf } from "../relayer/harness-extra.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { deployer } from "./support/devnet-admin.ts";
import { asRelayer } from "./support/leaked-relayer.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;
const SYMBOLS = ["USDC", "USDT", "DAI", "WETH", "WBTC"] as const;

describe("one default rebalance list: the API, the relayer and the vault agree", () => {
  let env: Env;
  let usdc: Address;
  let registry: Address;
  let router: Address;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    registry = env.manifest.contracts.registry as Address;
    router = env.manifest.contracts.router as Address;
    expect(await readOf<bigint>(env, env.vault, "ServiceVault", "rebalanceTokenCount")).toBe(0n);
  });
  afterAll(() => env?.close());

  const v = () => `${env.url}/v1/vault/${env.vault}`;
  const registryList = () => readOf<Address[]>(env, registry, "ServiceRegistry", "getDefaultRebalanceTokens");
  const vaultAllows = (token: Address) => readOf<boolean>(env, env.vault, "ServiceVault", "isRebalanceAllowed", [token]);
  const holdings = (...tokens: Address[]) => Promise.all(tokens.map((t) => balanceOf(env, t, env.vault)));

  /** The API's list, the API's per-token answer and the vault's own answer, for every devnet token. */
  async function views() {
    const list = (await get(`${v()}/rebalance-tokens`)).body as { source: string; tokens: Address[]; rebalanceTokenCount: number };
    const perToken: Record<string, { api: boolean; vault: boolean; listed: boolean }> = {};
    for (const symbol of SYMBOLS) {
      const token = env.token(symbol);
      const answer = (await get(`${v()}/rebalance-token/${token}`)).body as { allowed: boolean; source: string };
      expect(answer.source).toBe("default");
      perToken[symbol] = { api: answer.allowed, vault: await vaultAllows(token), listed: list.tokens.includes(token) };
    }
    return { list, perToken };
  }

  it("with no list set: the API's list is the registry's (USDC, WETH, USDT), and for each token the API and the vault answer alike", async () => {
    const { list, perToken } = await views();
    expect(list).toEqual({ source: "default", tokens: ["USDC", "WETH", "USDT"].map((s) => env.token(s)), rebalanceTokenCount: 0 });
    expect(list.tokens).toEqual(await registryList());
    for (const symbol of SYMBOLS) {
      const expected = ["USDC", "WETH", "USDT"].includes(symbol);
      expect(perToken[symbol], symbol).toEqual({ api: expected, vault: expected, listed: expected });
    }
    // WBTC and DAI are registry default tokens (protocol calls may approve them), not rebalance defaults.
    for (const symbol of ["WBTC", "DAI"]) expect(await readOf(env, registry, "ServiceRegistry", "isDefaultToken", [env.token(symbol)])).toBe(true);
  });

  for (const symbol of ["WBTC", "DAI"] as const) {
    it(`a swap into ${symbol}: the relayer refuses it 403 REBALANCE_TOKEN_NOT_ALLOWED, the same signed intent sent by a leaked relayer key reverts RebalanceTokenNotAllowed, nothing moved`, async () => {
      const target = env.token(symbol);
      const before = await holdings(usdc, target);

      const refused = await post(`${env.url}/v1/swap`, await swapBody(env, { fromToken: usdc, toToken: target, maxFromAmount: USDC(1_000), minToAmount: 1n }));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "REBALANCE_TOKEN_NOT_ALLOWED" });
      expect(refused.body.details).toBe(`toToken ${target} is not on the vault's default (the registry's) rebalance whitelist`);

      const intent: SwapIntent = { bot: env.bot.address, fromToken: usdc, toToken: target, maxFromAmount: USDC(1_000), minToAmount: 1n, deadline: defaultDeadline(), ref: randomRef() };
      const signature = await signSwapIntent(env.bot, env.manifest.domain as never, intent);
      const routerCall = calldata("mocks/MockSwapRouter", "swapExactIn", [usdc, target, USDC(1_000), 1n, env.vault]);
      const attempt = await asRelayer(env, "executeSwap", [intent, signature, router, routerCall]);
      expect(attempt).toEqual({ refusal: "RebalanceTokenNotAllowed", status: "reverted" });

      expect(await holdings(usdc, target)).toEqual(before);
    });
  }

  it("the registry's owner adds WBTC to the default list: the API, the relayer and the vault all allow it at once (no restart), and the swap goes through", async () => {
    const wbtc = env.token("WBTC");
    await deployer(env).call(registry, "ServiceRegistry", "addDefaultRebalanceToken", [wbtc]);
    try {
      const { list, perToken } = await views();
      expect(list.tokens).toEqual(await registryList());
      expect(perToken.WBTC).toEqual({ api: true, vault: true, listed: true });
      const [usdcBefore, wbtcBefore] = await holdings(usdc, wbtc);
      const res = await post(`${env.url}/v1/swap`, await swapBody(env, { fromToken: usdc, toToken: wbtc, maxFromAmount: USDC(600), minToAmount: 1n }));
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      const [usdcAfter, wbtcAfter] = await holdings(usdc, wbtc);
      expect(usdcAfter).toBe(usdcBefore! - USDC(600));
      expect(wbtcAfter).toBeGreaterThan(wbtcBefore!);
    } finally {
      await deployer(env).call(registry, "ServiceRegistry", "removeDefaultRebalanceToken", [wbtc]);
    }
    const { perToken } = await views();
    expect(perToken.WBTC).toEqual({ api: false, vault: false, listed: false });
  });

  it("GET /v1/chains names the same list", async () => {
    const res = await get(`${env.url}/v1/chains`);
    const listed = (res.body.chains[0].defaultRebalanceTokens as Array<{ address: Address }>).map((t) => t.address);
    expect(listed).toEqual(await registryList());
  });

  it("a relayer configuration cannot carry a list of its own: defaultRebalanceTokens is refused, not silently ignored", () => {
    const chain = { ...chainFromManifest(env.manifest), defaultRebalanceTokens: [env.token("WBTC")] };
    expect(() => parseRelayerConfig({ stateDir: "/tmp/unused", chains: [chain] })).toThrow(
      "invalid relayer configuration: chains.0.defaultRebalanceTokens: is no longer a relayer setting: a vault without its own rebalance list uses the registry's (ServiceRegistry.addDefaultRebalanceToken), which the relayer reads",
    );
  });
});
