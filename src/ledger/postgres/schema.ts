// The PostgreSQL store's tables and the migrations that bring a database up to the current version.
// The same tables as the SQLite ledger (src/ledger/schema.ts), with PostgreSQL's types: amounts,
// nonces and deadlines are NUMERIC (unbounded integers, like the SQLite ledger's decimal TEXT), a
// spend entry is BIGINT (at most 2^63 - 1, as there), times are unix ms in BIGINT, JSON is TEXT.
// `seq` columns keep insertion order where SQLite used its rowid.
import { spendBucketsFirstFill } from "../spend-buckets.ts";
import type pg from "pg";

/**
 * Migrations in order; migration i (0-based) is version i + 1 in `schema_migrations`.
 * Never edit a released migration: append a new one.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE requests (
    seq               BIGINT GENERATED ALWAYS AS IDENTITY,
    id                TEXT PRIMARY KEY,
    kind              TEXT NOT NULL CHECK (kind IN ('payment', 'execute', 'swap')),
    chain_id          BIGINT NOT NULL,
    vault             TEXT NOT NULL,
    bot               TEXT NOT NULL,
    intent_hash       TEXT NOT NULL,
    idempotency_key   TEXT NOT NULL,
    fingerprint       TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN
                        ('received', 'scanning', 'held', 'submitting', 'submitted', 'approved', 'rejected')),
    usd_value         NUMERIC NOT NULL,
    body              TEXT NOT NULL,
    response          TEXT,
    reason            TEXT,
    held_because      TEXT,
    agents            TEXT,
    tx_hash           TEXT,
    raw_tx            TEXT,
    nonce             NUMERIC,
    signer            TEXT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    deadline          NUMERIC NOT NULL,
    review_expires_at BIGINT
  );
  CREATE INDEX requests_by_intent ON requests (chain_id, vault, intent_hash);
  CREATE INDEX requests_in_flight ON requests (created_at, seq) WHERE status IN ('submitting', 'submitted');
  CREATE INDEX requests_unsettled ON requests (created_at, seq) WHERE status IN ('received', 'scanning');
  CREATE INDEX requests_by_review ON requests (status, chain_id, vault, created_at) WHERE held_because IS NOT NULL;
  CREATE INDEX requests_review_expiry ON requests (review_expires_at) WHERE status = 'held';
  CREATE INDEX requests_by_bot ON requests (chain_id, vault, bot, created_at);

  CREATE TABLE idempotency (
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    response    TEXT,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (kind, key)
  );
  CREATE INDEX idempotency_by_age ON idempotency (created_at);

  CREATE TABLE spend (
    request_id TEXT PRIMARY KEY,
    chain_id   BIGINT NOT NULL,
    vault      TEXT NOT NULL,
    bot        TEXT NOT NULL,
    usd        BIGINT NOT NULL CHECK (usd >= 0),
    at         BIGINT NOT NULL
  );
  CREATE INDEX spend_by_vault ON spend (chain_id, vault, at) INCLUDE (usd);
  CREATE INDEX spend_by_bot ON spend (chain_id, vault, bot, at) INCLUDE (usd);

  -- Spend totals per bot and minute, so that a window's total reads at most one row per minute
  -- (plus the raw entries of its first, partial minute) however many requests it holds.
  CREATE TABLE spend_minutes (
    chain_id BIGINT NOT NULL,
    vault    TEXT NOT NULL,
    bot      TEXT NOT NULL,
    minute   BIGINT NOT NULL,
    usd      NUMERIC NOT NULL,
    count    BIGINT NOT NULL,
    PRIMARY KEY (chain_id, vault, bot, minute)
  );
  CREATE INDEX spend_minutes_by_vault ON spend_minutes (chain_id, vault, minute) INCLUDE (usd, count);

  CREATE TABLE nonces (
    chain_id BIGINT NOT NULL,
    signer   TEXT NOT NULL,
    next     NUMERIC NOT NULL,
    PRIMARY KEY (chain_id, signer)
  );

  CREATE TABLE replacements (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY,
    tx_hash    TEXT PRIMARY KEY,
    original   TEXT NOT NULL,
    raw_tx     TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX replacements_by_original ON replacements (original, created_at, seq);

  CREATE TABLE refused_intents (
    chain_id    BIGINT NOT NULL,
    vault       TEXT NOT NULL,
    intent_hash TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    reason      TEXT NOT NULL,
    at          BIGINT NOT NULL,
    PRIMARY KEY (chain_id, vault, intent_hash)
  );

  CREATE TABLE terms_acceptances (
    wallet    TEXT NOT NULL,
    version   TEXT NOT NULL,
    signature TEXT NOT NULL,
    message   TEXT NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (wallet, version)
  );
  CREATE INDEX terms_acceptances_by_time ON terms_acceptances (wallet, at);

  CREATE TABLE linked_intents (
    chain_id    BIGINT NOT NULL,
    vault       TEXT NOT NULL,
    intent_hash TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    PRIMARY KEY (chain_id, vault, intent_hash, request_id)
  );

  -- One row that Store.sync() rewrites in a durable commit: PostgreSQL flushes its log in order,
  -- so that commit makes every earlier one (durable: false included) durable with it.
  CREATE TABLE store_sync (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at BIGINT NOT NULL
  );
  INSERT INTO store_sync (id, at) VALUES (1, 0);
  `,
  // 2: what several instances share besides the ledger: rate-limit buckets (rate-limiter.ts),
  // spent SIWE nonces (siwe-nonces.ts) and secrets every instance must hold alike (secrets.ts).
  `
  CREATE TABLE rate_buckets (
    id         TEXT PRIMARY KEY,
    tokens     DOUBLE PRECISION NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE TABLE siwe_spent_nonces (
    nonce      TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX siwe_spent_nonces_by_expiry ON siwe_spent_nonces (expires_at);
  CREATE TABLE shared_secrets (
    name   TEXT PRIMARY KEY,
    secret BYTEA NOT NULL
  );
  `,
  // 3: which instance signs with each relayer key (leases.ts): one holder at a time, with a
  // fencing token that grows with every change of holder. Expiry is by the database's clock.
  `
  CREATE TABLE key_leases (
    chain_id   BIGINT NOT NULL,
    signer     TEXT NOT NULL,
    holder     TEXT NOT NULL,
    token      BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (chain_id, signer)
  );
  `,
  // 4: which instance recorded each request (and claimed each idempotency key), and which instances are alive (a heartbeat with an
  // expiry by the database's clock): the received or scanning requests of an instance whose
  // heartbeat expired were interrupted, and a surviving instance settles them (store.ts). And an
  // owner's decision on a held review under way, until when: a second one meanwhile is refused.
  // And the jobs instances hand to the holder of a relayer key's lease (signing-queue.ts).
  `
  ALTER TABLE requests ADD COLUMN instance TEXT;
  ALTER TABLE idempotency ADD COLUMN instance TEXT;
  ALTER TABLE requests ADD COLUMN deciding_until BIGINT;
  CREATE TABLE signing_jobs (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY,
    request_id TEXT PRIMARY KEY,
    chain_id   BIGINT NOT NULL,
    signer     TEXT NOT NULL,
    job        TEXT NOT NULL
  );
  CREATE INDEX signing_jobs_by_key ON signing_jobs (chain_id, signer, seq);
  CREATE TABLE instances (
    id         TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
  );
  `,
  // 5 (signed transactions stored once): a batch's signed transaction was copied into each of its
  // requests' rows and rewritten with every state change of each; it is now one row of
  // `transactions`, keyed by its hash, which the requests' tx_hash names. In-flight rows keep their
  // raw transaction (moved here), so a restart still re-broadcasts it.
  `
  CREATE TABLE transactions (
    tx_hash TEXT PRIMARY KEY,
    raw_tx  TEXT NOT NULL
  );
  INSERT INTO transactions (tx_hash, raw_tx)
    SELECT DISTINCT ON (tx_hash) tx_hash, raw_tx FROM requests
    WHERE tx_hash IS NOT NULL AND raw_tx IS NOT NULL ORDER BY tx_hash, created_at, seq;
  ALTER TABLE requests DROP COLUMN raw_tx;
  `,
  // 6 (coarser spend buckets): a busy vault's window read one spend_minutes row per bot and minute.
  // Totals per hour and per day for each bot, and per minute, hour and day for the whole vault
  // (bot = ''), let a window read the minutes up to its first whole hour, the hours up to its first
  // whole day, then days: about 59 + 23 rows plus one per day, however busy (as the SQLite ledger).
  `
  CREATE TABLE spend_buckets (
    chain_id BIGINT NOT NULL,
    vault    TEXT NOT NULL,
    bot      TEXT NOT NULL,
    size     BIGINT NOT NULL,
    start    BIGINT NOT NULL,
    usd      NUMERIC NOT NULL,
    count    BIGINT NOT NULL,
    PRIMARY KEY (chain_id, vault, bot, size, start)
  );
  ${spendBucketsFirstFill}
  `,
  // 7: a vault's window reads its minutes from spend_buckets (6), so nothing reads spend_minutes by
  // vault any more; its index only cost each reservation one more write.
  `
  DROP INDEX IF EXISTS spend_minutes_by_vault;
  `,
  // 8: the on-chain cancels that make each rejection final (src/ledger/intent-cancels.ts), queued
  // in the rejection's own transaction; claimed by one live instance at a time. And the intents
  // linked to a request, found by that request (a rejected swap-and-pay cancels its swap too).
  `
  CREATE TABLE intent_cancels (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY,
    chain_id      BIGINT NOT NULL,
    vault         TEXT NOT NULL,
    intent_hash   TEXT NOT NULL,
    request_id    TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'done')),
    signer        TEXT,
    nonce         NUMERIC,
    tx_hash       TEXT,
    raw_tx        TEXT,
    attempts      INTEGER NOT NULL,
    not_before    BIGINT NOT NULL,
    last_error    TEXT,
    claimed_by    TEXT,
    claimed_until BIGINT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (chain_id, vault, intent_hash)
  );
  CREATE INDEX intent_cancels_open ON intent_cancels (created_at, seq) WHERE status <> 'done';
  CREATE INDEX linked_intents_by_request ON linked_intents (request_id);
  `,
  // 14: requests of kind 'x402' (the vault pays an x402 paywall).
  `
  ALTER TABLE requests DROP CONSTRAINT requests_kind_check;
  ALTER TABLE requests ADD CONSTRAINT requests_kind_check CHECK (kind IN ('payment', 'execute', 'swap', 'x402'));
  `,
];

/** The schema version this code writes (the highest version in `schema_migrations` after {@link migrate}). */
export const schemaVersion = migrations.length;

/**
 * Session-level advisory lock held while migrating: several stores opening one database at once
 * migrate it once (the others wait, then find it current). The key is arbitrary but fixed.
 */
const migrationLock = 0x72656c61; // "rela"

/**
 * Brings the database to {@link schemaVersion}, each step in its own transaction recorded in
 * `schema_migrations`. Refuses a database written by a newer version.
 */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [migrationLock]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    INTEGER PRIMARY KEY,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number | null }>("SELECT MAX(version) AS version FROM schema_migrations");
      let version = rows[0]?.version ?? 0;
      if (version > schemaVersion) {
        throw new Error(`ledger schema version ${version} is newer than this relay supports (${schemaVersion})`);
      }
      for (; version < schemaVersion; version++) {
        await client.query("BEGIN");
        try {
          await client.query(migrations[version]!);
          await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version + 1]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [migrationLock]);
    }
  } finally {
    client.release();
  }
}
