// The relayer as a running service, built from its parts in this one place above relayer/ and
// server/: the store (the SQLite ledger, or PostgreSQL shared by several instances), chains, submitters, the spine, reviews, and the HTTP
// server, wired together; start-up reconciliation with the chain; background timers; and a
// graceful stop (new requests get 503 while those in flight reach a recorded state).
import type { EIP1193Provider } from "viem";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../server/app.ts";
import { relayError } from "../errors.ts";
import { ledgerPath, openLedger } from "../ledger/index.ts";
import type { Store, StoreClock } from "../relayer/store.ts";
import { createRelayerMetrics, registerMetrics, type RelayerMetrics } from "../server/metrics.ts";
import { RateLimiter, registerClientRateLimit } from "../server/rate-limit.ts";
import type { RateLimiter as Limiter } from "../relayer/rate-limiter.ts";
import type { NonceIssuer } from "../server/auth/nonces.ts";
import { DEFAULT_MAX_SPENT_NONCES, DEFAULT_NONCE_TTL_MS } from "../server/auth/owner-auth.ts";
import { loadOrCreateSharedSecret, PostgresKeyLeases, PostgresNonceBook, PostgresRateLimiter, PostgresSigningQueue, PostgresStore, openPostgresPool } from "../ledger/postgres/index.ts";
import { KeyLeaseGate } from "../relayer/submit/key-lease.ts";
import { buildOpenApiDocument, registerOpenApiRoute } from "../server/openapi.ts";
import { loadOrCreateAuthSecret, OwnerAuth } from "../server/auth/owner-auth.ts";
import { registerAuthRoutes } from "../server/routes/auth.ts";
import { registerChainRoutes } from "../server/routes/chains.ts";
import { registerIntentRoutes } from "../server/routes/intents.ts";
import { registerReadRoutes } from "../server/routes/reads.ts";
import { InFlight } from "../relayer/chain/in-flight.ts";
import { registerReviewRoutes } from "../server/routes/reviews.ts";
import { registerTermsRoutes } from "../server/routes/terms.ts";
import { createScanner, type Scanner } from "../relayer/ai/index.ts";
import { localPanel, type VerdictPanel } from "../relayer/ai/verdicts.ts";
import { remotePanel } from "../agents/client.ts";
import { scannerKeysFor } from "./scanner-keys.ts";
import { ChainRuntime } from "../relayer/chain/chain-runtime.ts";
import { ChainDirectory } from "../relayer/chain/chains.ts";
import type { ChainConfig, RelayerConfig } from "../relayer/config.ts";
import { nodeKind } from "../chain/dev-node.ts";
import { isDevKey } from "../devnet/accounts.ts";
import { addressOfKey } from "../crypto/key-address.ts";
import type { Hex } from "viem";
import { Dispatcher } from "../relayer/submit/dispatcher.ts";
import { VaultReads } from "../relayer/chain/reads.ts";
import { reconcileInFlight, settleInterrupted, watchInFlight } from "../relayer/submit/reconcile.ts";
import { Relayer } from "../relayer/relayer.ts";
import { Reviews } from "../relayer/review/reviews.ts";
import { SelfDecidingReviews } from "../relayer/review/self-review.ts";
import { chainClocks, type Clocks } from "../relayer/clock.ts";
import { Terms } from "../relayer/intake/terms.ts";
import { StuckWatch } from "../relayer/submit/stuck-watch.ts";
import { CancelSender } from "../relayer/submit/cancels.ts";
import { isTransportFailure } from "../relayer/rpc-errors.ts";

