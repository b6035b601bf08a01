// The jobs instances hand to the holder of a relayer key's lease (src/relayer/submit/handoff.ts): one row
// per request waiting to be signed with a key another instance holds. The holder takes them (the
// rows are deleted as they are taken, SKIP LOCKED so two takers never get the same row), and only
// those whose request is still waiting to be signed: a request settled meanwhile is dropped.
import type pg from "pg";
import type { Job } from "../../relayer/submit/job.ts";
import type { SigningQueue } from "../../relayer/submit/handoff.ts";

export class PostgresSigningQueue implements SigningQueue {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async put(chainId: number, signer: string, job: Job): Promise<void> {
    await this.#pool.query(
      `INSERT INTO signing_jobs (request_id, chain_id, signer, job) VALUES ($1, $2, $3, $4)
       ON CONFLICT (request_id) DO NOTHING`,
      [job.requestId, chainId, signer.toLowerCase(), encodeJob(job)],
    );
  }

  async take(chainId: number, signer: string, limit: number): Promise<Job[]> {
    const { rows } = await this.#pool.query<{ job: string }>(
      `WITH taken AS (
         DELETE FROM signing_jobs WHERE request_id IN (
           SELECT request_id FROM signing_jobs WHERE chain_id = $1 AND signer = $2 ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING request_id, job, seq)
       SELECT t.job FROM taken t JOIN requests r ON r.id = t.request_id
       WHERE r.status IN ('received', 'scanning', 'held') ORDER BY t.seq`,
      [chainId, signer.toLowerCase(), limit],
    );
    return rows.map((row) => decodeJob(row.job));
  }

  async has(requestId: string): Promise<boolean> {
    const { rows } = await this.#pool.query("SELECT 1 FROM signing_jobs WHERE request_id = $1", [requestId]);
    return rows.length > 0;
  }

  async remove(requestId: string): Promise<void> {
    await this.#pool.query("DELETE FROM signing_jobs WHERE request_id = $1", [requestId]);
  }
}

/** A job as JSON text, its bigints (gas, amounts, deadlines) kept exact. */
function encodeJob(job: Job): string {
  return JSON.stringify(job, (_key, value: unknown) => (typeof value === "bigint" ? { $bigint: value.toString() } : value));
}

function decodeJob(text: string): Job {
  return JSON.parse(text, (_key, value: unknown) =>
    value !== null && typeof value === "object" && typeof (value as { $bigint?: unknown }).$bigint === "string" ? BigInt((value as { $bigint: string }).$bigint) : value,
  ) as Job;
}
