// GET /v1/chains: every chain this relayer serves, with its factory, registry, routers, tokens and
// vault domain (see relayer/chain/chains.ts). Clients read the factory per chain to deploy and predict vaults.
import type { FastifyInstance } from "fastify";
import type { ChainDirectory } from "../../relayer/chain/chains.ts";

export function registerChainRoutes(app: FastifyInstance, directory: ChainDirectory): void {
  app.get("/v1/chains", async () => directory.list());
}
