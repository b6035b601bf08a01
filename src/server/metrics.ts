// The relayer's Prometheus metrics (GET /metrics): HTTP traffic by route pattern, intent outcomes,
// transactions, the time of each step of a relayed intent, AI scans and the review queue, plus the
// usual process metrics. Every one is fed by the running relayer (app/service.ts wires them).
//
// Who may read what: every series but two says something about some vault's requests. On a relayer
// serving one vault, `relay_reviews_pending` going from 7 to 8 says that vault's bot was just held, the
// intent and HTTP counters say when its bots pay and how it went, the step timings and transaction
// counters when its payments settle. So a caller without credentials gets only `relay_up` and
// `process_start_time_seconds` (the relayer is up, since when), which no request changes; the
// detailed series need the operator's bearer token (config `metricsToken`, `relay serve
// --metrics-token` or RELAY_METRICS_TOKEN), compared in constant time. A wrong token is 401
// UNAUTHORIZED; with no token configured, nobody gets the detailed series.
//
// Route labels are the route's pattern (`/v1/payments/:requestId`), never the raw URL, and requests
// that match no route are labelled "unmatched", so the number of series stays bounded whatever
// clients send. Unusual HTTP methods are labelled "OTHER" for the same reason.
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { relayError } from "../errors.ts";
import type { IntentKind } from "../../packages/client/src/intent-types.ts";
import type { ErrorCode } from "../errors.ts";
import { CONTENT_TYPE, type Counter, type Gauge, type Histogram, Registry } from "./prometheus.ts";

/** Outcome of one submitted intent: its 200 status, or the error code it was refused with. */
export type IntentOutcome = "approved" | "pending_review" | "rejected" | ErrorCode;
export type { TransactionEvent as TransactionResult } from "../relayer/submit/job.ts";
import type { TransactionEvent as TransactionResult } from "../relayer/submit/job.ts";
import { steps, type OnStep, type Step } from "../relayer/steps.ts";
export type AiScanResult = "approved" | "no_consensus" | "timeout";
import type { CancelResult } from "../relayer/submit/cancels.ts";

/** Request durations from 1 ms to 30 s, in seconds. */
export const HTTP_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** Step durations from 0.1 ms to 30 s, in seconds: a lone payment's steps take tenths of a millisecond. */
export const STEP_DURATION_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

export interface RelayerMetrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<"method" | "route" | "status">;
  readonly httpRequestDuration: Histogram<"method" | "route">;
  /** `intents.inc({kind, outcome})` once per submitted intent, whatever became of it. */
  readonly intents: Counter<"kind" | "outcome">;
  readonly transactions: Counter<"chain_id" | "result">;
  readonly stepDuration: Histogram<"step">;
  readonly aiScans: Counter<"result">;
  /** On-chain cancels of rejected requests' intents (cancels.ts), by chain and result. */
  readonly intentCancels: Counter<"chain_id" | "result">;
  /** Fill with `reviewsPending.onCollect((g) => g.set(count))`; read at each scrape. */
  readonly reviewsPending: Gauge;
  readonly residentMemory: Gauge;
  readonly startTime: Gauge;
  readonly up: Gauge;
  /** Typed helpers for the label values of the counters above. */
  countIntent(kind: IntentKind, outcome: IntentOutcome): void;
  countTransaction(chainId: number, result: TransactionResult): void;
  countAiScan(result: AiScanResult): void;
  countCancel(chainId: number, result: CancelResult): void;
  /** Observes one run of a step (steps.ts), in seconds. */
  readonly timeStep: OnStep;
}

