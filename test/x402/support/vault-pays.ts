// The vault as an x402 payer, as a bot drives it: read the paywall's requirement, sign an X402Intent
// for exactly it, have the relayer record it on the vault, then present the authorization (from: the
// vault) in a PAYMENT-SIGNATURE the merchant's facilitator settles. Shared by test/x402/ and
// test/security/; every helper talks to the real relayer, devnet and x402 server.
import { encodePaymentSignatureHeader, decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { erc20Abi, hashTypedData, keccak256, toHex, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { x402RequestBody } from "../../../packages/client/src/bodies.ts";
import type { X402Intent } from "../../../packages/client/src/intent-types.ts";
import { signX402Intent } from "../../../packages/client/src/sign.ts";
import type { X402Requirement } from "../../../packages/client/src/types.ts";
import { readArtifact } from "../../../src/chain/artifacts.ts";
import type { Env } from "../../relayer/harness.ts";
import { transferWithAuthorizationTypes } from "../../../packages/client/src/x402-wire.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const usdcAbi = readArtifact("mocks/MockUSDC").abi;

/** ERC-1271's answer for a valid signature. */
export const ERC1271_MAGIC = "0x1626ba7e";
/** The signature bytes a PAYMENT-SIGNATURE carries for the vault: none (the vault reads none; see docs/design.md, x402). */
export const VAULT_SIGNATURE: Hex = "0x";

/** The paywall's 402 answer: its resource and first requirement. */
export async function paywall(url: string): Promise<{ resource: { url: string; description?: string; mimeType?: string }; requirement: PaymentRequirements }> {
  const res = await fetch(url);
  if (res.status !== 402) throw new Error(`${url} answered ${res.status}, not 402`);
  const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  return { resource: required.resource as { url: string }, requirement: required.accepts[0]! };
}

/** The chain's time now (seconds). */
export async function chainNow(env: Env): Promise<bigint> {
  return (await env.clients.publicClient.getBlock()).timestamp;
}

/** A fresh EIP-3009 nonce. */
export const randomNonce = (): Hex => keccak256(toHex(crypto.getRandomValues(new Uint8Array(32))));

/** An X402Intent of `bot` for `amount` of the requirement's asset to `payTo`, valid for 10 minutes. */
export async function x402Intent(env: Env, bot: PrivateKeyAccount, payment: { token: Address; payTo: Address; amount: bigint }, overrides: Partial<X402Intent> = {}): Promise<X402Intent> {
  const now = await chainNow(env);
  return { bot: bot.address, ...payment, validAfter: 0n, validBefore: now + 600n, nonce: randomNonce(), deadline: now + 300n, ...overrides };
}

/** The signed body of POST /v1/x402, with the requirement as the paywall stated it when given. */
export async function x402Body(env: Env, bot: PrivateKeyAccount, intent: X402Intent, requirement?: X402Requirement) {
  const signature = await signX402Intent(bot, env.manifest.domain as never, intent);
  return { signature, body: x402RequestBody(env.manifest.domain as never, intent, signature, { idempotencyKey: crypto.randomUUID(), ...(requirement ? { x402: requirement } : {}) }) };
}

/** The requirement object POST /v1/x402 carries, from the paywall's answer. */
export function requirementOf(resource: { url: string; description?: string; mimeType?: string }, r: PaymentRequirements): X402Requirement {
  return { resource: resource.url, description: resource.description, mimeType: resource.mimeType, scheme: r.scheme, network: r.network, payTo: r.payTo as Address, amount: r.amount, asset: r.asset as Address, maxTimeoutSeconds: r.maxTimeoutSeconds, extra: r.extra };
}

/** The PAYMENT-SIGNATURE header presenting the vault's authorization `intent` for `requirement`. */
export function paymentSignature(env: Env, resource: PaymentPayload["resource"], requirement: PaymentRequirements, intent: X402Intent, change: Partial<{ to: Address; value: bigint; signature: Hex }> = {}): string {
  const payload: PaymentPayload = {
    x402Version: 2,
    resource,
    accepted: requirement,
    payload: {
      authorization: {
        from: env.vault,
        to: change.to ?? intent.payTo,
        value: (change.value ?? intent.amount).toString(),
        validAfter: intent.validAfter.toString(),
        validBefore: intent.validBefore.toString(),
        nonce: intent.nonce,
      },
      signature: change.signature ?? VAULT_SIGNATURE,
    },
  };
  return encodePaymentSignatureHeader(payload);
}

/** EIP-3009's TransferWithAuthorization type, as relay-client signs it. */
export const AUTHORIZATION_TYPES = transferWithAuthorizationTypes;

/** The devnet USDC's EIP-712 domain (Base Sepolia's: "USDC", "2"). */
export const usdcDomain = (env: Env) => ({ name: "USDC", version: "2", chainId: env.manifest.chainId, verifyingContract: env.token("USDC") });

/**
 * The EIP-3009 digest of an authorization from the vault, by viem on USDC's own domain (not relay's
 * code): `to` and `value` are the intent's unless changed.
 */
export function vaultDigest(env: Env, intent: X402Intent, change: Partial<{ to: Address; value: bigint }> = {}): Hex {
  return hashTypedData({
    domain: usdcDomain(env),
    types: AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: { from: env.vault, to: change.to ?? intent.payTo, value: change.value ?? intent.amount, validAfter: intent.validAfter, validBefore: intent.validBefore, nonce: intent.nonce },
  });
}

/** transferWithAuthorization's arguments for the vault's authorization `intent`, with these signature bytes. */
export const settleArgs = (env: Env, intent: X402Intent, signature: Hex = VAULT_SIGNATURE) =>
  [env.vault, intent.payTo, intent.amount, intent.validAfter, intent.validBefore, intent.nonce, signature] as const;

/** What the vault answers ERC-1271 for `digest`. */
export function erc1271(env: Env, digest: Hex): Promise<Hex> {
  return env.clients.publicClient.readContract({ address: env.vault, abi: vaultAbi, functionName: "isValidSignature", args: [digest, VAULT_SIGNATURE] }) as Promise<Hex>;
}

/** The validBefore the vault recorded for `digest` (0: never recorded). */
export function recorded(env: Env, digest: Hex): Promise<bigint> {
  return env.clients.publicClient.readContract({ address: env.vault, abi: vaultAbi, functionName: "x402Authorizations", args: [digest] }) as Promise<bigint>;
}

/** Whether the vault used `nonce` as an EIP-3009 authorizer on `token`. */
export function nonceUsed(env: Env, token: Address, nonce: Hex): Promise<boolean> {
  return env.clients.publicClient.readContract({ address: token, abi: usdcAbi, functionName: "authorizationState", args: [env.vault, nonce] }) as Promise<boolean>;
}

/** The token's domain separator, from which the vault computes the digest. */
export function domainSeparatorOf(env: Env, token: Address): Promise<Hex> {
  return env.clients.publicClient.readContract({ address: token, abi: usdcAbi, functionName: "DOMAIN_SEPARATOR" }) as Promise<Hex>;
}

/** ERC-20 balances of `who`, in order. */
export function balances<const W extends readonly Address[]>(env: Env, token: Address, who: W): Promise<{ -readonly [K in keyof W]: bigint }> {
  return Promise.all(who.map((a) => env.clients.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [a] }))) as never;
}
