// The relayer's Store on PostgreSQL (several relayer instances sharing one database).
export { openPostgresPool, openPostgresStore, PostgresStore } from "./store.ts";
export { PostgresRateLimiter } from "./rate-limiter.ts";
export { PostgresNonceBook, type SharedNonceBookOptions } from "./siwe-nonces.ts";
export { loadOrCreateSharedSecret } from "./secrets.ts";
export { leaseIsCurrent, PostgresKeyLeases, type KeyLease } from "./leases.ts";
export type { PostgresStoreOptions } from "./store.ts";
export { migrate, migrations, schemaVersion } from "./schema.ts";
export { PostgresSigningQueue } from "./signing-queue.ts";
