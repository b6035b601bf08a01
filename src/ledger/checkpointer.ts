// Moves the ledger's WAL checkpoints off the request path. SQLite copies the write-ahead log back
// into the database file during a commit once the log passes `wal_autocheckpoint` pages, and that
// copy (random writes plus an fsync) stalls whichever commit triggers it. With a Checkpointer a
// worker thread holds its own connection to the same file and runs PASSIVE checkpoints on a timer
// (they never block writers), so the relayer's commits only append to the log. The connection that
// writes keeps a high auto-checkpoint as a safety net, should the worker ever stop.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

// The worker's file lies beside this module with this module's extension: checkpoint-worker.ts beside
// src/ledger/checkpointer.ts when relay runs from source, checkpoint-worker.mjs beside the bundle's
// chunk that holds this code (scripts/build-cli.ts gives the worker an entry of its own in dist/).
const workerFile = new URL(`./checkpoint-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** The safety-net `wal_autocheckpoint` (pages) of a connection whose checkpoints run in a worker. */
export const fallbackCheckpointPages = 20_000;

/** How often the worker checkpoints (ms). */
export const checkpointIntervalMs = 250;

export class Checkpointer {
  readonly #worker: Worker;

  constructor(file: string, intervalMs = checkpointIntervalMs) {
    this.#worker = new Worker(workerFile, { workerData: { file, intervalMs } });
    // A checkpoint that fails is retried by the next tick or by the writer's auto-checkpoint.
    this.#worker.on("error", () => {});
    this.#worker.unref();
  }

  /** Stops the worker (after its last checkpoint, if one is running). */
  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
