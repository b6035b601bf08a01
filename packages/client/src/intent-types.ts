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
  ReviewApproval: [
    { name: "intentHash", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The three kinds of intent, as the API, the ledger and the client name them. */
export const intentKinds = ["payment", "execute", "swap"] as const;
export type IntentKind = (typeof intentKinds)[number];

/** Each kind's route: POST submits, GET `<path>/<requestId>` reads its status. */
export const intentPaths = { payment: "/v1/payments", execute: "/v1/execute", swap: "/v1/swap" } as const satisfies Record<IntentKind, string>;

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

export interface ReviewApproval {
  intentHash: Hex;
  deadline: bigint;
}
