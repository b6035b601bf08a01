// Signing the relay's EIP-712 intents (DESIGN.md section 5) and the small values that go in them.
//
// The domain is always the vault's own: read it with `readVaultDomain` (EIP-5267), never hard-code it.
// Every signing helper returns a 65-byte `0x` signature r‖s‖v with v = 27 or 28.
import { getEip712Domain } from "viem/actions";
import { hashTypedData, keccak256, stringToHex, toHex, type Address, type Client, type Hex, type LocalAccount, type TypedDataDefinition } from "viem";
import {
  intentTypes,
  type ExecuteIntent,
  type PaymentIntent,
  type ReviewApproval,
  type SwapIntent,
  type VaultDomain,
  type X402Intent,
} from "./intent-types.ts";

/** Anything that can sign EIP-712 typed data locally, such as viem's `privateKeyToAccount(key)`. */
export type TypedDataSigner = Pick<LocalAccount, "address" | "signTypedData">;

/** Default lifetime of an intent, in seconds (SPEC.md: 300 s, keep it short). */
export const DEFAULT_DEADLINE_WINDOW_SECONDS = 300;

/**
 * Read a vault's EIP-712 domain from the chain through EIP-5267 `eip712Domain()`.
 * @param publicClient any viem client connected to the vault's chain.
 */
export async function readVaultDomain(publicClient: Client, vault: Address): Promise<VaultDomain> {
  const { domain } = await getEip712Domain(publicClient, { address: vault });
  return {
    name: domain.name,
    version: domain.version,
    chainId: Number(domain.chainId),
    verifyingContract: domain.verifyingContract,
  };
}

/** Sign a `PaymentIntent` as the bot. */
export function signPaymentIntent(account: TypedDataSigner, domain: VaultDomain, intent: PaymentIntent): Promise<Hex> {
  return signIntent(account, domain, "PaymentIntent", intent);
}

/** Sign an `ExecuteIntent` as the bot. `intent.calldataHash` must be keccak256 of the call data sent. */
export function signExecuteIntent(account: TypedDataSigner, domain: VaultDomain, intent: ExecuteIntent): Promise<Hex> {
  return signIntent(account, domain, "ExecuteIntent", intent);
}

/** Sign a `SwapIntent` as the bot. */
export function signSwapIntent(account: TypedDataSigner, domain: VaultDomain, intent: SwapIntent): Promise<Hex> {
  return signIntent(account, domain, "SwapIntent", intent);
}

/**
 * Sign an `X402Intent` as the bot: asks the vault to authorize exactly one EIP-3009 transfer of
 * `amount` of `token` from the vault to `payTo` (its validAfter, validBefore and nonce as the x402
 * payload will carry them).
 */
export function signX402Intent(account: TypedDataSigner, domain: VaultDomain, intent: X402Intent): Promise<Hex> {
  return signIntent(account, domain, "X402Intent", intent);
}

/**
 * Sign a `ReviewApproval` as the vault owner. `approval.intentHash` is the held intent's EIP-712
 * digest (see `intentDigest`, or the `intentHash` of a review item).
 */
export function signReviewApproval(account: TypedDataSigner, domain: VaultDomain, approval: ReviewApproval): Promise<Hex> {
  return signIntent(account, domain, "ReviewApproval", approval);
}

/** The intent kinds that can be hashed and signed, by their EIP-712 primary type. */
export interface SignableTypes {
  PaymentIntent: PaymentIntent;
  ExecuteIntent: ExecuteIntent;
  SwapIntent: SwapIntent;
  X402Intent: X402Intent;
  ReviewApproval: ReviewApproval;
}

/**
 * The EIP-712 digest of an intent on the vault's domain: the value the vault's `usedIntents` is
 * keyed by, and the `intentHash` an owner's `ReviewApproval` refers to.
 */
export function intentDigest<T extends keyof SignableTypes>(domain: VaultDomain, primaryType: T, message: SignableTypes[T]): Hex {
  return hashTypedData(typedData(domain, primaryType, message));
}

async function signIntent<T extends keyof SignableTypes>(
  account: TypedDataSigner,
  domain: VaultDomain,
  primaryType: T,
  message: SignableTypes[T],
): Promise<Hex> {
  const signature = await account.signTypedData(typedData(domain, primaryType, message));
  return normalizeSignature(signature);
}

// viem's typed-data generics cannot follow a generic primary type, so the definition is widened
// here once; `SignableTypes` keeps callers' messages checked.
function typedData<T extends keyof SignableTypes>(domain: VaultDomain, primaryType: T, message: SignableTypes[T]): TypedDataDefinition {
  return { domain, types: intentTypes, primaryType, message: message as unknown as Record<string, unknown> } as TypedDataDefinition;
}

/**
 * Check a signature is 65 bytes and express v as 27/28 (some signers produce 0/1).
 * @throws Error when the signature has the wrong length or an impossible v.
 */
export function normalizeSignature(signature: Hex): Hex {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) {
    throw new Error(`signature must be 65 bytes of hex, got ${signature.length} characters`);
  }
  const v = Number.parseInt(signature.slice(130), 16);
  if (v === 27 || v === 28) return signature;
  if (v === 0 || v === 1) return `${signature.slice(0, 130)}${(v + 27).toString(16)}` as Hex;
  throw new Error(`signature has an invalid recovery byte v=${v}`);
}

/** A fresh random `ref` (bytes32). */
export function randomRef(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** A deterministic `ref` (bytes32) for a label: keccak256 of its UTF-8 bytes, e.g. an invoice id. */
export function refFromString(text: string): Hex {
  return keccak256(stringToHex(text));
}

/**
 * An intent deadline `windowSeconds` from now (or from `nowSeconds`), as the uint256 the intent holds.
 * @param nowSeconds Unix time in seconds; defaults to the current time.
 */
export function defaultDeadline(nowSeconds: number = Math.floor(Date.now() / 1000), windowSeconds = DEFAULT_DEADLINE_WINDOW_SECONDS): bigint {
  return BigInt(Math.floor(nowSeconds)) + BigInt(windowSeconds);
}
