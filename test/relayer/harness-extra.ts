// More helpers for the relayer's end-to-end tests, beside harness.ts: other funded accounts, NFTs
// minted and read, contract reads by artifact name, router quotes, new bots, and a check that an
// error body is exactly SPEC.md's `{error, code, details?}` envelope.
import { decodeEventLog, getAddress, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { expect } from "vitest";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { createSender, type Sender } from "../../src/chain/sender.ts";
import type { BotConfigParams } from "../../src/chain/vault-config.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { swapRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signSwapIntent } from "../../packages/client/src/sign.ts";
import type { SwapIntent } from "../../packages/client/src/intent-types.ts";
import { ownerCall, type Env } from "./harness.ts";

/** USD amounts of the vault's policy (6 decimals): `usd(10)` is ten dollars. */
export const usd = (dollars: number): bigint => BigInt(dollars) * 1_000_000n;

/**
 * What a spend-window refusal's details say `window` (its words, up to "has") has left, in USD. The
 * vault's buckets refill by cap ÷ window seconds a second, so the figure depends on the seconds
 * between the last spend and the check: a test bounds it rather than matching it exactly.
 */
export function usdLeft(details: string, window: string): number {
  const match = /^(.*) has (\d+(?:\.\d+)?) USD left$/.exec(details);
  expect(match?.[1], details).toBe(window);
  return Number(match![2]);
}

/** Moves the devnet's time forward by `seconds` and mines a block, as `relay time advance` does. */
export async function advanceChain(env: Env, seconds: number | bigint): Promise<void> {
  await env.clients.publicClient.request({ method: "evm_increaseTime", params: [Number(seconds)] } as never);
  await env.clients.publicClient.request({ method: "evm_mine", params: [] } as never);
}

/** A new account holding 1 ETH for gas, sending its transactions one at a time. */
export async function fundedSender(env: Env): Promise<Sender> {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  await env.owner.sendValue(account.address, parseEther("1"));
  return createSender(env.clients, key);
}

/** A new bot on the vault with `config` over the seed's permissive limits. */
export async function newBot(env: Env, config: Partial<BotConfigParams> = {}): Promise<PrivateKeyAccount> {
  const bot = privateKeyToAccount(generatePrivateKey());
  await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, ...config }]);
  return bot;
}

/** A view call on `address` through the ABI of artifact `contract` (e.g. "mocks/MockNFT"). */
export function readOf<T>(env: Env, address: Address, contract: string, functionName: string, args: readonly unknown[] = []): Promise<T> {
  const { abi } = readArtifact(contract);
  return env.clients.publicClient.readContract({ address, abi, functionName, args }) as Promise<T>;
}

/** Mints the devnet's MockNFT to `to` (sent by `sender`) and returns the new token id. */
export async function mintNft(env: Env, sender: Sender, to: Address): Promise<bigint> {
  const nft = env.manifest.contracts.nft as Address;
  const receipt = await sender.call(nft, "mocks/MockNFT", "mint", [to]);
  const { abi } = readArtifact("mocks/MockNFT");
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== nft.toLowerCase()) continue;
    const event = decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
    if (event.eventName === "Transfer") return (event.args as unknown as { tokenId: bigint }).tokenId;
  }
  throw new Error("MockNFT.mint emitted no Transfer event");
}

/** Current holder of a MockNFT token. */
export function nftOwner(env: Env, tokenId: bigint): Promise<Address> {
  return readOf<Address>(env, env.manifest.contracts.nft as Address, "mocks/MockNFT", "ownerOf", [tokenId]);
}

/** The devnet router's quote for `amountIn` of `from` into `to` (reverts when the pair is disabled). */
export function routerQuote(env: Env, from: Address, to: Address, amountIn: bigint): Promise<bigint> {
  return readOf<bigint>(env, env.manifest.contracts.router as Address, "mocks/MockSwapRouter", "quote", [from, to, amountIn]);
}

/** Enables or disables a pair on the devnet router; any account may. */
export function setPair(env: Env, sender: Sender, a: Address, b: Address, enabled: boolean) {
  return sender.call(env.manifest.contracts.router as Address, "mocks/MockSwapRouter", "setPairEnabled", [a, b, enabled]);
}

/** Asserts that `body` is exactly an error envelope with `code`: `{error, code}` or `{error, code, details}`. */
export function expectErrorEnvelope(body: unknown, code: string): void {
  expect(body).toBeTypeOf("object");
  const record = body as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  expect(keys, `error body keys: ${keys.join(", ")}`).toEqual("details" in record ? ["code", "details", "error"] : ["code", "error"]);
  expect(record.code).toBe(code);
  expect(record.error).toEqual(expect.any(String));
  expect((record.error as string).length).toBeGreaterThan(0);
  if ("details" in record) expect(record.details).toEqual(expect.any(String));
}

/** A signed swap body like harness.ts's `swapBody`, signed by `signer` (a bot other than the default). */
export async function swapBodyAs(
  env: Env,
  signer: PrivateKeyAccount,
  intent: Partial<SwapIntent> & Pick<SwapIntent, "fromToken" | "toToken" | "maxFromAmount" | "minToAmount">,
  extras: { metadata?: Record<string, string> } = {},
) {
  const full: SwapIntent = { bot: signer.address, deadline: defaultDeadline(), ref: randomRef(), ...intent };
  const signature = await signSwapIntent(signer, env.manifest.domain as never, full);
  return swapRequestBody(env.manifest.domain as never, full, signature, { idempotencyKey: crypto.randomUUID(), metadata: extras.metadata });
}

/** A new vault from the devnet's factory, owned by `sender`; empty until someone funds it. */
export async function deployVault(env: Env, sender: Sender): Promise<Address> {
  const factory = env.manifest.contracts.factory as Address;
  const receipt = await sender.call(factory, "ServiceVaultFactory", "deployVault");
  const { abi } = readArtifact("ServiceVaultFactory");
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== factory.toLowerCase()) continue;
    const event = decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
    if (event.eventName === "VaultDeployed") return getAddress((event.args as unknown as { vault: Address }).vault);
  }
  throw new Error("deployVault emitted no VaultDeployed event");
}

/** `address` with the case of one checksummed letter flipped: the same 20 bytes, a wrong EIP-55 checksum. */
export function badChecksum(address: Address): string {
  const i = [...address].findIndex((c, k) => k >= 2 && /[a-fA-F]/.test(c));
  if (i < 0) throw new Error(`${address} has no letters to flip`);
  const c = address[i]!;
  return address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
}