export interface StartRelayerOptions {
  config: RelayerConfig;
  port: number;
  host?: string;
  /** In-process providers by chain id (devnet mode); other chains use their rpcUrl. */
  providers?: ReadonlyMap<number, EIP1193Provider>;
  log?: (line: string) => void;
  /**
   * Start even when a relayer key is one of the well-known development keys and the chain is not a
   * development node (`relay serve --allow-dev-keys`). Without it such a start is refused.
   */
  allowDevKeys?: boolean;
  /**
   * Keep the ledger in PostgreSQL (postgres://…) instead of SQLite in the state directory. Every
   * instance started on the same database shares it, and with it what must agree across instances:
   * rate limits, SIWE nonces, the owner-session secret, reviews and scan outcomes.
   */
  databaseUrl?: string;
  /**
   * The address clients reach this relayer at, when that is not its own (several instances behind
   * a proxy): owners' SIWE messages must name its host and URL. Default: the relayer's own URL.
   */
  publicUrl?: string;
  /** With databaseUrl: how long a relayer key's lease lasts unless renewed (default 10 s): how soon a dead instance's key is taken over. */
  leaseTtlMs?: number;
  /**
   * The SQLite ledger's WAL checkpoints in a worker thread (default true: a long-running relayer).
   * False for a relayer restarted around every test (relay/testing's snapshots): each worker is a
   * Node isolate of its own to boot, which would cost more than the checkpoints it saves.
   */
  backgroundCheckpoints?: boolean;
}

/** Default lease of a relayer key: renewed every third of it while the key has work. */
const DEFAULT_LEASE_TTL_MS = 10_000;

