// HTTP requests from a chosen loopback source address (127.0.0.2, 127.0.0.3, …) to a server on
// 127.0.0.1, so that a test can play several clients at once: the relayer tells clients apart by
// their remote address, and every 127.0.0.0/8 address reaches loopback on Linux. Each client keeps
// its connections alive, as a real bot would.
import { Agent, request } from "node:http";

export interface LoopbackAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: any;
}

export interface LoopbackClient {
  /** The source address this client's connections come from. */
  readonly address: string;
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<LoopbackAnswer>;
  get(url: string, headers?: Record<string, string>): Promise<LoopbackAnswer>;
  close(): void;
}

/** A client whose connections come from `address` (a 127.x.y.z address), with up to `connections` open at once. */
export function loopbackClient(address: string, connections = 64): LoopbackClient {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, localAddress: address });
  const send = (method: string, url: string, body: string | undefined, headers: Record<string, string>) =>
    new Promise<LoopbackAnswer>((resolve, reject) => {
      const req = request(url, { method, agent, headers: body === undefined ? headers : { "content-type": "application/json", ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parse(text) });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  return {
    address,
    post: (url, body, headers = {}) => send("POST", url, typeof body === "string" ? body : JSON.stringify(body), headers),
    get: (url, headers = {}) => send("GET", url, undefined, headers),
    close: () => agent.destroy(),
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Runs `fn` over `items` with at most `limit` at once; results in order. */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** How many answers had each status and code, e.g. {"400 INVALID_SIGNATURE": 50, "429 RATE_LIMITED": 250}. */
export function tally(answers: readonly LoopbackAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, body } of answers) {
    const key = `${status} ${typeof body === "object" && body !== null ? (body.code ?? body.status ?? "") : ""}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
