// One watcher of new blocks per chain, shared by every request waiting for a receipt: a waiter
// checks for its receipt, then sleeps until the chain has a block it has not seen, instead of each
// waiter polling the node on its own backoff. New blocks are learnt from an `eth_subscribe
// newHeads` websocket on the node's own address (anvil, reth and others serve websockets on their
// HTTP port), or else from one shared eth_blockNumber poll that runs only while someone waits.
// An in-process chain (an EIP-1193 provider) mines on send, so its receipts are there at once.

/** The shared poll's period when the node offers no websocket: 4 ms after a new block, doubling to 50 ms while none comes. */
const POLL_MS = 4;
const POLL_MAX_MS = 50;
/** How long a websocket may take to open before the watcher polls instead. */
const CONNECT_MS = 1_000;
/** After the websocket failed, how long the watcher polls before trying it again. */
const RETRY_WS_MS = 60_000;

export class BlockWatch {
  readonly #latestBlock: () => Promise<bigint>;
  readonly #wsUrl: string | undefined;
  /** The highest block number seen, -1 before any. */
  #latest = -1n;
  readonly #waiters = new Set<() => void>();
  #ws: WebSocket | undefined;
  #wsOpen = false;
  #wsFailedAt = -Infinity;
  #polling = false;
  #closed = false;

  /** `rpcUrl`: the node's HTTP JSON-RPC address, whose websocket is tried (none for an in-process provider). */
  constructor(latestBlock: () => Promise<bigint>, rpcUrl?: string) {
    this.#latestBlock = latestBlock;
    this.#wsUrl = rpcUrl && /^https?:\/\//.test(rpcUrl) && typeof WebSocket === "function" ? rpcUrl.replace(/^http/, "ws") : undefined;
  }

  /** The highest block number seen so far (-1 before any): read it before checking for a receipt. */
  get latest(): bigint {
    return this.#latest;
  }

  /** Whether new blocks come from a websocket subscription (else from the shared poll). */
  get subscribed(): boolean {
    return this.#wsOpen;
  }

  /** Resolves once a block after `seen` is known, or after `maxMs` at the latest. */
  after(seen: bigint, maxMs: number): Promise<void> {
    if (this.#latest > seen) return Promise.resolve();
    // Closed: nothing announces blocks any more, so a waiter only waits its longest wait.
    if (this.#closed) return new Promise((resolve) => setTimeout(resolve, maxMs));
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, maxMs);
      this.#waiters.add(wake);
      this.#start();
    });
  }

  /** Stops watching (the relayer shutting down); waiters wake (and look once more). */
  close(): void {
    this.#closed = true;
    this.#ws?.close();
    this.#ws = undefined;
    for (const wake of [...this.#waiters]) wake();
  }

  #seen(block: bigint): void {
    if (block <= this.#latest) return;
    this.#latest = block;
    for (const wake of [...this.#waiters]) wake();
  }

  #start(): void {
    if (this.#closed || this.#wsOpen) return;
    if (this.#wsUrl && !this.#ws && Date.now() - this.#wsFailedAt >= RETRY_WS_MS) this.#connect(this.#wsUrl);
    void this.#poll();
  }

  /** Polls while someone waits and no websocket is open (one poll at a time). */
  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      for (let wait = POLL_MS; this.#waiters.size > 0 && !this.#wsOpen && !this.#closed; ) {
        const before = this.#latest;
        this.#seen(await this.#latestBlock().catch(() => this.#latest));
        if (this.#waiters.size === 0 || this.#wsOpen) break;
        wait = this.#latest > before ? POLL_MS : Math.min(wait * 2, POLL_MAX_MS);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } finally {
      this.#polling = false;
    }
  }

  #connect(url: string): void {
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch {
      this.#wsFailedAt = Date.now();
      return;
    }
    this.#ws = ws;
    const giveUp = setTimeout(() => fail(), CONNECT_MS);
    const fail = () => {
      clearTimeout(giveUp);
      if (this.#ws !== ws) return;
      this.#ws = undefined;
      this.#wsOpen = false;
      this.#wsFailedAt = Date.now();
      ws.close();
      if (this.#waiters.size > 0) this.#start();
    };
    ws.addEventListener("open", () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] })));
    ws.addEventListener("message", (event) => {
      let message: { id?: number; result?: unknown; error?: unknown; params?: { result?: { number?: string } } };
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (message.id === 1) {
        // The subscription's answer: from now on every new block is announced.
        if (message.error !== undefined || typeof message.result !== "string") return fail();
        clearTimeout(giveUp);
        this.#wsOpen = true;
        // A block mined before the subscription took effect is never announced: read the head once.
        void this.#latestBlock().then((block) => this.#seen(block), () => {});
        return;
      }
      const number = message.params?.result?.number;
      if (typeof number === "string") this.#seen(BigInt(number));
    });
    ws.addEventListener("error", fail);
    ws.addEventListener("close", fail);
  }
}
