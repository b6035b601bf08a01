// The worker thread of src/ledger/checkpointer.ts: its own connection to the ledger file, running
// a PASSIVE WAL checkpoint every `intervalMs`. PASSIVE copies what it can without waiting for or
// blocking the writer; what it leaves is copied on a later tick.
import { DatabaseSync } from "node:sqlite";
import { workerData } from "node:worker_threads";

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new DatabaseSync(file);
db.exec("PRAGMA busy_timeout = 1000");

setInterval(() => {
  try {
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // busy or locked: the next tick tries again
  }
}, intervalMs);
