// A swap's output token must be on the vault's rebalance whitelist (its own, else the registry's
// default one), as the vault itself answers it (isRebalanceAllowed, read by the lens): the relayer
// keeps no list of its own that could differ from the one the vault enforces. Its value must be
// within the bot's maxRebalanceAmount (0 = none). Its volume window is reserved with the request
// (spend-windows.ts).
import { relayError } from "../../errors.ts";
import { formatUsd } from "../usd.ts";
import { rule } from "./rule.ts";

export const rebalanceToken = rule({
  name: "rebalance-token",
  kinds: ["swap"],
  codes: ["REBALANCE_TOKEN_NOT_ALLOWED"],
  check(request, snapshot) {
    if (!snapshot.toTokenAllowed) {
      const list = snapshot.rebalanceTokenCount > 0n ? "on-chain" : "default (the registry's)";
      throw relayError("REBALANCE_TOKEN_NOT_ALLOWED", `toToken ${request.intent.toToken} is not on the vault's ${list} rebalance whitelist`);
    }
  },
});

export const rebalanceLimit = rule({
  name: "rebalance-limit",
  kinds: ["swap"],
  codes: ["EXCEEDS_REBALANCE_LIMIT"],
  valued: true,
  check(_request, { config, usdValue }) {
    if (config.maxRebalanceAmount > 0n && usdValue > config.maxRebalanceAmount) {
      throw relayError("EXCEEDS_REBALANCE_LIMIT", `swap worth ${formatUsd(usdValue)} USD exceeds the bot's maxRebalanceAmount of ${formatUsd(config.maxRebalanceAmount)} USD`);
    }
  },
});