export interface RunningRelayer {
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  /** The relayer's store (the SQLite ledger in the state directory, or PostgreSQL). */
  readonly store: Store;
  readonly metrics: RelayerMetrics;
  /** Jobs waiting in the relayer's send queues to be signed, over all keys (tests wait on it to know how a batch will be grouped). */
  readonly queuedJobs: number;
  /**
   * Learns devnet chain `chainId`'s time now (its pending block's timestamp): `relay serve` calls it
   * when time travel passes through that devnet's JSON-RPC server, before the caller hears back, so
   * that the next request is judged by the chain's new time. Nothing for a chain that is not a devnet.
   */
  followChainTime(chainId: number): Promise<void>;
  /**
   * Devnet chain `chainId`'s next block has a timestamp set (evm_setNextBlockTimestamp passed through
   * its JSON-RPC server) and is not mined: the chain's time is not learnt from its pending block until
   * {@link RunningRelayer.chainBlockMined} (relayer/clock.ts, Clock.pin).
   */
  pinChainTime(chainId: number): void;
  /** A block of devnet chain `chainId` was mined through its JSON-RPC server: its time is learnt again, now. */
  chainBlockMined(chainId: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRelayer(options: StartRelayerOptions): Promise<RunningRelayer> {
  const { config } = options;
  const log = options.log ?? (() => {});
  const host = options.host ?? "127.0.0.1";
  const chainConfigs = await checkDevnetClaims(config.chains, options, log);
  // Each chain's clock: a devnet's follows that chain's time, every other chain's is the wall clock
  // (clock.ts). What belongs to a chain asks its clock, chosen by chain id; the rest is on the wall clock.
  const devnets = new Set(chainConfigs.filter((c) => c.devnet).map((c) => c.chainId));
  const clocks = chainClocks(devnets);
  const storeClock: StoreClock = { now: Date.now, chainNow: (chainId) => clocks.of(chainId).now(), latestNow: () => clocks.latest() };
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const shared = await openShared(options.databaseUrl, config, storeClock, leaseTtlMs);
  const store: Store = shared?.store ?? openLedger(ledgerPath(config.stateDir), { backgroundCheckpoints: options.backgroundCheckpoints ?? true, ...storeClock });
  const stopWatching = new AbortController();
  try {
    const chains = new Map(chainConfigs.map((c) => [c.chainId, new ChainRuntime(c, options.providers?.get(c.chainId))] as const));
    // A devnet chain's times in the ledger are that chain's (which may be ahead after time travel):
    // learn its time before anything compares with them.
    await followDevnetTime(chains, devnets, clocks);
    await settleWithChain(store, chains, log, shared !== undefined);
    await watchInFlight(store, chains, { timeoutMs: config.receiptTimeoutMs, signal: stopWatching.signal, log });

    const metrics = createRelayerMetrics();
    const dispatcher = new Dispatcher(chains, store, {
      maxBatch: config.maxBatchSize,
      gatherMs: config.batchGatherMs,
      onTransaction: (chainId, result) => metrics.countTransaction(chainId, result),
      onStep: metrics.timeStep,
      ...(shared
        ? {
            leaseFor: (chain: ChainRuntime, signer: Hex) =>
              new KeyLeaseGate(shared.leases, chain.chainId, signer, {
                ttlMs: leaseTtlMs,
                waitMs: config.receiptTimeoutMs,
                // The previous holder stopped without giving the key up: settle what it left in flight.
                onTakeover: async () => void (await reconcileInFlight(store, chains, 0, { chainId: chain.chainId, signer })),
                log,
              }),
            signingQueue: shared.signingQueue,
            handoffTimeoutMs: config.receiptTimeoutMs,
          }
        : {}),
    });
    // One limiter for the spine and the terms routes: a bad acceptance and a bad intent signature
    // spend from the same bucket for unauthenticated work.
    const rateLimiter: Limiter = shared?.rateLimiter ?? new RateLimiter(config.rateLimits);
    const terms = new Terms({ terms: config.terms, store, rateLimiter });
    // Every rejection is made final on-chain: its intents' cancels, queued with it, are sent after
    // it commits; the ones a stopped relayer left (or that failed) at start-up and every few seconds.
    const cancels = new CancelSender({ store, chains, dispatcher, onResult: (chainId, result) => metrics.countCancel(chainId, result), log });
    void cancels.run();
    const reviews = new Reviews({ store, chains, dispatcher, clocks, onStep: metrics.timeStep, afterRejection: () => void cancels.run() });
    // Reviews that decide themselves exist on a devnet only (metadata.scenario=review-approve|reject).
    const selfReviews = devnets.size > 0 ? new SelfDecidingReviews({ reviews, chains, clocks, log }) : undefined;
    const scanner = createScanner(config.ai);
    const relayer = new Relayer({
      config,
      store,
      chains,
      dispatcher,
      rateLimiter,
      scanner,
      panel: verdictPanel(config, scanner, chainConfigs.every((c) => c.devnet), log),
      clocks,
      selfReviews,
      terms,
      onOutcome: (kind, outcome) => metrics.countIntent(kind, outcome as never),
      onAiScan: (result) => metrics.countAiScan(result),
      onStep: metrics.timeStep,
      sharedStore: shared !== undefined,
      log,
    });
    metrics.reviewsPending.onCollect(async (gauge) => gauge.set(await reviews.pendingCount()));

    let draining = false;
    let auth: OwnerAuth | undefined;
    const authRef = lazyAuth(() => auth);
    const app = buildApp({ chainIds: [...chains.keys()], requestTimeoutMs: config.requestTimeoutMs, trustedProxies: config.trustedProxies });
    // Callback hooks, not async ones: they await nothing, and an async hook costs every request a
    // promise and a turn of the microtask queue.
    app.addHook("onRequest", (request, _reply, done) => {
      if (draining && request.url !== "/healthz") return done(relayError("SERVICE_UNAVAILABLE", "the relayer is shutting down; retry shortly", { retryAfterSeconds: 1 }));
      done();
    });
    // While draining, every answer closes its connection: a kept-alive connection would otherwise
    // hold the server open until its keep-alive timeout once its last request was answered.
    app.addHook("onSend", (_request, reply, payload, done) => {
      if (draining) reply.header("connection", "close");
      done(null, payload);
    });
    registerClientRateLimit(app, shared?.clientRateLimiter ?? new RateLimiter(config.rateLimits));
    registerMetrics(app, metrics, { token: config.metricsToken });
    registerIntentRoutes(app, relayer);
    // The open chain reads spend from the same limiter, in a bucket of their own per client address.
    registerReadRoutes(app, new Map([...chains].map(([id, chain]) => [id, new VaultReads(chain)])), rateLimiter);
    registerChainRoutes(app, new ChainDirectory(chains.values()));
    registerAuthRoutes(app, authRef);
    registerReviewRoutes(app, reviews, authRef);
    registerTermsRoutes(app, terms);
    registerOpenApiRoute(app, buildOpenApiDocument({ chainIds: [...chains.keys()] }));
    // /readyz is open and not rate-limited (probes must work while a client is throttled): concurrent
    // probes share one read of each chain's head, so a flood of them costs the node one read at a time.
    const readiness = new InFlight();
    app.get("/readyz", async (_request, reply) => {
      const checks = await readiness.share("chains", () => Promise.all(
        [...chains.values()].map(async (chain) => {
          try {
            const block = await chain.clients.publicClient.getBlockNumber({ cacheTime: 0 });
            return { chainId: chain.chainId, ok: true, blockNumber: Number(block) };
          } catch {
            return { chainId: chain.chainId, ok: false };
          }
        }),
      ));
      // The database: the SQLite ledger is open while the relayer runs; PostgreSQL must answer.
      const database = shared
        ? await shared.store.ping().then(() => ({ kind: "postgres", ok: true }), () => ({ kind: "postgres", ok: false }))
        : { kind: "sqlite", ok: true };
      const unreachable = !database.ok ? "the database is unreachable" : checks.find((c) => !c.ok) ? `chain ${checks.find((c) => !c.ok)?.chainId} is unreachable` : undefined;
      if (draining || unreachable) throw relayError("SERVICE_UNAVAILABLE", draining ? "shutting down" : unreachable);
      // Whether this instance holds each relayer key now (informative: with several instances a key's
      // lease moves to whichever has work for it; one instance always holds its keys).
      return reply.send({ status: "ready", chains: checks, database, keys: dispatcher.keys(), ...(shared ? { instance: shared.store.instanceId } : {}) });
    });

    await app.listen({ port: options.port, host });
    const address = app.server.address();
    const port = typeof address === "object" && address !== null ? address.port : options.port;
    const url = `http://${host}:${port}`;
    const publicUrl = options.publicUrl === undefined ? undefined : new URL(options.publicUrl);
    auth = new OwnerAuth({
      secret: shared?.sessionSecret ?? loadOrCreateAuthSecret(config.stateDir),
      domain: publicUrl?.host ?? `${host}:${port}`,
      uri: publicUrl?.origin ?? url,
      chainIds: [...chains.keys()],
      ...(shared ? { nonces: shared.nonces } : {}),
    });

    const stuckWatch = new StuckWatch(store, chains, config.inFlight, (chainId) => metrics.countTransaction(chainId, "replaced"), (chainId, signer) => dispatcher.signingRight(chainId, signer));
    const timers = [
      setInterval(() => {
        // First learn each devnet's time (its clock follows it), so that its reviews lapse by it.
        followDevnetTime(chains, devnets, clocks)
          .then(() => reviews.expire())
          .catch((error) => log(`expiring reviews failed: ${(error as Error).message}`));
      }, 1_000),
      setInterval(() => {
        reconcileInFlight(store, chains, config.inFlight.reconcileAfterMs).catch((error) => log(`reconciliation failed: ${(error as Error).message}`));
        // Several instances: what a dead instance was checking when it stopped (its heartbeat expired).
        if (shared) settleInterrupted(store).catch((error) => log(`settling interrupted requests failed: ${(error as Error).message}`));
      }, config.inFlight.checkEveryMs),
      // This instance is alive: the requests it records are its own until its heartbeat expires.
      ...(shared
        ? [setInterval(() => void store.heartbeat(leaseTtlMs).catch((error) => log(`heartbeat failed: ${(error as Error).message}`)), Math.max(10, Math.floor(leaseTtlMs / 3)))]
        : []),
      setInterval(() => void cancels.run(), config.inFlight.checkEveryMs),
      setInterval(() => {
        stuckWatch.check().catch((error) => log(`watching in-flight transactions failed: ${(error as Error).message}`));
      }, config.inFlight.checkEveryMs),
      setInterval(() => {
        store.pruneIdempotency(0).catch((error) => log(`pruning idempotency keys failed: ${(error as Error).message}`));
      }, 3_600_000),
    ];
    for (const t of timers) t.unref();
    // Self-deciding reviews a stopped relayer left held decide themselves again (self-review.ts).
    await selfReviews?.rearm(store, devnets);

    const followChainTime = (chainId: number) => followDevnetTime(chains, new Set([chainId].filter((id) => devnets.has(id))), clocks);
    let closed = false;
    return {
      url,
      port,
      app,
      store,
      metrics,
      get queuedJobs() {
        return dispatcher.queued;
      },
      followChainTime,
      pinChainTime: (chainId) => clocks.of(chainId).pin(),
      chainBlockMined(chainId) {
        clocks.of(chainId).unpin();
        return followChainTime(chainId);
      },
      async close() {
        if (closed) return;
        closed = true;
        draining = true;
        relayer.drain();
        for (const t of timers) clearInterval(t);
        selfReviews?.close();
        await app.close();
        await cancels.stop();
        stopWatching.abort();
        await dispatcher.close();
        for (const chain of chains.values()) chain.close();
        await shared?.rateLimiter.idle();
        await store.close();
      },
    };
  } catch (error) {
    stopWatching.abort();
    await store.close();
    throw error;
  }
}

/**
 * Devnet-only behaviour only on a devnet. A chain's `devnet` flag (which honours `metadata.scenario`)
 * stands when relay started the chain itself (an in-process provider) or when the node says it is a
 * development node; otherwise it is dropped. A relayer key from the well-known test mnemonic is
 * public, so on a node that answers as anything else the start is refused unless allowed. A node
 * that does not answer at all is not a devnet either, but only a node that answers is refused.
 */
async function checkDevnetClaims(chains: readonly ChainConfig[], options: StartRelayerOptions, log: (line: string) => void): Promise<ChainConfig[]> {
  return Promise.all(
    chains.map(async (chain) => {
      if (options.providers?.has(chain.chainId)) return chain;
      const devKeys = chain.relayerKeys.filter((key) => isDevKey(key as Hex));
      if (!chain.devnet && devKeys.length === 0) return chain;
      const kind = await nodeKind(chain.rpcUrl, chain.chainId, chain.rpcTimeoutMs);
      if (kind === "other" && devKeys.length > 0 && !options.allowDevKeys) {
        const address = addressOfKey(devKeys[0] as Hex);
        throw new Error(
          `chain ${chain.chainId}: relayer key ${address} is a well-known development key (public) and the node is not a development node; use your own key, or pass --allow-dev-keys`,
        );
      }
      if (!chain.devnet || kind === "development") return chain;
      log(`chain ${chain.chainId}: the node ${kind === "other" ? "is not a development node" : "did not answer"}; metadata.scenario is ignored`);
      return { ...chain, devnet: false };
    }),
  );
}

/**
 * Reads the pending block of each devnet chain (the timestamp a block mined now would have: exact,
 * where the latest block's may be a second old) and tells that chain's clock its time; nothing off a
 * devnet.
 */
async function followDevnetTime(chains: ReadonlyMap<number, ChainRuntime>, devnets: ReadonlySet<number>, clocks: Clocks): Promise<void> {
  for (const chainId of devnets) {
    const chain = chains.get(chainId);
    if (!chain) continue;
    try {
      await clocks.of(chainId).follow(() => chain.nextBlockTimestamp());
    } catch {
      // An unreachable devnet keeps the clock where it is; the next sweep tries again.
    }
  }
}

/**
 * Start-up: settle interrupted requests, finish or re-broadcast in-flight ones, align nonces. On a
 * shared database the keys' nonces may belong to instances still running: only the in-flight
 * transactions (idempotent) and the requests of instances whose heartbeat expired are settled; the
 * rest is left to their instances and to whoever takes over a key's lease.
 */
async function settleWithChain(store: Store, chains: ReadonlyMap<number, ChainRuntime>, log: (line: string) => void, sharedStore: boolean): Promise<void> {
  const interrupted = await settleInterrupted(store);
  try {
    const report = await reconcileInFlight(store, chains);
    const settled = report.approved + report.rejected + report.rebroadcast;
    if (settled + interrupted > 0) {
      log(`reconciled with the chain: ${report.approved} approved, ${report.rejected} rejected, ${report.rebroadcast} re-broadcast, ${interrupted} interrupted`);
    }
    for (const chain of sharedStore ? [] : chains.values()) {
      for (const signer of chain.signers) {
        const stillInFlight = (await store.listInFlight()).some((r) => r.chainId === chain.chainId && r.signer === signer.address.toLowerCase());
        if (stillInFlight) continue;
        const pending = BigInt(await chain.clients.publicClient.getTransactionCount({ address: signer.address, blockTag: "pending" }));
        await store.resetNonce(chain.chainId, signer.address, pending);
      }
    }
  } catch (error) {
    if (!isTransportFailure(error)) throw error;
    log("a chain is unreachable at start-up; in-flight requests will be reconciled once it answers");
  }
}

/** What several instances on one database share, besides the store. */
interface Shared {
  store: PostgresStore;
  /** Bot, vault and unauthenticated-work buckets, and the per-client buckets: one table, disjoint scopes. */
  rateLimiter: PostgresRateLimiter;
  clientRateLimiter: PostgresRateLimiter;
  nonces: NonceIssuer;
  /** Signs owner sessions: a session made by one instance is accepted by all. */
  sessionSecret: Uint8Array;
  /** Relayer-key leases in this instance's name: who signs with each key (key-lease.ts). */
  leases: PostgresKeyLeases;
  /** Jobs handed to the instance holding their key's lease (handoff.ts). */
  signingQueue: PostgresSigningQueue;
}

/**
 * With a database URL: the PostgreSQL store (migrated under its advisory lock, so instances may
 * start together) and the shared rate limits, SIWE nonces and session secret. Without: undefined
 * (the SQLite ledger and in-process state). A failure names the database without its password.
 */
async function openShared(url: string | undefined, config: RelayerConfig, clock: StoreClock, heartbeatTtlMs: number): Promise<Shared | undefined> {
  if (url === undefined) return undefined;
  let pool;
  try {
    pool = await openPostgresPool(url);
  } catch (error) {
    throw new Error(`cannot open the database ${redactedUrl(url)}: ${(error as Error).message}`);
  }
  try {
    // Rate limits and SIWE nonces belong to no chain: the wall clock. (A bucket is keyed by an
    // address, which may be a vault on several chains: one chain's time travel must not refill it.)
    const rateLimiter = new PostgresRateLimiter(pool, config.rateLimits, clock.now);
    const store = new PostgresStore(pool, clock);
    // Alive before recording anything: no other instance may take this one's requests for a dead one's.
    await store.heartbeat(heartbeatTtlMs);
    return {
      store,
      rateLimiter,
      clientRateLimiter: rateLimiter,
      nonces: await PostgresNonceBook.open(pool, { ttlMs: DEFAULT_NONCE_TTL_MS, maxSpent: DEFAULT_MAX_SPENT_NONCES, now: clock.now }),
      sessionSecret: await loadOrCreateSharedSecret(pool, "owner-session"),
      leases: new PostgresKeyLeases(pool, store.instanceId),
      signingQueue: new PostgresSigningQueue(pool),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** `url` with any password replaced by ***, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable URL)";
  }
}

/** OwnerAuth is created once the server knows its own URL; routes reach it through this. */
function lazyAuth(get: () => OwnerAuth | undefined): OwnerAuth {
  const need = (): OwnerAuth => {
    const auth = get();
    if (!auth) throw relayError("SERVICE_UNAVAILABLE", "starting up");
    return auth;
  };
  return {
    issueNonce: () => need().issueNonce(),
    login: (message: string, signature: string) => need().login(message, signature),
    authenticate: (header: string | undefined) => need().authenticate(header),
  } as unknown as OwnerAuth;
}

/**
 * The panel that signs verdicts for requests a vault holds for the AI scan: `relay agents` at
 * ai.agentsUrl (this host then holds no scanner key), or this process's scanner with its own keys
 * (scanner-keys.ts). A scanner key that is also a relayer key would count for nothing on-chain
 * (the vault refuses it), so it is refused here.
 */
function verdictPanel(config: RelayerConfig, scanner: Scanner, devnetsOnly: boolean, log: (line: string) => void): VerdictPanel {
  if (config.ai.agentsUrl) return remotePanel(config.ai.agentsUrl, { timeoutMs: config.ai.timeoutMs });
  const keys = scannerKeysFor({ configured: config.ai.scannerKeys as Hex[] | undefined, devnetsOnly, stateDir: config.stateDir });
  const relayers = new Set(config.chains.flatMap((c) => c.relayerKeys.map((k) => addressOfKey(k as Hex).toLowerCase())));
  const panel = localPanel(scanner, keys);
  const clash = panel.addresses.find((a) => relayers.has(a.toLowerCase()));
  if (clash) throw new Error(`invalid relayer configuration: ai.scannerKeys: ${clash} is also a relayer key; the vault refuses a relayer key's verdicts`);
  if (!devnetsOnly && keys.some((k) => isDevKey(k))) throw new Error("invalid relayer configuration: ai.scannerKeys: a well-known development key signs nothing on a chain that is not a development node");
  log(`AI panel in this process; its scanner keys (register them on a vault with setScanners): ${panel.addresses.join(", ")}`);
  return panel;
}
