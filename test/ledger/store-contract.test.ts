// The Store's semantics (postgres/store-contract.ts) on the SQLite ledger: the same assertions the
// PostgreSQL store runs (postgres/store-contract.test.ts).
import { describeStoreContract } from "./postgres/store-contract.ts";
import { sqliteStore } from "./support/stores.ts";
import { manualClock } from "./support.ts";

describeStoreContract("SQLite store", async () => {
  const clock = manualClock();
  const { store, connect } = await sqliteStore.fresh(clock.now);
  return { store, clock, another: (now = clock.now) => connect(now) };
});
