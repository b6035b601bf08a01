// x402 v2 on the wire, as a buyer meets it: the `PAYMENT-REQUIRED` header of a 402 (what the
// resource accepts), the `PAYMENT-SIGNATURE` header of the paid retry (an EIP-3009 authorization for
// the `exact` scheme), the `PAYMENT-RESPONSE` header of a settled answer. Each is base64 of UTF-8
// JSON, read and written here with the platform's atob/btoa: the client needs no x402 package.
import { getAddress, isAddress, type Address, type Hex } from "viem";
import { X402ProtocolError } from "./x402-errors.ts";

/** One way a resource accepts payment (an entry of `accepts`). Amounts are base units, as decimal strings. */
export interface X402PaymentRequirements {
  scheme: string;
  /** CAIP-2, e.g. `eip155:84532`. */
  network: string;
  amount: string;
  /** The token paid in. */
  asset: string;
  /** The merchant. */
  payTo: string;
  maxTimeoutSeconds: number;
  /** For `exact` on EVM: the token's EIP-712 `name` and `version`, and `assetTransferMethod` when not EIP-3009. */
  extra?: Record<string, unknown>;
}

/** What a 402's `PAYMENT-REQUIRED` header holds. */
export interface X402PaymentRequired {
  x402Version: number;
  error?: string;
  resource?: { url: string; description?: string; mimeType?: string };
  accepts: X402PaymentRequirements[];
  extensions?: Record<string, unknown>;
}

/** An EIP-3009 `TransferWithAuthorization`, as the `exact` scheme carries it (numbers as decimal strings). */
export interface X402Authorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

/** The `PAYMENT-RESPONSE` header of a paid answer: the merchant's settlement. */
export interface X402Settlement {
  success: boolean;
  /** The settlement transaction's hash. */
  transaction: string;
  network: string;
  payer?: string;
  errorReason?: string;
}

/** The EIP-712 type of an EIP-3009 transfer authorization (the token's own domain). */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** base64 (standard alphabet) of the UTF-8 JSON of `value`. */
export function encodeBase64Json(value: unknown): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(JSON.stringify(value))) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The JSON value in base64 text (standard or URL-safe alphabet); undefined when it is not one. */
export function decodeBase64Json(text: string): unknown {
  try {
    const binary = atob(text.trim().replace(/-/g, "+").replace(/_/g, "/"));
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch {
    return undefined;
  }
}

/**
 * The payment a 402 asks for, from its `PAYMENT-REQUIRED` header.
 * @throws X402ProtocolError when the header is missing or is not an x402 v2 PaymentRequired.
 */
export function readPaymentRequired(headers: { get(name: string): string | null }): X402PaymentRequired {
  const header = headers.get("payment-required");
  if (header === null) throw new X402ProtocolError("the 402 answer has no PAYMENT-REQUIRED header (not an x402 v2 paywall)");
  const value = decodeBase64Json(header);
  if (!isRecord(value)) throw new X402ProtocolError("the PAYMENT-REQUIRED header is not base64 of a JSON object");
  if (value.x402Version !== 2) throw new X402ProtocolError(`the paywall speaks x402 version ${String(value.x402Version)}; this client speaks version 2`);
  if (!Array.isArray(value.accepts)) throw new X402ProtocolError("the PAYMENT-REQUIRED header has no `accepts` list");
  const resource = isRecord(value.resource) && typeof value.resource.url === "string" ? (value.resource as X402PaymentRequired["resource"]) : undefined;
  return {
    x402Version: 2,
    ...(typeof value.error === "string" ? { error: value.error } : {}),
    ...(resource === undefined ? {} : { resource }),
    // Entries this client cannot read are dropped here; choosing among the rest is x402-choose.ts's.
    accepts: value.accepts.filter(isRequirement),
    ...(isRecord(value.extensions) ? { extensions: value.extensions } : {}),
  };
}

/** The settlement in a paid answer's `PAYMENT-RESPONSE` header; undefined when there is none to read. */
export function readSettlement(headers: { get(name: string): string | null }): X402Settlement | undefined {
  const header = headers.get("payment-response");
  if (header === null) return undefined;
  const value = decodeBase64Json(header);
  if (!isRecord(value) || typeof value.success !== "boolean") return undefined;
  return {
    success: value.success,
    transaction: typeof value.transaction === "string" ? value.transaction : "",
    network: typeof value.network === "string" ? value.network : "",
    ...(typeof value.payer === "string" ? { payer: value.payer } : {}),
    ...(typeof value.errorReason === "string" ? { errorReason: value.errorReason } : {}),
  };
}

/**
 * The `PAYMENT-SIGNATURE` header of the paid retry: the requirement accepted exactly as the paywall
 * gave it (the server compares them), and the signed EIP-3009 authorization.
 */
export function paymentSignatureHeader(required: X402PaymentRequired, accepted: X402PaymentRequirements, authorization: X402Authorization, signature: Hex): string {
  return encodeBase64Json({
    x402Version: 2,
    ...(required.resource === undefined ? {} : { resource: required.resource }),
    accepted,
    payload: { authorization, signature },
    ...(required.extensions === undefined ? {} : { extensions: required.extensions }),
  });
}

/** The chain id of a CAIP-2 `eip155:<id>` network; undefined for any other. */
export function evmChainId(network: string): number | undefined {
  const match = /^eip155:([1-9]\d{0,15})$/.exec(network);
  return match ? Number(match[1]) : undefined;
}

/** An address of a requirement, checksummed. */
export function requirementAddress(text: string): Address {
  return getAddress(text);
}

function isRequirement(value: unknown): value is X402PaymentRequirements {
  return (
    isRecord(value) &&
    typeof value.scheme === "string" &&
    typeof value.network === "string" &&
    typeof value.amount === "string" &&
    /^\d{1,78}$/.test(value.amount) &&
    typeof value.asset === "string" &&
    isAddress(value.asset, { strict: false }) &&
    typeof value.payTo === "string" &&
    isAddress(value.payTo, { strict: false }) &&
    typeof value.maxTimeoutSeconds === "number" &&
    Number.isSafeInteger(value.maxTimeoutSeconds) &&
    value.maxTimeoutSeconds > 0 &&
    (value.extra === undefined || isRecord(value.extra))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
