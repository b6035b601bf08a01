// POST /v1/payments, /v1/execute, /v1/swap and their status reads. The body is handed to the
// relayer's spine as parsed JSON; the 200 answer is sent as the exact stored text, so that an
// idempotent replay is byte-for-byte the original.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { intentKinds } from "../../../packages/client/src/intent-types.ts";
import { kinds } from "../../relayer/kinds/index.ts";
import type { Relayer } from "../../relayer/relayer.ts";

/** The client's address, for the bucket that guards unauthenticated work. */
export function clientKey(request: FastifyRequest): string {
  return request.ip ?? request.socket.remoteAddress ?? "unknown";
}

export function registerIntentRoutes(app: FastifyInstance, relayer: Relayer): void {
  for (const kind of intentKinds) {
    const { path } = kinds[kind];
    app.post(path, async (request, reply) => {
      const text = await relayer.submit(kind, request.body, request.headers, clientKey(request));
      return reply.code(200).type("application/json; charset=utf-8").send(text);
    });
    app.get<{ Params: { requestId: string } }>(`${path}/:requestId`, async (request) => relayer.status(kind, request.params.requestId));
  }
}
