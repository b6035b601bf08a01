// The vault's static policy as a list of rules (src/relayer/policy/): each rule declares its kinds
// and codes truthfully, the codes are in the error table and documented on the routes of those
// kinds, and the list's order — which decides the error a request failing several rules gets — is
// DESIGN.md §7's, as written out here independently of the list.
import { describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, type Address } from "viem";
import type { ExecuteRequest, PaymentRequest, RelayRequest, SwapRequest, X402Request } from "../../src/api/validate.ts";
import { errorCodes, isRelayError, statusOf } from "../../src/errors.ts";
import type { PolicySnapshot } from "../../src/relayer/chain/snapshot.ts";
import { intentKinds } from "../../packages/client/src/intent-types.ts";
import { kinds } from "../../src/relayer/kinds/index.ts";
import { checkPolicy, checkValue, policyRules } from "../../src/relayer/policy/index.ts";
import { buildOpenApiDocument } from "../../src/server/openapi.ts";

const VAULT: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const BOT: Address = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const TOKEN: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const PAYEE: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const envelope = { chainId: 84532, vaultAddress: VAULT, signature: "0x" as const, idempotencyKey: "k" };
const payment: PaymentRequest = { ...envelope, kind: "payment", intent: { bot: BOT, to: PAYEE, token: TOKEN, amount: 1n, deadline: 1n, ref: `0x${"00".repeat(32)}` } };
const transfer = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [PAYEE, 5n] });
const execute: ExecuteRequest = {
  ...envelope, kind: "execute", callData: transfer,
  intent: { bot: BOT, protocol: TOKEN, calldataHash: `0x${"00".repeat(32)}`, tokens: [], amounts: [], value: 0n, deadline: 1n, ref: `0x${"00".repeat(32)}` },
};
const swap: SwapRequest = {
  ...envelope, kind: "swap",
  intent: { bot: BOT, toToken: PAYEE, minToAmount: 1n, fromToken: TOKEN, maxFromAmount: 1n, deadline: 1n, ref: `0x${"00".repeat(32)}` },
};
const x402: X402Request = {
  ...envelope, kind: "x402",
  intent: { bot: BOT, token: TOKEN, payTo: PAYEE, amount: 1n, validAfter: 0n, validBefore: 2n, nonce: `0x${"00".repeat(32)}`, deadline: 1n },
};
const requests: Record<string, RelayRequest> = { payment, execute, swap, x402 };

/** A snapshot every rule passes: priced, within every cap, destination, protocol and toToken allowed. */
function passing(): PolicySnapshot {
  return {
    blockNumber: 1n, timestamp: 1n, isVault: true, paused: false, botActive: true,
    config: { maxPerTxAmount: 1000n, maxRebalanceAmount: 1000n, spendingLimits: [], aiTriggerThreshold: 0n, requireAiVerification: false, requireHumanReview: false },
    vaultLimits: [], destinationAllowed: true, destinationReason: "", balances: [], intentUsed: false, priced: true, usdValue: 100n,
    protocolApproved: true, rebalanceTokenCount: 1n, toTokenAllowed: true, protocolIsDefaultToken: false, intentCancelled: false,
    priceStale: false, swapSlippageBps: 0n, swapFloor: 0n, swapLimit: { amount: 0n, maxCount: 0n, windowSeconds: 0n },
    botBuckets: [], vaultBuckets: [], swapBucket: [0n, 0n, 0n, 0n],
  };
}

/**
 * Each rule's failure (every rule of the list has one): a change of the passing snapshot `s`, or of
 * the request `r`, returned changed (a rule may read the request alone).
 */
const failures: Record<string, (s: PolicySnapshot, r: RelayRequest) => RelayRequest | void> = {
  "usable-prices": (s) => void (s.priceStale = true),
  "per-tx-limit": (s) => void (s.config = { ...s.config, maxPerTxAmount: 50n }),
  "payment-destination": (s) => void (s.destinationAllowed = false),
  "transfer-destination": (s) => void (s.destinationAllowed = false),
  "protocol-approval": (s) => void (s.protocolApproved = false),
  "rebalance-token": (s) => void (s.toTokenAllowed = false),
  "rebalance-limit": (s) => void (s.config = { ...s.config, maxRebalanceAmount: 50n }),
};

