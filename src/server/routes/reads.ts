// GET /v1/vault/:address/… — the vault reads. `?chainId=` picks the chain; it may be left out when
// the relayer serves exactly one chain.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { relayError } from "../../errors.ts";
import { addressParam, VaultReads } from "../../relayer/reads.ts";

type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, string | undefined> }>;

export function registerReadRoutes(app: FastifyInstance, readsByChain: ReadonlyMap<number, VaultReads>): void {
  const chainOf = (request: Req): VaultReads => {
    const raw = request.query.chainId;
    if (raw === undefined || raw === "") {
      if (readsByChain.size === 1) return [...readsByChain.values()][0]!;
      throw relayError("INVALID_REQUEST", `chainId is required: this relayer serves chains ${[...readsByChain.keys()].join(", ")}`);
    }
    if (!/^[0-9]{1,12}$/.test(raw)) throw relayError("INVALID_CHAIN_ID", "chainId must be a positive integer");
    const reads = readsByChain.get(Number(raw));
    if (!reads) throw relayError("INVALID_CHAIN_ID", `chainId ${raw} is not supported`);
    return reads;
  };
  const vault = (request: Req) => addressParam("address", request.params.address);
  const get = (path: string, handler: (request: Req) => Promise<unknown>) => app.get(path, (request) => handler(request as Req));

  get("/v1/vault/:address/value", (r) => chainOf(r).value(vault(r)));
  get("/v1/vault/:address/rebalance-tokens", (r) => chainOf(r).rebalanceTokens(vault(r)));
  get("/v1/vault/:address/rebalance-token/:token", (r) => chainOf(r).rebalanceToken(vault(r), addressParam("token", r.params.token)));
  get("/v1/vault/:address/balance/:token", (r) => chainOf(r).balance(vault(r), addressParam("token", r.params.token)));
  get("/v1/vault/:address/balances", (r) => {
    const list = (r.query.tokens ?? "").split(",").map((t) => t.trim()).filter((t) => t !== "");
    if (list.length === 0) throw relayError("INVALID_REQUEST", "tokens is required: a comma-separated list of token addresses");
    if (list.length > 50) throw relayError("INVALID_REQUEST", "tokens may list at most 50 addresses");
    return chainOf(r).balances(vault(r), list.map((t, i) => addressParam(`tokens[${i}]`, t)));
  });
  get("/v1/vault/:address/bot/:bot/status", (r) => chainOf(r).botStatus(vault(r), addressParam("bot", r.params.bot)));
  get("/v1/vault/:address/info", (r) => chainOf(r).info(vault(r)));
  get("/v1/vault/:address/bot/:bot/destination/:to", (r) =>
    chainOf(r).destination(vault(r), addressParam("bot", r.params.bot), addressParam("to", r.params.to)),
  );
  get("/v1/vault/:address/protocol/:protocol", (r) => chainOf(r).protocol(vault(r), addressParam("protocol", r.params.protocol)));
}
