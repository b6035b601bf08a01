// The ledger's tables, and the migrations that bring a file up to the current schema version.
import { spendBucketsFirstFill } from "./spend-buckets.ts";
import type { DatabaseSync } from "node:sqlite";

/**
 * Migrations in order; migration i (0-based) moves a file from `PRAGMA user_version` i to i + 1.
 * Never edit a released migration: append a new one.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE requests (
    id                TEXT PRIMARY KEY,
    kind              TEXT NOT NULL CHECK (kind IN ('payment', 'execute', 'swap')),
    chain_id          INTEGER NOT NULL,
    vault             TEXT NOT NULL,
    bot               TEXT NOT NULL,
    intent_hash       TEXT NOT NULL,
    idempotency_key   TEXT NOT NULL,
    fingerprint       TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN
                        ('received', 'scanning', 'held', 'submitting', 'submitted', 'approved', 'rejected')),
    usd_value         TEXT NOT NULL,
    body              TEXT NOT NULL,
    response          TEXT,
    reason            TEXT,
    held_because      TEXT,
    agents            TEXT,
    tx_hash           TEXT,
    raw_tx            TEXT,
    nonce             TEXT,
    signer            TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    deadline          TEXT NOT NULL,
    review_expires_at INTEGER
  );
  CREATE INDEX requests_by_intent ON requests (chain_id, vault, intent_hash);
  CREATE INDEX requests_in_flight ON requests (status) WHERE status IN ('submitting', 'submitted');
  CREATE INDEX requests_by_review ON requests (status, chain_id, vault, created_at) WHERE held_because IS NOT NULL;
  CREATE INDEX requests_review_expiry ON requests (review_expires_at) WHERE status = 'held';

  CREATE TABLE idempotency (
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    response    TEXT,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (kind, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_by_age ON idempotency (created_at);

  CREATE TABLE spend (
    request_id TEXT PRIMARY KEY,
    chain_id   INTEGER NOT NULL,
    vault      TEXT NOT NULL,
    bot        TEXT NOT NULL,
    usd        INTEGER NOT NULL CHECK (usd >= 0),
    at         INTEGER NOT NULL
  );
  CREATE INDEX spend_by_vault ON spend (chain_id, vault, at, usd);
  CREATE INDEX spend_by_bot ON spend (chain_id, vault, bot, at, usd);

  CREATE TABLE nonces (
    chain_id INTEGER NOT NULL,
    signer   TEXT NOT NULL,
    next     TEXT NOT NULL,
    PRIMARY KEY (chain_id, signer)
  ) WITHOUT ROWID;
  `,
  // 2: a bot's history (for the verification agents) and the requests a restart must settle.
  `
  CREATE INDEX requests_by_bot ON requests (chain_id, vault, bot, created_at);
  CREATE INDEX requests_unsettled ON requests (status) WHERE status IN ('received', 'scanning');
  `,
  // 3: fee-bump replacements of a broadcast transaction (same signer and nonce), by the hash first recorded.
  `
  CREATE TABLE replacements (
    tx_hash    TEXT PRIMARY KEY,
    original   TEXT NOT NULL,
    raw_tx     TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX replacements_by_original ON replacements (original, created_at);
  `,
  // 4: spend totals per bot and minute, so that a window's total reads at most one row per minute
  // (plus the raw entries of its first, partial minute) however many requests the window holds.
  // usd = -1 marks a minute whose total does not fit in 64 bits.
  `
  CREATE TABLE spend_minutes (
    chain_id INTEGER NOT NULL,
    vault    TEXT NOT NULL,
    bot      TEXT NOT NULL,
    minute   INTEGER NOT NULL,
    usd      INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (chain_id, vault, bot, minute)
  ) WITHOUT ROWID;
  CREATE INDEX spend_minutes_by_vault ON spend_minutes (chain_id, vault, minute, usd, count);
  INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count)
    SELECT chain_id, vault, bot, at / 60000, SUM(usd), COUNT(*) FROM spend GROUP BY chain_id, vault, bot, at / 60000;
  `,
  // 5: intents the owner refused (rejected, or left undecided until the review lapsed): such an
  // intent never executes, whatever key or unsigned fields a later submission carries. Filled from
  // the reviews already rejected without a transaction.
  `
  CREATE TABLE refused_intents (
    chain_id    INTEGER NOT NULL,
    vault       TEXT NOT NULL,
    intent_hash TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    reason      TEXT NOT NULL,
    at          INTEGER NOT NULL,
    PRIMARY KEY (chain_id, vault, intent_hash)
  ) WITHOUT ROWID;
  INSERT OR IGNORE INTO refused_intents (chain_id, vault, intent_hash, request_id, reason, at)
    SELECT chain_id, vault, intent_hash, id, COALESCE(reason, ''), updated_at FROM requests
    WHERE status = 'rejected' AND held_because IS NOT NULL AND tx_hash IS NULL;
  `,
  // 6: wallets' acceptances of the relayer's terms of service, one per wallet and terms version,
  // with the signed text and signature kept as the proof.
  `
  CREATE TABLE terms_acceptances (
    wallet    TEXT NOT NULL,
    version   TEXT NOT NULL,
    signature TEXT NOT NULL,
    message   TEXT NOT NULL,
    at        INTEGER NOT NULL,
    PRIMARY KEY (wallet, version)
  ) WITHOUT ROWID;
  CREATE INDEX terms_acceptances_by_time ON terms_acceptances (wallet, at);
  `,
  // 7: the other signed intents a request carries besides its own `intent_hash` (a swap-and-pay's
  // swap), so that duplicate, refusal and replay checks see them too.
  `
  CREATE TABLE linked_intents (
    chain_id    INTEGER NOT NULL,
    vault       TEXT NOT NULL,
    intent_hash TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    PRIMARY KEY (chain_id, vault, intent_hash, request_id)
  ) WITHOUT ROWID;
  `,
  // 8: an owner's decision on a held review under way, until when (the store's clock): a second
  // decision meanwhile is refused (Store.claimReview), whatever instance it reaches.
  `
  ALTER TABLE requests ADD COLUMN deciding_until INTEGER;
  `,
  // 9 (signed transactions stored once): a batch's signed transaction was copied into each of its
  // requests' rows and rewritten with every state change of each; it is now one row of
  // `transactions`, keyed by its hash, which the requests' tx_hash names. In-flight rows keep their
  // raw transaction (moved here), so a restart still re-broadcasts it.
  `
  CREATE TABLE transactions (
    tx_hash TEXT PRIMARY KEY,
    raw_tx  TEXT NOT NULL
  );
  INSERT OR IGNORE INTO transactions (tx_hash, raw_tx)
    SELECT tx_hash, raw_tx FROM requests WHERE tx_hash IS NOT NULL AND raw_tx IS NOT NULL ORDER BY created_at, rowid;
  ALTER TABLE requests DROP COLUMN raw_tx;
  `,
  // 10 (coarser spend buckets): a busy vault's window read one spend_minutes row per bot and minute
  // (a day of 50 bots paying every minute: 72,000 rows per reservation). Totals per hour and per day
  // for each bot, and per minute, hour and day for the whole vault (bot = ''), let a window read the
  // minutes up to its first whole hour, the hours up to its first whole day, then days: about 59 +
  // 23 + one row per day, however busy. usd = -1 marks a total that does not fit in 64 bits.
  `
  CREATE TABLE spend_buckets (
    chain_id INTEGER NOT NULL,
    vault    TEXT NOT NULL,
    bot      TEXT NOT NULL,
    size     INTEGER NOT NULL,
    start    INTEGER NOT NULL,
    usd      INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (chain_id, vault, bot, size, start)
  ) WITHOUT ROWID;
  ${spendBucketsFirstFill}
  `,
  // 11: a vault's window reads its minutes from spend_buckets (10), so nothing reads spend_minutes by
  // vault any more; its index only cost each reservation one more write.
  `
  DROP INDEX IF EXISTS spend_minutes_by_vault;
  `,
  // 12: idempotency entries in a table ordered by arrival, found by key through an index. Keyed by
  // the client's random key (WITHOUT ROWID), each entry, response and all, sat on a random page that
  // its claim and its completion each wrote again; now the index's small entry is written once, at
  // the claim, and the completion rewrites a recent page of the table.
  `
  CREATE TABLE idempotency_by_arrival (
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    response    TEXT,
    created_at  INTEGER NOT NULL
  );
  INSERT INTO idempotency_by_arrival (kind, key, fingerprint, request_id, response, created_at)
    SELECT kind, key, fingerprint, request_id, response, created_at FROM idempotency ORDER BY created_at;
  DROP TABLE idempotency;
  ALTER TABLE idempotency_by_arrival RENAME TO idempotency;
  CREATE UNIQUE INDEX idempotency_by_key ON idempotency (kind, key);
  CREATE INDEX idempotency_by_age ON idempotency (created_at);
  `,
  // 13: the on-chain cancels that make each rejection final (intent-cancels.ts), queued in the
  // rejection's own transaction; and the intents linked to a request, found by that request (a
  // rejected swap-and-pay cancels its swap too).
  `
  CREATE TABLE intent_cancels (
    chain_id      INTEGER NOT NULL,
    vault         TEXT NOT NULL,
    intent_hash   TEXT NOT NULL,
    request_id    TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'done')),
    signer        TEXT,
    nonce         TEXT,
    tx_hash       TEXT,
    raw_tx        TEXT,
    attempts      INTEGER NOT NULL,
    not_before    INTEGER NOT NULL,
    last_error    TEXT,
    claimed_by    TEXT,
    claimed_until INTEGER,
    claimed_at    INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (chain_id, vault, intent_hash)
  );
  CREATE INDEX intent_cancels_open ON intent_cancels (created_at) WHERE status <> 'done';
  CREATE INDEX linked_intents_by_request ON linked_intents (request_id);
  `,
  // 14: requests of kind 'x402' (the vault pays an x402 paywall). SQLite cannot change a CHECK in
  // place: the table is rebuilt with every row as it was (rowids kept) and its indexes made again.
  `
  CREATE TABLE requests_x402 (
    id                TEXT PRIMARY KEY,
    kind              TEXT NOT NULL CHECK (kind IN ('payment', 'execute', 'swap', 'x402')),
    chain_id          INTEGER NOT NULL,
    vault             TEXT NOT NULL,
    bot               TEXT NOT NULL,
    intent_hash       TEXT NOT NULL,
    idempotency_key   TEXT NOT NULL,
    fingerprint       TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN
                        ('received', 'scanning', 'held', 'submitting', 'submitted', 'approved', 'rejected')),
    usd_value         TEXT NOT NULL,
    body              TEXT NOT NULL,
    response          TEXT,
    reason            TEXT,
    held_because      TEXT,
    agents            TEXT,
    tx_hash           TEXT,
    nonce             TEXT,
    signer            TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    deadline          TEXT NOT NULL,
    review_expires_at INTEGER,
    deciding_until    INTEGER
  );
  INSERT INTO requests_x402 (rowid, id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint, status, usd_value,
      body, response, reason, held_because, agents, tx_hash, nonce, signer, created_at, updated_at, deadline, review_expires_at, deciding_until)
    SELECT rowid, id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint, status, usd_value,
      body, response, reason, held_because, agents, tx_hash, nonce, signer, created_at, updated_at, deadline, review_expires_at, deciding_until
    FROM requests ORDER BY rowid;
  DROP TABLE requests;
  ALTER TABLE requests_x402 RENAME TO requests;
  CREATE INDEX requests_by_intent ON requests (chain_id, vault, intent_hash);
  CREATE INDEX requests_in_flight ON requests (status) WHERE status IN ('submitting', 'submitted');
  CREATE INDEX requests_by_review ON requests (status, chain_id, vault, created_at) WHERE held_because IS NOT NULL;
  CREATE INDEX requests_review_expiry ON requests (review_expires_at) WHERE status = 'held';
  CREATE INDEX requests_by_bot ON requests (chain_id, vault, bot, created_at);
  CREATE INDEX requests_unsettled ON requests (status) WHERE status IN ('received', 'scanning');
  `,
];

/** The schema version this code writes (`PRAGMA user_version` after {@link migrate}). */
export const schemaVersion = migrations.length;

/**
 * Brings `db` to {@link schemaVersion}, each step in its own IMMEDIATE transaction (so two processes
 * opening a new file at once migrate it once). Refuses a file written by a newer version.
 */
export function migrate(db: DatabaseSync): void {
  for (;;) {
    db.exec("BEGIN IMMEDIATE");
    try {
      const version = Number((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
      if (version > schemaVersion) {
        throw new Error(`ledger schema version ${version} is newer than this relay supports (${schemaVersion})`);
      }
      if (version === schemaVersion) {
        db.exec("COMMIT");
        return;
      }
      db.exec(migrations[version]!);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}
