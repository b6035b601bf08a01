// The EIP-712 types of DESIGN.md section 5. The domain is always read from the vault (EIP-5267).
import type { Address, Hex } from "viem";

export const intentTypes = {
  PaymentIntent: [
    { name: "bot", type: "address" },
    { name: "to", type: "address" },
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "ref", type: "bytes32" },
  ],
  ExecuteIntent: [
    { name: "bot", type: "address" },
    { name: "protocol", type: "address" },
    { name: "calldataHash", type: "bytes32" },
    { name: "tokens", type: "address[]" },
    { name: "amounts", type: "uint256[]" },
    { name: "value", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "ref", type: "bytes32" },
  ],
  SwapIntent: [
    { name: "bot", type: "address" },
    { name: "toToken", type: "address" },
    { name: "minToAmount", type: "uint256" },
    { name: "fromToken", type: "address" },
    { name: "maxFromAmount", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "ref", type: "bytes32" },
  ],
  // One exact EIP-3009 TransferWithAuthorization from the vault (from = the vault, to = payTo, value =
  // amount, validAfter, validBefore, nonce) the bot asks the vault to authorize: the vault records its
  // digest and answers ERC-1271 for it. `deadline`: the last moment the relayer may record it.
  X402Intent: [
    { name: "bot", type: "address" },
    { name: "token", type: "address" },
    { name: "payTo", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
  ReviewApproval: [
    { name: "intentHash", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The kinds of intent, as the API, the ledger and the client name them (x402: the vault pays an x402 paywall). */
export const intentKinds = ["payment", "execute", "swap", "x402"] as const;
export type IntentKind = (typeof intentKinds)[number];

/** Each kind's route: POST submits, GET `<path>/<requestId>` reads its status. */
export const intentPaths = { payment: "/v1/payments", execute: "/v1/execute", swap: "/v1/swap", x402: "/v1/x402" } as const satisfies Record<IntentKind, string>;

export interface VaultDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

export interface PaymentIntent {
  bot: Address;
  to: Address;
  token: Address;
  amount: bigint;
  deadline: bigint;
  ref: Hex;
}

export interface ExecuteIntent {
  bot: Address;
  protocol: Address;
  calldataHash: Hex;
  tokens: readonly Address[];
  amounts: readonly bigint[];
  value: bigint;
  deadline: bigint;
  ref: Hex;
}

export interface SwapIntent {
  bot: Address;
  toToken: Address;
  minToAmount: bigint;
  fromToken: Address;
  maxFromAmount: bigint;
  deadline: bigint;
  ref: Hex;
}

/** The vault as an x402 payer: one EIP-3009 authorization from the vault to `payTo` for the bot to present. */
export interface X402Intent {
  bot: Address;
  /** The EIP-3009 token (the requirement's `asset`). */
  token: Address;
  payTo: Address;
  amount: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** The EIP-3009 authorization's nonce (bytes32). */
  nonce: Hex;
  deadline: bigint;
}

export interface ReviewApproval {
  intentHash: Hex;
  deadline: bigint;
}
