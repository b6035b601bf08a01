// Snapshots of a whole devnet for bot authors' tests (relay/testing's snapshot() and revert(id)): every
// chain, the relayer's ledger and its in-memory state together, so that each test can start from the
// same state without a new process.
//
// The relayer's in-memory state (nonces, caches, spend windows, rate-limit buckets, pending reviews,
// the submitter's queues, the clocks that follow the devnets) has no "reset" of its own: it is made to
// match by stopping the relayer, which drains its work (every request under way reaches a recorded
// state, every queue is empty, the ledger is closed), and starting a new one on the same port, which
// builds that state afresh from the ledger and the chain exactly as a restart does. While it is
// stopped nothing writes: the chains are snapshotted (evm_snapshot) or reverted (evm_revert), and the
// ledger is copied out (VACUUM INTO) or its rows put back (one transaction), both through
// SQLite's own locking (a checkpoint worker of the stopped relayer may still hold a connection).
// Both go through one connection of this module's, opened at the first snapshot and kept until
// close(): the relayer's stop is then not the ledger's last close (which would checkpoint the
// write-ahead log and delete it, for its next start to create again), and neither call pays for
// opening the ledger and reading its schema.
//
// EDR's evm_revert consumes the snapshot it reverts to and every later one. A snapshot id here stays
// valid after a revert to it (the chain is snapshotted again at once), so a suite can revert to the
// same id before each test; the snapshots taken after it are gone, as on the chain.
//
// Who may call: relay_snapshot and relay_revert are added to the devnet's own RPC server (loopback
// only) by `relay serve` with a devnet, and only when it was started with RELAY_TESTING_TOKEN; every
// call must carry that token. A web page the developer opens can reach a loopback port, but cannot
// know the token, and without it rewinding the ledger (erasing the record of payments) is refused.
import { createHash, timingSafeEqual } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { EIP1193Provider } from "viem";
import { RpcMethodError, type LocalMethod } from "../chain/rpc-server.ts";
import { privateDir } from "../private-files.ts";

/** The environment variable that enables snapshots on `relay serve` with a devnet, and their token. */
export const TESTING_TOKEN_ENV = "RELAY_TESTING_TOKEN";

/** A token shorter than this could be guessed. */
export const MIN_TESTING_TOKEN_LENGTH = 32;

/** JSON-RPC error codes of the snapshot methods (server errors, -32000 to -32099). */
export const SNAPSHOT_ERRORS = {
  UNAUTHORIZED: -32001,
  UNKNOWN_SNAPSHOT: -32002,
  INVALID_PARAMS: -32602,
} as const;

export interface SnapshotTarget {
  /** Each devnet chain's in-process provider. */
  providers: ReadonlyMap<number, EIP1193Provider>;
  /** The relayer's SQLite ledger file. */
  ledgerFile: string;
  /** Where the ledger copies go (created 0700; removed by close()). */
  dir: string;
  /** Stops the relayer after draining its work; the ledger is closed when it resolves. */
  stopRelayer(): Promise<void>;
  /** Starts a new relayer on the same port and ledger. */
  startRelayer(): Promise<void>;
}

interface Snapshot {
  /** The chains' own snapshot ids, by chain id. */
  chains: Map<number, string>;
  ledgerCopy: string;
}

export class DevnetSnapshots {
  readonly #target: SnapshotTarget;
  /** In the order taken: a revert to one drops those after it. */
  readonly #snapshots = new Map<string, Snapshot>();
  #next = 1;
  /** One snapshot or revert at a time, each from start to end. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** This module's connection to the ledger (see the header); undefined until the first snapshot. */
  #ledger: DatabaseSync | undefined;

  constructor(target: SnapshotTarget) {
    this.#target = target;
    privateDir(target.dir);
  }

