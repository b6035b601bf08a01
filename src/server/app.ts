// The relayer's HTTP server. Every reply that is not a success, the framework's own included, is
// the `{error, code, details?}` envelope of SPEC.md.
import Fastify, { type FastifyInstance } from "fastify";

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

export function buildApp(options: Pick<ServerOptions, "chainIds">): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });

  app.get("/healthz", async () => ({ status: "ok", chainIds: options.chainIds }));

  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: "Not found", code: "NOT_FOUND", details: `no route ${request.method} ${request.url.split("?")[0]}` });
  });
  app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
    const status = typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    const body = status === 500
      ? { error: "Internal error", code: "INTERNAL_ERROR" }
      : { error: "Invalid request", code: "INVALID_REQUEST", details: error.message };
    void reply.code(status).send(body);
  });
  return app;
}

export async function startServer(options: ServerOptions): Promise<RelayerServer> {
  const host = options.host ?? "127.0.0.1";
  const app = buildApp(options);
  await app.listen({ port: options.port, host });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  return { url: `http://${host}:${port}`, port, app, close: () => app.close() };
}
