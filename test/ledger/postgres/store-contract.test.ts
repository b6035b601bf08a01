// The Store's semantics (store-contract.ts) on the PostgreSQL store, against a real server.
import { describeStoreContract } from "./store-contract.ts";
import { postgresStores } from "./harness.ts";

describeStoreContract("PostgreSQL store", postgresStores());