  /** Takes a snapshot of every chain, the ledger and (by a restart) the relayer's state; resolves with its id. */
  snapshot(): Promise<string> {
    return this.#exclusive(async () => {
      const id = `0x${(this.#next++).toString(16)}`;
      const ledgerCopy = path.join(this.#target.dir, `${id}.sqlite`);
      await this.#withRelayerStopped(async () => {
        const chains = await this.#snapshotChains();
        copyDatabase(this.#ledgerConnection(), ledgerCopy);
        this.#snapshots.set(id, { chains, ledgerCopy });
      });
      return id;
    });
  }

  /** Puts every chain, the ledger and the relayer back as they were at snapshot `id`; later snapshots are dropped. */
  revert(id: string): Promise<void> {
    return this.#exclusive(async () => {
      const snapshot = this.#snapshots.get(id);
      if (snapshot === undefined) throw new RpcMethodError(SNAPSHOT_ERRORS.UNKNOWN_SNAPSHOT, `no snapshot ${id}: it was never taken, or a revert to an earlier one dropped it`);
      await this.#withRelayerStopped(async () => {
        for (const [chainId, chainSnapshot] of snapshot.chains) {
          const reverted = await this.#provider(chainId).request({ method: "evm_revert", params: [chainSnapshot] } as never);
          if (reverted !== true) throw new Error(`chain ${chainId} could not revert to its snapshot ${chainSnapshot}`);
        }
        // evm_revert used the chains' snapshots up: take them again, so that this id can be reverted to again.
        snapshot.chains = await this.#snapshotChains();
        restoreDatabase(snapshot.ledgerCopy, this.#ledgerConnection());
        this.#dropAfter(id);
      });
    });
  }

  /**
   * relay_snapshot(token) and relay_revert(token, id) for the devnet's RPC server. The token is
   * compared in constant time (by its digest, so that its length is not told either).
   */
  methods(token: string): ReadonlyMap<string, LocalMethod> {
    if (token.length < MIN_TESTING_TOKEN_LENGTH) throw new Error(`${TESTING_TOKEN_ENV} must be at least ${MIN_TESTING_TOKEN_LENGTH} characters`);
    const expected = digest(token);
    const authorise = (params: unknown[]) => {
      const given = params[0];
      if (typeof given !== "string" || !timingSafeEqual(digest(given), expected)) {
        throw new RpcMethodError(SNAPSHOT_ERRORS.UNAUTHORIZED, `the first parameter must be the token relay serve was started with (${TESTING_TOKEN_ENV})`);
      }
    };
    return new Map<string, LocalMethod>([
      [
        "relay_snapshot",
        async (params) => {
          authorise(params);
          return this.snapshot();
        },
      ],
      [
        "relay_revert",
        async (params) => {
          authorise(params);
          const id = params[1];
          if (typeof id !== "string" || !/^0x[0-9a-f]{1,12}$/.test(id)) throw new RpcMethodError(SNAPSHOT_ERRORS.INVALID_PARAMS, "the second parameter must be a snapshot id (0x…) from relay_snapshot");
          await this.revert(id);
          return true;
        },
      ],
    ]);
  }

  /** Waits for a snapshot or revert under way, refuses new ones, and removes the ledger copies. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue.catch(() => {});
    this.#ledger?.close();
    this.#ledger = undefined;
    this.#snapshots.clear();
    rmSync(this.#target.dir, { recursive: true, force: true });
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.catch(() => {}).then(() => {
      if (this.#closed) throw new RpcMethodError(-32000, "relay is shutting down");
      return work();
    });
    this.#queue = run;
    return run;
  }

  /** Runs `work` with the relayer stopped, and starts it again whether or not `work` succeeded. */
  async #withRelayerStopped(work: () => Promise<void>): Promise<void> {
    await this.#target.stopRelayer();
    try {
      await work();
    } finally {
      await this.#target.startRelayer();
    }
  }

  async #snapshotChains(): Promise<Map<number, string>> {
    const chains = new Map<number, string>();
    for (const chainId of this.#target.providers.keys()) {
      chains.set(chainId, (await this.#provider(chainId).request({ method: "evm_snapshot" } as never)) as string);
    }
    return chains;
  }

  /**
   * The connection copies and restores go through. synchronous=OFF: what a restore writes goes to the
   * ledger's write-ahead log, which the relayer's next commit (synchronous=FULL) fsyncs with it, so
   * it is on disk no later than anything the restarted relayer records; and a devnet's ledger lasts
   * no longer than its in-memory chains (`relay serve` deletes it at every start). It never
   * checkpoints (wal_autocheckpoint=0): the relayer's own connection does, with its fsyncs. The
   * copies need no fsync either: close() removes them, and they describe chains that die with the
   * process.
   */
  #ledgerConnection(): DatabaseSync {
    if (this.#ledger === undefined) {
      const db = new DatabaseSync(this.#target.ledgerFile);
      try {
        db.exec("PRAGMA busy_timeout = 10000");
        db.exec("PRAGMA synchronous = OFF");
        db.exec("PRAGMA wal_autocheckpoint = 0");
      } catch (error) {
        db.close();
        throw error;
      }
      this.#ledger = db;
    }
    return this.#ledger;
  }

  #provider(chainId: number): EIP1193Provider {
    return this.#target.providers.get(chainId)!;
  }

  /** Forgets the snapshots taken after `id` (the chain has dropped theirs) and removes their copies. */
  #dropAfter(id: string): void {
    let after = false;
    for (const [other, snapshot] of this.#snapshots) {
      if (after) {
        this.#snapshots.delete(other);
        rmSync(snapshot.ledgerCopy, { force: true });
      }
      if (other === id) after = true;
    }
  }
}

/**
 * Copies the database `source` is connected to into a new file `to` with VACUUM INTO: one read
 * transaction, so a consistent copy, which waits (busy_timeout) for a connection the stopped relayer
 * may still hold.
 */
function copyDatabase(source: DatabaseSync, to: string): void {
  rmSync(to, { force: true });
  source.prepare("VACUUM INTO ?").run(to);
}

/**
 * Puts the rows of the copy `from` back into the database `db` is connected to, table by table in
 * one transaction. Not a file copy or SQLite's backup API: replacing a whole file needs it to be free
 * of every other connection, and the stopped relayer's checkpoint worker may still hold one for a
 * moment; a transaction waits for it (busy_timeout) like any writer. Both files have the same schema
 * (the copy was taken of this ledger).
 */
function restoreDatabase(from: string, db: DatabaseSync): void {
  db.prepare("ATTACH DATABASE ? AS snapshot").run(from);
  try {
    const tables = db.prepare("SELECT name FROM snapshot.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' OR name = 'sqlite_sequence'").all() as Array<{ name: string }>;
    db.exec("BEGIN IMMEDIATE");
    try {
      for (const { name } of tables) {
        const quoted = `"${name.replaceAll('"', '""')}"`;
        db.exec(`DELETE FROM main.${quoted}; INSERT INTO main.${quoted} SELECT * FROM snapshot.${quoted}`);
      }
      db.exec("COMMIT");
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw error;
    }
  } finally {
    db.exec("DETACH DATABASE snapshot");
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
