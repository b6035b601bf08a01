// The spend limits the ledger benches reserve against: a bot's 24-hour and 1-hour windows and the
// vault's 24-hour window, amounts high enough that nothing is refused.
import type { SpendLimits } from "../../src/ledger/index.ts";

export const dayAndHourLimits: SpendLimits = {
  botLimits: [
    { amount: 10n ** 15n, maxCount: 0n, windowSeconds: 86_400n },
    { amount: 10n ** 14n, maxCount: 0n, windowSeconds: 3_600n },
  ],
  vaultLimits: [{ amount: 10n ** 16n, maxCount: 0n, windowSeconds: 86_400n }],
};
