// The relayer's HTTP server. Every reply that is not a success, the framework's own included, is
// the `{error, code, details?}` envelope of SPEC.md, built by the one error family in errors.ts.
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from "fastify";
import { isRelayError, relayError, toRelayError, type ErrorCode, type RelayError } from "../errors.ts";
import { envelopeClientErrors } from "./client-errors.ts";
import { parseJsonBody } from "./json-body.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** The chain ids this relayer serves, for routes whose chain may be left out when there is one. */
    readonly servedChainIds: readonly number[];
  }
}

export const BODY_LIMIT_BYTES = 64 * 1024;

/** How long a client may take to send a whole request (headers and body) unless configured. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface AppOptions {
  chainIds: readonly number[];
  /** A request not fully received within this time is answered 408 REQUEST_TIMEOUT and closed. */
  requestTimeoutMs?: number;
  /**
   * Reverse proxies (IPs or CIDR ranges) whose X-Forwarded-For is believed: `request.ip` is then the
   * client the nearest trusted proxy names; from any other peer, the peer's own address.
   */
  trustedProxies?: readonly string[];
}

/**
 * Relay gives no route a Fastify schema: bodies are checked with zod (api/schemas.ts, validate.ts)
 * and replies are plain JSON. Fastify would still load its schema compilers (ajv and
 * fast-json-stringify, ~100 modules, about a tenth of `relay serve`'s start) when it is created;
 * these stand in for them, and fail loudly should a route ever be given a schema.
 */
const noRouteSchemas = () => () => {
  throw new Error("relay's routes have no Fastify schemas: validate with zod (src/api/validate.ts)");
};

export function buildApp(options: AppOptions): FastifyInstance {
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: false,
    // Nothing is logged per request (errors are logged where they are handled): without this,
    // Fastify would still build each request's "incoming request" and "request completed" entries.
    logController: new LogController({ disableRequestLogging: true }),
    // Routes are matched by walking find-my-way's tree. Its compiled matcher (routerOptions.compile)
    // saves about 0.1 µs a request and costs 8–10 ms at every start, which a devnet's snapshot and
    // revert pay each time (they restart the relayer): see docs/performance.md.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
    bodyLimit: BODY_LIMIT_BYTES,
    // While closing, Fastify would answer requests on open connections with its own 503 body; with
    // this off they reach the hooks, where a draining relayer answers 503 SERVICE_UNAVAILABLE.
    return503OnClosing: false,
    // Only the listed proxies' X-Forwarded-For is read (right to left, stopping at the first address
    // that is not a listed proxy); with none listed the header is ignored.
    trustProxy: options.trustedProxies?.length ? [...options.trustedProxies] : false,
    // Slow headers and slow bodies (slowloris) both count against one deadline, checked often
    // enough that it is kept to within a quarter of itself (at most a second late).
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(requestTimeoutMs / 4))),
    },
    clientErrorHandler: envelopeClientErrors({ requestTimeoutMs }),
    // A URL Fastify cannot route (bad percent-encoding, an over-long path segment) never reaches
    // the error handler below; it is answered here, in the same envelope.
    frameworkErrors: (thrown, _request, reply) => {
      const error = fromFramework(thrown);
      void (reply as unknown as FastifyReply).code(error.status).send(error.toBody());
    },
  });
  // Bodies are JSON only: without this, Fastify's built-in text/plain parser would hand routes a
  // string and a text/plain request would be a 400 instead of 415 UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser("text/plain");
  // JSON bodies through json-body.ts: the same refusals as Fastify's parser, for less work per body.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, parseJsonBody);
  app.decorate("servedChainIds", Object.freeze([...options.chainIds]));

  app.get("/healthz", async () => ({ status: "ok", chainIds: options.chainIds }));

  app.setNotFoundHandler((request, reply) => {
    const error = relayError("NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`);
    void reply.code(error.status).send(error.toBody());
  });
  app.setErrorHandler((thrown, _request, reply) => {
    const error = fromFramework(thrown);
    if (error.retryAfterSeconds !== undefined) void reply.header("retry-after", String(error.retryAfterSeconds));
    void reply.code(error.status).send(error.toBody());
  });
  return app;
}

// Fastify's own errors (body parsing, limits) by their code, as the codes of DESIGN.md section 6.
const frameworkErrors: Record<string, [ErrorCode, string?]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ["PAYLOAD_TOO_LARGE", `the body limit is ${BODY_LIMIT_BYTES} bytes`],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ["UNSUPPORTED_MEDIA_TYPE"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ["INVALID_REQUEST", "Content-Length does not match the body"],
  FST_ERR_CTP_EMPTY_JSON_BODY: ["INVALID_REQUEST", "body is empty"],
  FST_ERR_CTP_INVALID_JSON_BODY: ["INVALID_REQUEST", "body is not valid JSON"],
  FST_ERR_BAD_URL: ["INVALID_REQUEST", "the URL is not validly percent-encoded"],
  FST_ERR_MAX_PARAM_LENGTH: ["INVALID_REQUEST", "a path segment of the URL is too long"],
};

/** Anything a route or the framework threw, as a RelayError. Unknown failures are INTERNAL_ERROR. */
function fromFramework(thrown: unknown): RelayError {
  if (isRelayError(thrown)) return thrown;
  const { code, statusCode } = (thrown ?? {}) as { code?: string; statusCode?: number };
  const known = code === undefined ? undefined : frameworkErrors[code];
  if (known !== undefined) return relayError(known[0], known[1]);
  if (statusCode === 408) return relayError("REQUEST_TIMEOUT");
  if (typeof statusCode === "number" && statusCode >= 400 && statusCode < 500) return relayError("INVALID_REQUEST");
  return toRelayError(thrown);
}
