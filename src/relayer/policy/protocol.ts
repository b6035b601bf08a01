// An execute calls only a protocol the vault (or the registry, globally) approved. The vault's rule:
// a registry default token takes `approve(address,uint256)` calls without being approved.
import { toFunctionSelector } from "viem";
import { relayError } from "../../errors.ts";
import { selectorOf } from "../chain/selector.ts";
import { rule } from "./rule.ts";

const APPROVE_SELECTOR = toFunctionSelector("approve(address,uint256)");

export const protocolApproval = rule({
  name: "protocol-approval",
  kinds: ["execute"],
  codes: ["PROTOCOL_NOT_APPROVED"],
  check(request, snapshot) {
    if (snapshot.protocolApproved) return;
    if (!snapshot.protocolIsDefaultToken) {
      throw relayError("PROTOCOL_NOT_APPROVED", `protocol ${request.intent.protocol} is not approved for this vault`);
    }
    if (selectorOf(request.callData) !== APPROVE_SELECTOR) {
      throw relayError("PROTOCOL_NOT_APPROVED", `protocol ${request.intent.protocol} is a registry default token: only approve calls on it are allowed without the vault's approval`);
    }
  },
});
