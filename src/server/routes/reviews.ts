// The owner's routes: GET /v1/reviews, GET /v1/reviews/:id, POST …/approve, POST …/reject. Each
// needs a Sign-In with Ethereum session (`Authorization: Bearer …`), and the vault's on-chain owner.
//
// A signed-in stranger learns nothing about a vault's reviews: asked for one vault's list, the
// answer is decided by the vault's on-chain owner before the ledger is looked at (the same 403
// whether or not the vault has held requests); another vault's review is answered exactly as an
// unknown id (404 NOT_FOUND).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { reviewApproveBodySchema } from "../../api/schemas.ts";
import { validateOwnerBody } from "../../api/validate.ts";
import { isRelayError, relayError } from "../../errors.ts";
import type { Reviews } from "../../relayer/review/reviews.ts";
import type { OwnerAuth } from "../auth/owner-auth.ts";
import { addressParam } from "../../relayer/chain/reads.ts";

type Req = FastifyRequest<{ Params: { requestId: string }; Querystring: Record<string, string | undefined>; Body: unknown }>;

export function registerReviewRoutes(app: FastifyInstance, reviews: Reviews, auth: OwnerAuth): void {
  const owner = (request: Req) => auth.authenticate(request.headers.authorization);

  app.get("/v1/reviews", async (request) => {
    const r = request as Req;
    const who = owner(r);
    const chainId = r.query.chainId === undefined ? undefined : Number(r.query.chainId);
    if (chainId !== undefined && !Number.isSafeInteger(chainId)) throw relayError("INVALID_CHAIN_ID", "chainId must be an integer");
    const vault = r.query.vault === undefined ? undefined : addressParam("vault", r.query.vault);
    if (vault === undefined) return { reviews: await reviews.list(who, { chainId }) };
    // With its chain, Reviews.list checks the vault's on-chain owner before reading the ledger.
    return { reviews: await reviews.list(who, { chainId: chainId ?? onlyChain(app), vault }) };
  });
  app.get("/v1/reviews/:requestId", async (request) => {
    const r = request as Req;
    return unknownToStrangers(r, () => reviews.detail(owner(r), r.params.requestId));
  });
  app.post("/v1/reviews/:requestId/approve", async (request) => {
    const r = request as Req;
    const who = owner(r);
    const { approval } = validateOwnerBody(reviewApproveBodySchema, r.body);
    return unknownToStrangers(r, () => reviews.approve(who, r.params.requestId, approval));
  });
  app.post("/v1/reviews/:requestId/reject", async (request) => {
    const r = request as Req;
    const who = owner(r);
    return unknownToStrangers(r, () => reviews.reject(who, r.params.requestId, (r.body as { reason?: unknown } | undefined)?.reason));
  });
}

/** The one chain served; with several, a vault filter needs `chainId` (as the vault reads do). */
function onlyChain(app: FastifyInstance): number {
  const served = app.servedChainIds;
  if (served.length === 1) return served[0]!;
  throw relayError("INVALID_REQUEST", `chainId is required with vault: this relayer serves chains ${served.join(", ")}`);
}

/** Another vault's review answers a stranger exactly as an unknown id does. */
async function unknownToStrangers<T>(request: Req, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isRelayError(error) && error.code === "NOT_VAULT_OWNER") throw relayError("NOT_FOUND", `no review ${request.params.requestId}`);
    throw error;
  }
}