/** Every code a rule answers, with its status (a code only a rule answers is pinned here, not in test/errors.test.ts). */
const ruleCodeStatuses: Record<string, number> = {
  PRICE_FEED_STALE: 422,
  EXCEEDS_PER_TX_LIMIT: 403,
  DESTINATION_NOT_ALLOWED: 403,
  PROTOCOL_NOT_APPROVED: 403,
  REBALANCE_TOKEN_NOT_ALLOWED: 403,
  EXCEEDS_REBALANCE_LIMIT: 403,
};

/** DESIGN.md §7 ("policy 403s", in the order policy/index.ts documents), per kind. */
const documentedOrder: Record<string, string[]> = {
  payment: ["usable-prices", "per-tx-limit", "payment-destination"],
  execute: ["usable-prices", "per-tx-limit", "transfer-destination", "protocol-approval"],
  swap: ["usable-prices", "rebalance-token", "rebalance-limit"],
  // An x402 authorization is a payment to its merchant (payTo): the payment's rules, in their order.
  x402: ["usable-prices", "per-tx-limit", "payment-destination"],
};

const codeOf = (run: () => void): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!isRelayError(error)) throw error;
    return error.code;
  }
};

describe("policy rules", () => {
  it("have unique names, known kinds and codes from the error table", () => {
    expect(new Set(policyRules.map((r) => r.name)).size).toBe(policyRules.length);
    for (const rule of policyRules) {
      expect(rule.kinds.length, rule.name).toBeGreaterThan(0);
      for (const kind of rule.kinds) expect(intentKinds, rule.name).toContain(kind);
      expect(rule.codes.length, rule.name).toBeGreaterThan(0);
      for (const code of rule.codes) expect(errorCodes, rule.name).toContain(code);
    }
    const codes = [...new Set(policyRules.flatMap((r) => r.codes))];
    expect(Object.fromEntries(codes.map((c) => [c, statusOf(c)]))).toEqual(ruleCodeStatuses);
  });

  it("are documented: every code of a rule is listed on the POST route of each of its kinds", () => {
    const doc = buildOpenApiDocument({ chainIds: [84532] }) as { paths: Record<string, { post?: { responses: Record<string, any> } }> };
    for (const kind of intentKinds) {
      const responses = doc.paths[kinds[kind].path]!.post!.responses;
      const documented = Object.values(responses).flatMap((r) => r.content?.["application/json"]?.schema?.allOf?.[1]?.properties?.code?.enum ?? []);
      const carried = [kind, ...kinds[kind].carries];
      for (const rule of policyRules.filter((r) => r.kinds.some((k) => carried.includes(k)))) {
        for (const code of rule.codes) expect(documented, `${rule.name} on ${kind}`).toContain(code);
      }
    }
  });

  it("run per kind in the documented order, and a request failing several gets the first one's error", () => {
    for (const [kind, order] of Object.entries(documentedOrder)) {
      expect(policyRules.filter((r) => r.kinds.includes(kind as never)).map((r) => r.name), kind).toEqual(order);
      // Fail every rule of the kind, then lift the failures one by one from the front: the error
      // is always the first remaining rule's.
      for (let first = 0; first < order.length; first++) {
        const snapshot = passing();
        let request = requests[kind]!;
        for (const name of order.slice(first)) request = failures[name]!(snapshot, request) ?? request;
        const expected = policyRules.find((r) => r.name === order[first])!.codes;
        expect(expected, `${kind}: ${order.slice(first).join(", ")}`).toContain(codeOf(() => checkPolicy(request, snapshot)));
      }
      expect(codeOf(() => checkPolicy(requests[kind]!, passing())), kind).toBeUndefined();
    }
  });

  it("throw only the codes they declare", () => {
    for (const rule of policyRules) {
      for (const kind of rule.kinds) {
        for (const fail of Object.values(failures)) {
          const snapshot = passing();
          const request = fail(snapshot, requests[kind]!) ?? requests[kind]!;
          const code = codeOf(() => rule.check(request, snapshot));
          if (code !== undefined) expect(rule.codes, rule.name).toContain(code);
        }
      }
    }
  });

  it("run again at a raised value only where they read it (checkValue)", () => {
    const snapshot = passing();
    failures["per-tx-limit"]!(snapshot, execute);
    failures["transfer-destination"]!(snapshot, execute);
    failures["protocol-approval"]!(snapshot, execute);
    expect(codeOf(() => checkValue(execute, snapshot))).toBe("EXCEEDS_PER_TX_LIMIT");
    expect(codeOf(() => checkValue(execute, { ...snapshot, config: passing().config }))).toBeUndefined();
  });
});
