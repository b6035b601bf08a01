// Valid request bodies for the validation tests, built from the shared golden vectors so that
// they also verify end to end (validateBody → hashIntent → recoverSigner).
import { privateKeyToAccount } from "viem/accounts";
import { intentTypes } from "../../packages/client/src/intent-types.ts";
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

// An X402Intent signed by the payment vector's key on its domain (no golden vector names this type).
const x402Vector = vectorNamed("payment-intent");
export const X402_MESSAGE = {
  bot: x402Vector.signer,
  token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  payTo: "0x2222222222222222222222222222222222222222",
  amount: 10_000n,
  validAfter: 0n,
  validBefore: 1_900_000_600n,
  nonce: `0x${"5a".repeat(32)}`,
  deadline: 1_900_000_000n,
} as const;
const x402Signature = await privateKeyToAccount(x402Vector.privateKey).signTypedData({
  domain: x402Vector.domain,
  types: intentTypes,
  primaryType: "X402Intent",
  message: X402_MESSAGE,
});

export function x402Body(): Record<string, unknown> {
  const m = X402_MESSAGE;
  return {
    chainId: x402Vector.domain.chainId,
    vaultAddress: x402Vector.domain.verifyingContract,
    bot: m.bot,
    token: m.token,
    payTo: m.payTo,
    amount: m.amount.toString(),
    validAfter: m.validAfter.toString(),
    validBefore: m.validBefore.toString(),
    nonce: m.nonce,
    deadline: m.deadline.toString(),
    signature: x402Signature,
    idempotencyKey: KEY,
  };
}

export const bodies = { payment: paymentBody, execute: executeBody, swap: swapBody, x402: x402Body } as const;
