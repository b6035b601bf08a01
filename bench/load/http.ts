// HTTP to the relayer for the load run: one keep-alive undici pool, and every answer reduced to what
// the run counts (HTTP status, the 200 body's status, the error code, or the transport failure).
import { Pool } from "undici";

/** One answer as the client saw it. */
export interface Answer {
  /** 0 when no HTTP answer came back (the connection failed or timed out). */
  httpStatus: number;
  /** The exact body text (for comparing a retry's answer with the first). */
  text: string;
  /** 200: approved | pending_review | rejected. */
  status?: string;
  /** Non-200: the error code; no answer: `TRANSPORT_<error code>`. */
  code?: string;
  requestId?: string;
  txHash?: string;
  latencyMs: number;
}

export function openPool(url: string, connections: number): Pool {
  // Generous timeouts: the relayer answers a payment once its transaction is mined.
  return new Pool(url, { connections, pipelining: 1, headersTimeout: 300_000, bodyTimeout: 300_000 });
}

/** POSTs a payment body; `since` is when the request was due (for open-loop latency). */
export async function postPayment(pool: Pool, body: string, since: number): Promise<Answer> {
  return call(pool, { path: "/v1/payments", method: "POST", headers: { "content-type": "application/json" }, body }, since);
}

/** GET /v1/payments/:id. */
export async function getPayment(pool: Pool, requestId: string): Promise<Answer> {
  return call(pool, { path: `/v1/payments/${requestId}`, method: "GET" }, performance.now());
}

async function call(pool: Pool, options: Parameters<Pool["request"]>[0], since: number): Promise<Answer> {
  try {
    const res = await pool.request(options);
    const text = await res.body.text();
    const latencyMs = performance.now() - since;
    const parsed = parse(text);
    if (res.statusCode === 200) {
      return { httpStatus: 200, text, status: str(parsed.status), requestId: str(parsed.requestId), txHash: str(parsed.txHash), latencyMs };
    }
    return { httpStatus: res.statusCode, text, code: str(parsed.code) ?? `HTTP_${res.statusCode}`, latencyMs };
  } catch (error) {
    const code = (error as { code?: string }).code ?? "ERROR";
    return { httpStatus: 0, text: "", code: `TRANSPORT_${code}`, latencyMs: performance.now() - since };
  }
}

/** A label for counting: `200 approved`, `409 DUPLICATE_INTENT`, `0 TRANSPORT_ECONNRESET`. */
export function labelOf(answer: Answer): string {
  return `${answer.httpStatus} ${answer.httpStatus === 200 ? answer.status : answer.code}`;
}

/**
 * Whether an answer settles the request: a 200, or a 4xx other than 429. Anything else (429,
 * 5xx, no answer) says "retry with the same key".
 */
export function isDefinitive(answer: Answer): boolean {
  return answer.httpStatus === 200 || (answer.httpStatus >= 400 && answer.httpStatus < 500 && answer.httpStatus !== 429);
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
