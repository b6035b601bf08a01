// A swap's output token must be on the vault's rebalance whitelist (the on-chain one, else the
// chain's default list), and its value within the bot's maxRebalanceAmount (0 = none). Its volume
// window is reserved with the request (spend-windows.ts).
import { relayError } from "../../errors.ts";
import { formatUsd } from "../usd.ts";
import { rule } from "./rule.ts";

export const rebalanceToken = rule({
  name: "rebalance-token",
  kinds: ["swap"],
  codes: ["REBALANCE_TOKEN_NOT_ALLOWED"],
  check(request, snapshot, { defaultRebalanceTokens }) {
    const toToken = request.intent.toToken;
    const allowed = snapshot.rebalanceTokenCount > 0n
      ? snapshot.toTokenOnVaultList
      : defaultRebalanceTokens.some((t) => t.toLowerCase() === toToken.toLowerCase());
    if (!allowed) {
      throw relayError("REBALANCE_TOKEN_NOT_ALLOWED", `toToken ${toToken} is not on the vault's ${snapshot.rebalanceTokenCount > 0n ? "on-chain" : "default"} rebalance whitelist`);
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
