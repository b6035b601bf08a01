// GET /v1/vault/:address/… — the vault reads. `?chainId=` picks the chain; it may be left out when
// the relayer serves exactly one chain.
//
// Each read is one or more chain reads, asked for without credentials: a route first checks its
// request (a malformed one is refused before it costs anything), then spends a token (one per
// balance for /balances) of its client address's bucket for reads (429 RATE_LIMITED past its burst, rate-limiter.ts), then shares the read
// with any identical one under way (in-flight.ts). So one address's flood of reads cannot keep the
// node busy and slow down the payments of every bot.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { relayError } from "../../errors.ts";
import { InFlight } from "../../relayer/chain/in-flight.ts";
import { spendRead, type RateLimiter } from "../../relayer/rate-limiter.ts";
import { addressParam, VaultReads } from "../../relayer/chain/reads.ts";
import { clientKey } from "./intents.ts";

type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, string | undefined> }>;

/** A checked read: its chain, its arguments (for sharing), the read itself, and its cost if not 1 token. */
type Prepared = [chainId: number, args: readonly string[], read: () => Promise<unknown>, cost?: number];

export function registerReadRoutes(app: FastifyInstance, readsByChain: ReadonlyMap<number, VaultReads>, limiter: RateLimiter): void {
  const chainOf = (request: Req): [number, VaultReads] => {
    const raw = request.query.chainId;
    if (raw === undefined || raw === "") {
      if (readsByChain.size === 1) return [...readsByChain][0]!;
      throw relayError("INVALID_REQUEST", `chainId is required: this relayer serves chains ${[...readsByChain.keys()].join(", ")}`);
    }
    if (!/^[0-9]{1,12}$/.test(raw)) throw relayError("INVALID_CHAIN_ID", "chainId must be a positive integer");
    const reads = readsByChain.get(Number(raw));
    if (!reads) throw relayError("INVALID_CHAIN_ID", `chainId ${raw} is not supported`);
    return [Number(raw), reads];
  };
  const vault = (request: Req) => addressParam("address", request.params.address);
  const inFlight = new InFlight();
  const get = (path: string, prepare: (request: Req) => Prepared) =>
    app.get(path, async (request) => {
      const [chainId, args, read, cost] = prepare(request as Req);
      await spendRead(limiter, clientKey(request), cost);
      return inFlight.share(`${chainId} ${path} ${args.join(" ")}`, read);
    });

  get("/v1/vault/:address/value", (r) => {
    const [chainId, reads] = chainOf(r);
    const v = vault(r);
    return [chainId, [v], () => reads.value(v)];
  });
  get("/v1/vault/:address/rebalance-tokens", (r) => {
    const [chainId, reads] = chainOf(r);
    const v = vault(r);
    return [chainId, [v], () => reads.rebalanceTokens(v)];
  });
  get("/v1/vault/:address/rebalance-token/:token", (r) => {
    const [chainId, reads] = chainOf(r);
    const [v, token] = [vault(r), addressParam("token", r.params.token)];
    return [chainId, [v, token], () => reads.rebalanceToken(v, token)];
  });
  get("/v1/vault/:address/balance/:token", (r) => {
    const [chainId, reads] = chainOf(r);
    const [v, token] = [vault(r), addressParam("token", r.params.token)];
    return [chainId, [v, token], () => reads.balance(v, token)];
  });
  get("/v1/vault/:address/balances", (r) => {
    const list = (r.query.tokens ?? "").split(",").map((t) => t.trim()).filter((t) => t !== "");
    if (list.length === 0) throw relayError("INVALID_REQUEST", "tokens is required: a comma-separated list of token addresses");
    if (list.length > 50) throw relayError("INVALID_REQUEST", "tokens may list at most 50 addresses");
    const [chainId, reads] = chainOf(r);
    const v = vault(r);
    const tokens = list.map((t, i) => addressParam(`tokens[${i}]`, t));
    // One token per balance read: a list of 50 is 50 reads.
    return [chainId, [v, ...tokens], () => reads.balances(v, tokens), tokens.length];
  });
  get("/v1/vault/:address/bot/:bot/status", (r) => {
    const [chainId, reads] = chainOf(r);
    const [v, bot] = [vault(r), addressParam("bot", r.params.bot)];
    return [chainId, [v, bot], () => reads.botStatus(v, bot)];
  });
  get("/v1/vault/:address/info", (r) => {
    const [chainId, reads] = chainOf(r);
    const v = vault(r);
    return [chainId, [v], () => reads.info(v)];
  });
  get("/v1/vault/:address/bot/:bot/destination/:to", (r) => {
    const [chainId, reads] = chainOf(r);
    const [v, bot, to] = [vault(r), addressParam("bot", r.params.bot), addressParam("to", r.params.to)];
    return [chainId, [v, bot, to], () => reads.destination(v, bot, to)];
  });
  get("/v1/vault/:address/protocol/:protocol", (r) => {
    const [chainId, reads] = chainOf(r);
    const [v, protocol] = [vault(r), addressParam("protocol", r.params.protocol)];
    return [chainId, [v, protocol], () => reads.protocol(v, protocol)];
  });
}
