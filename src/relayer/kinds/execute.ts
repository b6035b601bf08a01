// POST /v1/execute: the vault calls `protocol` with `callData` (its hash signed as calldataHash),
// moving the declared `tokens`/`amounts` and `value` in ETH. Simulated on its own with a gas
// estimate, then valued by what the simulation moves out of the vault (outflows.ts); what it moves
// that no feed prices (NFTs, seen in its trace: nft-outflows.ts) is the owner's to decide. Its
// call's selector decides the owner's review (approval grants) and the AI scan (NFT transfers), path.ts.
import { encodeFunctionData, zeroAddress, type Address } from "viem";
import { intentPaths } from "../../../packages/client/src/intent-types.ts";
import type { ExecuteRequest } from "../../api/validate.ts";
import { decodeCall, describeOutflows } from "../chain/call-decode.ts";
import { vaultAbi } from "../chain/intents.ts";
import { measureOutflows } from "../chain/outflows.ts";
import { reservePaymentWindows } from "../policy/spend-windows.ts";
import { transferRecipient } from "../chain/token-transfer.ts";
import type { KindDescriptor, StoredAmount } from "./kind.ts";

export const execute: KindDescriptor<ExecuteRequest> = {
  kind: "execute",
  path: intentPaths.execute,
  errors: ["EXCEEDS_DAILY_LIMIT", "EXCEEDS_VELOCITY_LIMIT"],
  carries: [],
  answerExtras: false,

  movedFunds(request) {
    const tokens = [...request.intent.tokens];
    const amounts = [...request.intent.amounts];
    if (request.intent.value > 0n) {
      tokens.push(zeroAddress);
      amounts.push(request.intent.value);
    }
    return { tokens, amounts };
  },
  // `to`: where a token transfer made by the call goes (token-transfer.ts), checked like a payment's.
  lensFields: (request) => ({ protocol: request.intent.protocol, to: transferRecipient(request.callData) }),
  counterparty: (request) => request.intent.protocol,
  call: (request) => ({ target: request.intent.protocol, data: request.callData }),
  calldata: (request, _route, approval) =>
    approval
      ? encodeFunctionData({ abi: vaultAbi, functionName: "executeReviewedProtocol", args: [request.intent, request.signature, request.callData, approval.deadline, approval.signature] })
      : encodeFunctionData({ abi: vaultAbi, functionName: "executeProtocol", args: [request.intent, request.signature, request.callData] }),
  simulatesEarly: true,
  valuation: measureOutflows,
  reserve: reservePaymentWindows,
  summary(request, usd, human) {
    const moved = request.intent.tokens.map((t, i) => human(t, request.intent.amounts[i]!));
    if (request.intent.value > 0n) moved.push(human(zeroAddress, request.intent.value));
    const name = request.protocolName ? ` (${request.protocolName})` : "";
    return `call ${request.intent.protocol}${name} with ${moved.join(", ") || "no funds"} (${usd})`;
  },
  reviewAmounts(intent) {
    const amounts: StoredAmount[] = (intent.tokens as string[]).map((t, i) => [t, (intent.amounts as string[])[i]!]);
    // The ETH the call sends along, in ETH.
    if (typeof intent.value === "string" && intent.value !== "0") amounts.push([zeroAddress, intent.value]);
    return amounts;
  },
  // The calldata itself (its hash is in the intent: the owner's side checks it and decodes it on its
  // own), what the call does (decoded calldata) and what the simulation saw leave the vault.
  reviewExtras(stored, view) {
    if (typeof stored.callData !== "string") return {};
    const extras: Record<string, unknown> = { callData: stored.callData, call: decodeCall(stored.intent.protocol as Address, stored.callData, { tokens: view.tokens, vault: view.vault }) };
    const outflows = describeOutflows(stored.outflows, view.tokens);
    if (outflows !== undefined) extras.outflows = outflows;
    // What it moves that relay cannot price (NFTs, tokens with no feed), as its trace saw it.
    if (Array.isArray(stored.unpriced)) extras.unpriced = stored.unpriced;
    return extras;
  },
};
