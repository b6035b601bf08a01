// A funding payment's merchant (x402Funding.payTo, the requirement the bot will pay from its own key):
// the vault's destination rules see it as they see a payee. The payment itself goes to the bot; what
// it funds goes on to the merchant, so a blacklisted merchant, or one off a whitelist the vault or the
// bot keeps, is refused as a payment to it would be (DESTINATION_NOT_ALLOWED, nothing recorded).
// One read of the vault's checkDestination at the request's pinned block; none without a payTo.
import { getAddress, type Address } from "viem";
import type { RelayRequest } from "../../api/validate.ts";
import { relayError } from "../../errors.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";

/** The merchant a payment's x402Funding names, when it names one (validated as an address). */
export function fundingMerchant(request: RelayRequest): Address | undefined {
  if (request.kind !== "payment") return undefined;
  const funding = request.x402Funding;
  if (funding === undefined || funding === true) return undefined;
  const payTo = funding.payTo;
  return typeof payTo === "string" ? getAddress(payTo) : undefined;
}

export async function checkFundingMerchant(chain: ChainRuntime, request: RelayRequest, blockNumber: bigint): Promise<void> {
  const merchant = fundingMerchant(request);
  if (merchant === undefined) return;
  if (merchant.toLowerCase() === request.vaultAddress.toLowerCase()) {
    throw relayError("DESTINATION_NOT_ALLOWED", "x402Funding.payTo is the vault itself");
  }
  const { allowed, reason } = await chain.checkDestination(request.vaultAddress, request.intent.bot, merchant, blockNumber);
  if (!allowed) {
    const why = reason === "blacklisted" ? "is blacklisted" : "is not on the vault's or the bot's destination whitelist";
    throw relayError("DESTINATION_NOT_ALLOWED", `x402Funding.payTo ${merchant} (the merchant this payment funds) ${why}`);
  }
}
