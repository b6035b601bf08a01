// The relayer's terms of service:
//   GET  /v1/tos/status?wallet=0x…                       → 200 {wallet, required, version, accepted, …}
//   POST /v1/tos/accept {wallet, version, signature, message} → 200 {wallet, version, acceptedAt}
// Both are open (the acceptance is its own proof); a failed acceptance costs the client as a bad
// signature does (see Terms.accept).
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Terms } from "../../relayer/intake/terms.ts";
import { clientKey } from "./intents.ts";

export function registerTermsRoutes(app: FastifyInstance, terms: Terms): void {
  app.get("/v1/tos/status", async (request) => terms.status((request as FastifyRequest<{ Querystring: { wallet?: string } }>).query.wallet));
  app.post("/v1/tos/accept", async (request) => terms.accept(request.body, clientKey(request)));
}
