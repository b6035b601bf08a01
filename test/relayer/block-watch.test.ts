// The one block watcher per chain that wakes every request waiting for a receipt (block-watch.ts):
// on anvil through its websocket's newHeads subscription, elsewhere through one shared poll.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlockWatch } from "../../src/relayer/chain/block-watch.ts";
import { startAnvil, type Anvil } from "../support/anvil.ts";

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}

describe("BlockWatch", () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil();
  }, 60_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  it("on anvil: learns of each new block from its websocket and wakes every waiter, long before the fallback", async () => {
    let polls = 0;
    const watch = new BlockWatch(async () => {
      polls++;
      return BigInt((await rpc(anvil.url, "eth_blockNumber")) as string);
    }, anvil.url);
    try {
      await watch.after(watch.latest, 5_000); // the first head
      await expect.poll(() => watch.subscribed).toBe(true);
      for (let i = 0; i < 3; i++) {
        const seen = watch.latest;
        const started = performance.now();
        const waiters = Promise.all([watch.after(seen, 10_000), watch.after(seen, 10_000), watch.after(seen, 10_000)]);
        await rpc(anvil.url, "evm_mine");
        await waiters;
        expect(performance.now() - started).toBeLessThan(5_000);
        expect(watch.latest).toBe(seen + 1n);
      }
      // Subscribed: no more eth_blockNumber polls than the first head's and the subscription's one read.
      expect(polls).toBeLessThanOrEqual(4);
    } finally {
      watch.close();
    }
  });

  it("without a websocket: one shared poll wakes every waiter once the head moves, and stops when nobody waits", async () => {
    let head = 7n;
    let polls = 0;
    const watch = new BlockWatch(async () => {
      polls++;
      return head;
    });
    try {
      await watch.after(-1n, 1_000);
      expect(watch.latest).toBe(7n);
      expect(watch.subscribed).toBe(false);
      const waiters = Promise.all(Array.from({ length: 20 }, () => watch.after(7n, 10_000)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const pollsWhileWaiting = polls;
      head = 8n;
      await waiters;
      expect(watch.latest).toBe(8n);
      // 20 waiters shared one poll: a few polls in 50 ms, not one per waiter.
      expect(pollsWhileWaiting).toBeLessThan(20);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const idle = polls;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(polls).toBe(idle);
    } finally {
      watch.close();
    }
  });

  it("a waiter whose block is already known returns at once; one with none returns after its longest wait", async () => {
    const watch = new BlockWatch(async () => 3n);
    try {
      await watch.after(-1n, 1_000);
      const started = performance.now();
      await watch.after(2n, 10_000);
      expect(performance.now() - started).toBeLessThan(50);
      await watch.after(3n, 100);
      expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    } finally {
      watch.close();
    }
  });
});
