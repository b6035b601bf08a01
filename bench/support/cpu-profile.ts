// Reads a V8 CPU profile (`node --cpu-prof`) and sums its samples in a time window two ways:
//   areas: what the time was for — the relay source file nearest the sampled function on its stack
//          (src/ledger → ledger, src/relayer/submit/submitter.ts → sending…); for code no relay frame
//          called (fastify, node's HTTP, timers) the library the sampled function lives in;
//   functions: self time per function, for finding the cut.
// Timestamps are CLOCK_MONOTONIC µs, the clock of process.hrtime() in any process on the machine.

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Relay source files by what they do, first match wins (paths relative to the repository). */
const SOURCE_AREAS: Array<[RegExp, string]> = [
  [/src\/ledger\/|src\/relayer\/store\.ts/, "ledger (SQLite)"],
  [/src\/crypto\/sign-transaction/, "signing the transaction"],
  [/src\/relayer\/submit\/(stuck-watch|revert-reason)/, "receipt waiting"],
  [/src\/relayer\/submit\/(submitter|dispatcher)|src\/relayer\/chain\/(intents|payment-calldata)/, "sending (submitter, batch calldata)"],
  [/src\/crypto\/|src\/eip712\/|packages\/client\/src\/(sign|hash)/, "signature recovery / hashing"],
  [/src\/relayer\/chain\/(chain-runtime|read-batcher|snapshot|simulat|reads)/, "policy read + simulation (eth_call)"],
  [/src\/chain\//, "chain clients (viem)"],
  [/src\/api\/|packages\/client\/src\/bodies/, "JSON / validation"],
  [/src\/server\/(rate-limit|metrics|prometheus)/, "rate limits, metrics"],
  [/src\/server\//, "HTTP handlers (src/server)"],
  [/src\/relayer\//, "request logic (src/relayer)"],
  [/src\/app\//, "app wiring"],
];

/** Where code outside relay's sources lives. */
const LIBRARY_AREAS: Array<[RegExp, string]> = [
  [/fastify|find-my-way|avvio|light-my-request|fast-json-stringify|pino|node:_http|node:http|node:internal\/(http|streams|stream_base|net|child_process)|node:net|node:stream/, "HTTP (fastify, node http)"],
  [/undici|node:internal\/deps\/undici/, "JSON-RPC transport (undici)"],
  [/viem|abitype|\/ox\//, "viem"],
  [/@noble|secp256k1|keccak/, "crypto libraries"],
  [/zod/, "zod"],
  [/node:sqlite/, "ledger (SQLite)"],
  [/node:internal\/timers|node:timers/, "timers"],
  [/node:internal\/process\/(task_queues|promises)|node:internal\/async_hooks/, "promise / microtask plumbing"],
];

export interface Breakdown {
  /** Area → µs of samples in the window, largest first. */
  areas: Array<[string, number]>;
  /** "function url:line" → self µs, largest first. */
  functions: Array<[string, number]>;
  /** Sampled µs in the window, idle excluded. */
  sampledMicros: number;
}

export function breakdown(profile: CpuProfile, window: { from: number; to: number }): Breakdown {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const areaOf = new Map<number, string>();
  const area = (id: number): string => {
    const known = areaOf.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame;
    let found: string | undefined;
    for (let at: number | undefined = id; at !== undefined && !found; at = parent.get(at)) {
      const url = byId.get(at)!.callFrame.url;
      if (url.includes("node_modules")) continue;
      found = SOURCE_AREAS.find(([pattern]) => pattern.test(url))?.[1];
    }
    found ??= special(leaf.functionName) ?? LIBRARY_AREAS.find(([pattern]) => pattern.test(leaf.url))?.[1] ?? `other: ${shortUrl(leaf.url) || leaf.functionName}`;
    areaOf.set(id, found);
    return found;
  };

  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let sampledMicros = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (t < window.from || t > window.to) continue;
    const id = profile.samples[i]!;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    sampledMicros += weight;
    const a = area(id);
    areas.set(a, (areas.get(a) ?? 0) + weight);
    const name = `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + weight);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { areas: sorted(areas), functions: sorted(functions), sampledMicros };
}

function special(functionName: string): string | undefined {
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(program)") return "V8 / native, unattributed";
  return undefined;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) return url.slice(modules + "node_modules/".length);
  const src = url.search(/\/(src|packages|bench)\//);
  return src >= 0 ? url.slice(src + 1) : url;
}
