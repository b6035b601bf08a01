// Clients behind the documented reverse proxy are still told apart. Attack: with the relayer behind
// nginx (the cluster deployment), every request arrived from the proxy's address, so every client
// shared one set of per-client buckets: a stranger's flood of bad signatures through the proxy emptied
// the bucket for unauthenticated work, and every bot's valid payment through the same proxy was then
// answered 429. Now the proxy is listed (`trustedProxies`, `relay serve --trust-proxy`) and each request
// is charged to the client the proxy names in X-Forwarded-For; a header sent by anyone else is ignored,
// so a flooder can neither escape its own bucket nor spend another client's. Real nginx, a real
// relayer and devnet, clients at distinct loopback addresses; the chain shows the flood moved nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { balanceOf, fresh, paymentBody, startEnv, type Env } from "../relayer/harness.ts";
import { startNginx, type NginxProxy } from "../support/nginx.ts";
import { loopbackClient, mapConcurrent, tally, type LoopbackClient } from "./support/loopback-client.ts";
import { runMain } from "../helpers/cli.ts";

/** A small bucket for unauthenticated work, refilled slowly, so that a short flood empties it. */
const UNAUTHENTICATED = { capacity: 10, refillPerSecond: 0.01 };
const FLOOD = 40;
/** Requests of the flood in flight at once: each may pass the bucket's check before the others' failures are charged. */
const AT_ONCE = 8;
/** Fewest 429s a flood from one client gets: all but the bucket's capacity and what was in flight. */
const THROTTLED = FLOOD - UNAUTHENTICATED.capacity - AT_ONCE;

describe("clients behind a trusted reverse proxy", () => {
  let env: Env;
  let proxy: NginxProxy;
  const clients: LoopbackClient[] = [];
  const stranger = privateKeyToAccount(generatePrivateKey());
  const client = (address: string) => {
    const made = loopbackClient(address, 16);
    clients.push(made);
    return made;
  };
  /** A payment naming the vault's real bot, signed by a stranger: its signature is bad. */
  const forged = (to: Address = fresh()) => paymentBody(env, { bot: env.bot.address, to, amount: 1_000_000n }, { signer: stranger });
  const usdc = () => env.token("USDC");

  beforeAll(async () => {
    env = await startEnv(
      { trustedProxies: ["127.0.0.1"], rateLimits: { bot: { capacity: 100, refillPerSecond: 50 }, vault: { capacity: 400, refillPerSecond: 200 }, client: { capacity: 2000, refillPerSecond: 1000 }, unauthenticated: UNAUTHENTICATED } },
      { deployment: "one" },
    );
    proxy = await startNginx([env.url]);
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await proxy?.stop();
    await env?.close();
  });

  it("a stranger's flood through the proxy empties only the stranger's bucket: a bot behind the same proxy keeps paying", async () => {
    const flooder = client("127.0.0.2");
    const bot = client("127.0.0.3");
    const vaultBefore = await balanceOf(env, usdc(), env.vault);
    const bodies = await Promise.all(Array.from({ length: FLOOD }, () => forged()));
    const answers = await mapConcurrent(bodies, AT_ONCE, (body) => flooder.post(`${proxy.url}/v1/payments`, body));
    const counts = tally(answers);
    // About the bucket's capacity in bad signatures, then 429 for the rest: the flood was throttled.
    expect(counts["429 RATE_LIMITED"], JSON.stringify(counts)).toBeGreaterThanOrEqual(THROTTLED);
    expect((counts["400 INVALID_SIGNATURE"] ?? 0) + (counts["429 RATE_LIMITED"] ?? 0)).toBe(FLOOD);

    const to = fresh();
    const paid = await bot.post(`${proxy.url}/v1/payments`, await paymentBody(env, { to, amount: 2_000_000n }));
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe("approved");
    expect(await balanceOf(env, usdc(), to)).toBe(2_000_000n);
    // Only the bot's payment left the vault.
    expect(await balanceOf(env, usdc(), env.vault)).toBe(vaultBefore - 2_000_000n);
  });

  it("a flooder that names another client in X-Forwarded-For is still charged as itself", async () => {
    const flooder = client("127.0.0.4");
    const victim = client("127.0.0.5");
    const bodies = await Promise.all(Array.from({ length: FLOOD }, () => forged()));
    // nginx appends the real peer: the relayer reads "127.0.0.5, 127.0.0.4" and stops at 127.0.0.4.
    const answers = await mapConcurrent(bodies, AT_ONCE, (body) => flooder.post(`${proxy.url}/v1/payments`, body, { "x-forwarded-for": "127.0.0.5" }));
    expect(tally(answers)["429 RATE_LIMITED"]).toBeGreaterThanOrEqual(THROTTLED);
    const to = fresh();
    const paid = await victim.post(`${proxy.url}/v1/payments`, await paymentBody(env, { to, amount: 1_000_000n }));
    expect(paid.body.status, paid.text).toBe("approved");
    expect(await balanceOf(env, usdc(), to)).toBe(1_000_000n);
  });

  it("a client that is not a listed proxy cannot choose its bucket with X-Forwarded-For", async () => {
    const direct = client("127.0.0.6");
    const bodies = await Promise.all(Array.from({ length: FLOOD }, () => forged()));
    // A new address in the header every time: were it believed, each request would get a fresh bucket.
    const answers = await mapConcurrent(bodies, AT_ONCE, (body, i) => direct.post(`${env.url}/v1/payments`, body, { "x-forwarded-for": `10.9.${i}.1` }));
    expect(tally(answers)["429 RATE_LIMITED"]).toBeGreaterThanOrEqual(THROTTLED);
  });
});

describe("relay serve --trust-proxy", () => {
  it("refuses what is not an IP address or a CIDR range, naming it", async () => {
    for (const bad of ["proxy.example", "127.0.0.1/33", "::1/129", "10.0.0.0/8/1"]) {
      const run = runMain(["serve", "--trust-proxy", bad, "--state-dir", "/nonexistent-relay-dir"]);
      expect(await run.done, run.output.stderr).not.toBe(0);
      expect(run.output.stderr).toContain(`relay: --trust-proxy must be an IP address or a CIDR range`);
      expect(run.output.stderr).toContain(`"${bad}"`);
    }
  });
});
