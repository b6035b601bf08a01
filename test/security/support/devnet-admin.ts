// What the devnet's deployer may do that a test needs: it owns the registry (price feeds) and
// deployed the mock feeds, whose answers and timestamps anyone may set. Also a token the registry
// prices but does not list as a default token: the vault bounds its outflows on-chain only when it is
// declared or is the called protocol itself; pulled by another protocol (through a standing allowance),
// only the relayer's measured valuation (src/relayer/chain/outflows.ts) stands between a bot and it.
import { erc20Abi, type Address, type Hex } from "viem";
import { createSender, type Sender } from "../../../src/chain/sender.ts";
import type { Env } from "../../relayer/harness.ts";

/** The devnet's deployer, owner of the registry. */
export function deployer(env: Env): Sender {
  const keys = env.manifest.accounts.deployer;
  if (!keys) throw new Error("the devnet manifest names no deployer");
  return createSender(env.clients, keys.privateKey as Hex);
}

/**
 * A new 18-decimal MockERC20 priced at `priceUsd8` (8 decimals) by a new feed the registry knows,
 * `amount` of it minted to the vault. Not a registry default token.
 */
export async function pricedToken(env: Env, priceUsd8: bigint, amount: bigint): Promise<Address> {
  const admin = deployer(env);
  const token = await admin.deploy("mocks/MockERC20", ["Side Token", "SIDE", 18]);
  const feed = await admin.deploy("mocks/MockPriceFeed", [8, priceUsd8, "SIDE / USD"]);
  await admin.call(env.manifest.contracts.registry as Address, "ServiceRegistry", "setPriceFeed", [token, feed]);
  await admin.call(token, "mocks/MockERC20", "mint", [env.vault, amount]);
  return token;
}

/** The devnet's mock price feed of `symbol` ("USDC", "WETH", "ETH", …). */
export function feedOf(env: Env, symbol: string): Address {
  const feed = env.manifest.contracts.priceFeeds[symbol];
  if (!feed) throw new Error(`no devnet feed for ${symbol}`);
  return feed as Address;
}

/** Sets a mock feed's answer (anyone may). */
export function setPrice(env: Env, symbol: string, answer: bigint) {
  return deployer(env).call(feedOf(env, symbol), "mocks/MockPriceFeed", "setPrice", [answer]);
}

/** Pins a mock feed's updatedAt to `t` (0 unpins: fresh as the reading block). */
export function setUpdatedAt(env: Env, symbol: string, t: bigint) {
  return deployer(env).call(feedOf(env, symbol), "mocks/MockPriceFeed", "setUpdatedAt", [t]);
}

/** The vault's allowance of `token` to `spender`. */
export function allowanceOf(env: Env, token: Address, spender: Address): Promise<bigint> {
  return env.clients.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [env.vault, spender] });
}
