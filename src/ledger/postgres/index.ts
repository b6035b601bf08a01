// The relayer's Store on PostgreSQL (several relayer instances sharing one database).
export { openPostgresStore, PostgresStore } from "./store.ts";
export type { PostgresStoreOptions } from "./store.ts";
export { migrate, migrations, schemaVersion } from "./schema.ts";
