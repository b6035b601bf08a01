// Counts the JSON-RPC calls the relayer makes, by method: wrap the provider the relayer is given
// (harness.ts's `relayerProvider` option), and read the counts before and after what is measured.
// Used to show that some work costs no chain read.
import type { EIP1193Provider } from "viem";

export interface RpcCounter {
  /** The provider to hand the relayer: every call goes through to `inner`, counted. */
  readonly provider: EIP1193Provider;
  /** Calls of `method` so far (all methods when left out). */
  count(method?: string): number;
  /** From now on, answers `method` only after `ms` (0: at once again), as a slow node would. */
  slow(method: string, ms: number): void;
}

export function countingProvider(inner: EIP1193Provider): RpcCounter {
  const counts = new Map<string, number>();
  const delays = new Map<string, number>();
  const provider = {
    request: async (args: { method: string; params?: unknown }) => {
      counts.set(args.method, (counts.get(args.method) ?? 0) + 1);
      const delay = delays.get(args.method) ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      return inner.request(args as never);
    },
  } as EIP1193Provider;
  return {
    provider,
    slow: (method, ms) => void delays.set(method, ms),
    count: (method) => (method === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(method) ?? 0)),
  };
}
