// Valid request bodies for the validation tests, built from the shared golden vectors so that
// they also verify end to end (validateBody → hashIntent → recoverSigner).
import { vectorNamed } from "../support/vectors.ts";

export const KEY = "6f1c2b1e-9a3c-4d5e-8f7a-0b1c2d3e4f50";
export const OTHER_KEY = "0d8a3c2e-1b4f-4a6d-9e7c-5f3b2a1c0d9e";
// keccak256(0x12345678) is the calldataHash the execute vector signs.
export const CALLDATA = "0x12345678";

export function paymentBody(): Record<string, unknown> {
  const v = vectorNamed("payment-intent");
  return {
    ...v.message,
    signature: v.signature,
    chainId: v.domain.chainId,
    vaultAddress: v.domain.verifyingContract,
    idempotencyKey: KEY,
  };
}

export function executeBody(): Record<string, unknown> {
  const v = vectorNamed("execute-intent");
  const { calldataHash: _signedHash, ...message } = v.message;
  return {
    chainId: v.domain.chainId,
    vaultAddress: v.domain.verifyingContract,
    ...message,
    callData: CALLDATA,
    signature: v.signature,
    idempotencyKey: KEY,
  };
}

export function swapBody(): Record<string, unknown> {
  const v = vectorNamed("swap-intent");
  return {
    chainId: v.domain.chainId,
    vaultAddress: v.domain.verifyingContract,
    ...v.message,
    signature: v.signature,
    idempotencyKey: KEY,
  };
}

export const bodies = { payment: paymentBody, execute: executeBody, swap: swapBody } as const;