export function createRelayerMetrics(): RelayerMetrics {
  const registry = new Registry();
  const httpRequests = registry.counter("relay_http_requests_total", "HTTP requests answered, by method, route pattern and status", [
    "method",
    "route",
    "status",
  ]);
  const httpRequestDuration = registry.histogram(
    "relay_http_request_duration_seconds",
    "Time from receiving a request to sending its response, by method and route pattern",
    ["method", "route"],
    HTTP_DURATION_BUCKETS,
  );
  const intents = registry.counter(
    "relay_intents_total",
    "Submitted intents by kind and outcome (approved, pending_review, rejected, or the error code)",
    ["kind", "outcome"],
  );
  const transactions = registry.counter(
    "relay_transactions_total",
    "Relayer transactions by chain and result (submitted, mined, reverted, replaced, failed)",
    ["chain_id", "result"],
  );
  const stepDuration = registry.histogram(
    "relay_step_duration_seconds",
    "Time spent in each step of a relayed intent: per request idempotency, checks, record, settle; per transaction sign, durable, confirm",
    ["step"],
    STEP_DURATION_BUCKETS,
  );
  // Each step's series is bound once: a payment observes several.
  const stepSeries = new Map(steps.map((step) => [step, stepDuration.labels({ step })] as const));
  const aiScans = registry.counter("relay_ai_scans_total", "AI scans by result (approved, no_consensus, timeout)", ["result"]);
  const intentCancels = registry.counter(
    "relay_intent_cancels_total",
    "On-chain cancels of rejected requests' intents by chain and result (cancelled, already, executed, failed: an attempt retried later)",
    ["chain_id", "result"],
  );
  const reviewsPending = registry.gauge("relay_reviews_pending", "Requests waiting for the owner's review");
  const residentMemory = registry.gauge("process_resident_memory_bytes", "Resident memory size in bytes");
  residentMemory.onCollect((gauge) => gauge.set(process.memoryUsage.rss()));
  const startTime = registry.gauge("process_start_time_seconds", "Start time of the process since the unix epoch in seconds");
  startTime.set(Math.round(Date.now() - process.uptime() * 1000) / 1000);
  const up = registry.gauge("relay_up", "1 while the relayer serves");
  up.set(1);

  return {
    registry,
    httpRequests,
    httpRequestDuration,
    intents,
    transactions,
    stepDuration,
    aiScans,
    intentCancels,
    reviewsPending,
    residentMemory,
    startTime,
    up,
    countIntent: boundOnce((kind: IntentKind, outcome: IntentOutcome) => intents.labels({ kind, outcome })),
    countTransaction: boundOnce((chainId: number, result: TransactionResult) => transactions.labels({ chain_id: chainId, result })),
    countAiScan: (result) => aiScans.inc({ result }),
    countCancel: (chainId, result) => intentCancels.inc({ chain_id: chainId, result }),
    timeStep: (step: Step, seconds: number) => stepSeries.get(step)!.observe(seconds),
  };
}

/**
 * A counter's increment by label values, each series bound (labels()) the first time its values are
 * seen rather than its key being worked out at every count: intents and transactions are counted
 * per request, over a few kinds, outcomes, chains and results.
 */
function boundOnce<A extends [string | number, string]>(bind: (...values: A) => { inc(): void }): (...values: A) => void {
  const bound = new Map<string, { inc(): void }>();
  return (...values) => {
    const key = `${values[0]}\u0000${values[1]}`;
    let series = bound.get(key);
    if (series === undefined) bound.set(key, (series = bind(...values)));
    series.inc();
  };
}

const KNOWN_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Label of a request's route: its pattern, or "unmatched" when no route matched (a 404). */
export const UNMATCHED_ROUTE = "unmatched";

/** What GET /metrics answers a caller without credentials: nothing any request changes. */
export const PUBLIC_METRICS: ReadonlySet<string> = new Set(["relay_up", "process_start_time_seconds"]);

export interface MetricsAccess {
  /** The bearer token that unlocks the detailed series; unset, nobody gets them. */
  token?: string | undefined;
}

/**
 * Times every response (an onResponse hook, labelled by route pattern) and serves the registry at
 * GET /metrics as text/plain; version=0.0.4: every series with the configured bearer token, only
 * PUBLIC_METRICS without an Authorization header, 401 UNAUTHORIZED with any other. Call before the
 * app is ready.
 */
export function registerMetrics(app: FastifyInstance, metrics: RelayerMetrics, access: MetricsAccess = {}): void {
  const allowed = access.token === undefined ? undefined : digest(access.token);
  // Each response's two series, looked up by one string instead of each metric's key being built
  // from its labels per response. As many entries as series: routes × methods × statuses.
  const seriesOf = new Map<string, { requests: { inc(): void }; duration: { observe(seconds: number): void } }>();
  // A callback hook, not an async one: it awaits nothing, and an async hook costs every response a
  // promise and a turn of the microtask queue.
  app.addHook("onResponse", (request, reply, done) => {
    const method = KNOWN_METHODS.has(request.method) ? request.method : "OTHER";
    const pattern = request.routeOptions.url;
    const route = request.is404 || pattern === undefined || pattern === "" ? UNMATCHED_ROUTE : pattern;
    const status = reply.statusCode;
    const key = `${method} ${status} ${route}`;
    let series = seriesOf.get(key);
    if (series === undefined) {
      series = { requests: metrics.httpRequests.labels({ method, route, status }), duration: metrics.httpRequestDuration.labels({ method, route }) };
      seriesOf.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", async (request, reply) => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) checkToken(authorization, allowed);
    const text = await metrics.registry.expose(authorization === undefined ? PUBLIC_METRICS : undefined);
    return reply.type(CONTENT_TYPE).send(text);
  });
}

// Digests of equal length, compared in constant time: neither the token nor its length leaks
// through the time a wrong guess takes. The token never appears in an answer.
function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

function checkToken(authorization: string, allowed: Buffer | undefined): void {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (match === null) throw relayError("UNAUTHORIZED", 'the Authorization header must be "Bearer <metrics token>"');
  const given = digest(match[1]!);
  // With no token configured a digest is still compared, so the answer takes the same time.
  const ok = timingSafeEqual(given, allowed ?? digest("")) && allowed !== undefined;
  if (!ok) throw relayError("UNAUTHORIZED", "the metrics token is not valid for this relayer");
}
