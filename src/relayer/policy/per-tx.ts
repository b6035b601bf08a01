// The bot's cap on one request's USD value (0 = none). A swap has its own cap (rebalance.ts).
import { relayError } from "../../errors.ts";
import { formatUsd } from "../usd.ts";
import { rule } from "./rule.ts";

export const perTxLimit = rule({
  name: "per-tx-limit",
  kinds: ["payment", "execute", "x402"],
  codes: ["EXCEEDS_PER_TX_LIMIT"],
  valued: true,
  check(_request, { config, usdValue }) {
    if (config.maxPerTxAmount > 0n && usdValue > config.maxPerTxAmount) {
      throw relayError("EXCEEDS_PER_TX_LIMIT", `amount worth ${formatUsd(usdValue)} USD exceeds the bot's maxPerTxAmount of ${formatUsd(config.maxPerTxAmount)} USD`);
    }
  },
});
