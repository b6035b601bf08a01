// The relayer's HTTP server. Every reply that is not a success, the framework's own included, is
// the `{error, code, details?}` envelope of SPEC.md, built by the one error family in errors.ts.
import Fastify, { type FastifyInstance } from "fastify";
import { isRelayError, relayError, toRelayError, type ErrorCode, type RelayError } from "../errors.ts";

export interface ServerOptions {
  port: number;
  host?: string;
  chainIds: readonly number[];
}

export interface RelayerServer {
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

export const BODY_LIMIT_BYTES = 64 * 1024;

export function buildApp(options: Pick<ServerOptions, "chainIds">): FastifyInstance {
  // While closing, Fastify would answer requests on open connections with its own 503 body; with
  // this off they reach the hooks, where a draining relayer answers 503 SERVICE_UNAVAILABLE.
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES, return503OnClosing: false });
  // Bodies are JSON only: without this, Fastify's built-in text/plain parser would hand routes a
  // string and a text/plain request would be a 400 instead of 415 UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser("text/plain");

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

export async function startServer(options: ServerOptions): Promise<RelayerServer> {
  const host = options.host ?? "127.0.0.1";
  const app = buildApp(options);
  await app.listen({ port: options.port, host });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  return { url: `http://${host}:${port}`, port, app, close: () => app.close() };
}
