// A stale or non-positive feed values nothing: the vault refuses it too.
import { relayError } from "../../errors.ts";
import { rule } from "./rule.ts";

export const usablePrices = rule({
  name: "usable-prices",
  kinds: ["payment", "execute", "swap", "x402"],
  codes: ["PRICE_FEED_STALE"],
  valued: true,
  check(_request, snapshot) {
    if (snapshot.priceStale) throw relayError("PRICE_FEED_STALE", "a token's price feed is stale or reports no positive price; the request cannot be valued");
  },
});
