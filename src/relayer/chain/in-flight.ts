// Concurrent identical reads share one: while a read of a key is under way, another request for the
// same key waits for that read's answer instead of reading the chain again. Nothing is kept once the
// read settles: a request is answered by a read under way when it arrived, or by its own.
export class InFlight {
  readonly #reads = new Map<string, Promise<unknown>>();

  /** Number of reads under way (tests read it). */
  get size(): number {
    return this.#reads.size;
  }

  /** `read()`'s answer, shared with every call of the same `key` made while it is under way. */
  share<T>(key: string, read: () => Promise<T>): Promise<T> {
    const pending = this.#reads.get(key);
    if (pending !== undefined) return pending as Promise<T>;
    const started = read().finally(() => this.#reads.delete(key));
    this.#reads.set(key, started);
    return started;
  }
}
