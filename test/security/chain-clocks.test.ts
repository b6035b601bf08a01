// Every chain keeps its own clock. Attack: a relayer serves a devnet and another chain (a second
// devnet whose time nobody moves, or a chain it does not treat as a devnet at all: the wall clock).
// Anyone who can move the devnet's time (`relay time advance 25h`, or evm_increaseTime on its node)
// moved the relayer's one clock for every chain: on the other chain the bot's daily window was
// empty again ($12 paid against $10 a day, signed with a deadline the moved clock accepted), every
// normal 5-minute deadline was DEADLINE_EXPIRED, held reviews lapsed and owners' approvals expired.
// Now each chain's windows, deadlines, review lapses and approval deadlines follow that chain's
// time only: the moved chain's window resets and its review lapses, the other chain's do not, and
// the chains' balances show that nothing more moved.
//
// Two in-process chains (real EDR devnets, real HTTP, the relayer's own ledger), served by one
// relayer three times: as two devnets, with the second chain configured without `devnet`, and as two
// devnets on a PostgreSQL store (a real server) instead of SQLite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, EIP1193Provider, Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { startRelayer, type RunningRelayer } from "../../src/app/service.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { createSender } from "../../src/chain/sender.ts";
import { defaultDeadline, signReviewApproval } from "../../packages/client/src/sign.ts";
import { balanceOf, fresh, get, paymentBody, post, type Env } from "../relayer/harness.ts";
import { advanceChain, newBot, usd } from "../relayer/harness-extra.ts";
import { ownerSession } from "./support/owner-session.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { startPostgres, type PostgresServer } from "../support/postgres.ts";

const MOVED = 84532; // the devnet whose time travels
const OTHER = 421614; // the chain whose time nobody moves
const DAY = 86_400;
const TRAVEL = 25 * 3_600; // past a daily window
const REVIEW_WINDOW_SECONDS = 3_600;
const tenADay = { spendingLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: BigInt(DAY) }] };

const devnets = new Map<number, Devnet>();

beforeAll(async () => {
  for (const chainId of [MOVED, OTHER]) {
    const stateDir = tempDir(`relay-clock-${chainId}-`);
    devnets.set(chainId, await startDevnet({ chainId, domainName: "ServiceVault", rpcPort: 0, stateDir, primary: false }));
  }
}, 240_000);
afterAll(async () => {
  for (const devnet of devnets.values()) await devnet.close();
});

/**
 * One chain as the harness's helpers see it (paymentBody, balanceOf, newBot and ownerSession read
 * only these fields of an Env), with the relayer at `url`.
 */
function chainEnv(chainId: number, url: string): Env {
  const { manifest, chain } = devnets.get(chainId)!;
  const clients = clientsFor(chain.provider as EIP1193Provider, chainId);
  const party = {
    manifest,
    clients,
    url,
    bot: privateKeyToAccount(manifest.accounts.bots.default.privateKey as Hex),
    reviewedBot: privateKeyToAccount(manifest.accounts.bots.reviewed.privateKey as Hex),
    owner: createSender(clients, manifest.accounts.owner.privateKey as Hex),
    ownerAccount: privateKeyToAccount(manifest.accounts.owner.privateKey as Hex),
    vault: manifest.contracts.vault as Address,
    token: (symbol: string) => manifest.tokens[symbol]!.address as Address,
  };
  return party as unknown as Env;
}

/** The chain's latest block time, unix seconds. */
async function chainTime(env: Env): Promise<number> {
  return Number((await env.clients.publicClient.getBlock({ blockTag: "latest" })).timestamp);
}

/** A payment's status once it leaves `pending_review`, or still pending after `ms`. */
async function statusAfter(env: Env, requestId: string, ms: number): Promise<Record<string, unknown>> {
  const until = Date.now() + ms;
  for (;;) {
    const polled = (await get(`${env.url}/v1/payments/${requestId}`)).body;
    if (polled.status !== "pending_review" || Date.now() > until) return polled;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each([
  { chains: "two devnets, only one of them moved", otherIsDevnet: true, postgres: false },
  { chains: "a devnet beside a chain on the wall clock (not a devnet)", otherIsDevnet: false, postgres: false },
  { chains: "two devnets, only one of them moved, on PostgreSQL", otherIsDevnet: true, postgres: true },
])("one relayer serving $chains", ({ otherIsDevnet, postgres }) => {
  let database: PostgresServer | undefined;
  let relayer: RunningRelayer;
  let moved: Env;
  let other: Env;
  let auth: Record<string, string>;
  const bots = new Map<number, PrivateKeyAccount>();

  beforeAll(async () => {
    const chains = [MOVED, OTHER].map((chainId) => {
      const { manifest } = devnets.get(chainId)!;
      return chainFromManifest(manifest, manifest.rpcUrl, chainId === MOVED || otherIsDevnet);
    });
    const config = parseRelayerConfig({ stateDir: tempDir("relay-clock-relayer-"), chains, reviewWindowSeconds: REVIEW_WINDOW_SECONDS });
    const providers = new Map([...devnets].map(([chainId, devnet]) => [chainId, devnet.chain.provider as EIP1193Provider] as const));
    if (postgres) database = await startPostgres();
    relayer = await startRelayer({ config, port: 0, providers, ...(database ? { databaseUrl: await database.newDatabase() } : {}) });
    moved = chainEnv(MOVED, relayer.url);
    other = chainEnv(OTHER, relayer.url);
    auth = await ownerSession(other);
    // A bot on each chain with a $10 daily window (new bots: each run starts with empty windows).
    for (const env of [moved, other]) bots.set(env.manifest.chainId, await newBot(env, tenADay));
  }, 120_000);
  afterAll(async () => {
    await relayer?.close();
    await database?.stop();
  });

  /** A $`dollars` USDC payment by the chain's limited bot, deadline from the chain's own time (5 minutes, by default). */
  async function pay(env: Env, dollars: number, options: { to?: Address; deadline?: bigint; signer?: PrivateKeyAccount } = {}) {
    const to = options.to ?? fresh();
    const deadline = options.deadline ?? BigInt(Math.max(Math.floor(Date.now() / 1000), await chainTime(env)) + 300);
    const body = await paymentBody(env, { to, amount: usd(dollars), deadline }, { signer: options.signer ?? bots.get(env.manifest.chainId)! });
    return post(`${env.url}/v1/payments`, body);
  }

  const usdc = (env: Env) => env.token("USDC");
  const payees = new Map<number, Address>();
  const held = new Map<number, string>();
  let vaultBefore: bigint;

  it("before: on each chain the bot's $10 window is full ($6 paid, $6 refused) and a review is held", async () => {
    for (const env of [moved, other]) {
      const chainId = env.manifest.chainId;
      const to = fresh();
      payees.set(chainId, to);
      expect((await pay(env, 6, { to })).body).toMatchObject({ status: "approved" });
      const refused = await pay(env, 6, { to });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("EXCEEDS_DAILY_LIMIT");
      // A review-required bot's payment, held until the owner decides or the window lapses.
      const review = await pay(env, 1, { signer: env.reviewedBot });
      expect(review.body).toMatchObject({ status: "pending_review" });
      held.set(chainId, review.body.requestId);
    }
    vaultBefore = await balanceOf(other, usdc(other), other.vault);
  });

  it("moving the devnet's time 25 h lapses that chain's review: the relayer follows its time", async () => {
    const otherTime = await chainTime(other);
    await advanceChain(moved, TRAVEL);
    // The relayer's sweep reads the latest block of each devnet every second.
    expect(await statusAfter(moved, held.get(MOVED)!, 10_000)).toMatchObject({ status: "rejected", errorCode: "REVIEW_EXPIRED" });
    expect(await chainTime(other)).toBeLessThan(otherTime + 60);
  });

  it("(c) the other chain's held review does not lapse", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // a sweep or more after the move
    expect((await get(`${other.url}/v1/payments/${held.get(OTHER)}`)).body).toMatchObject({ status: "pending_review" });
    expect(await balanceOf(other, usdc(other), other.vault)).toBe(vaultBefore);
  });

  it("(a) the other chain's daily window is not reset: a second $6 is refused, the attack's far deadline too, nothing moves", async () => {
    const to = payees.get(OTHER)!;
    const again = await pay(other, 6, { to, deadline: defaultDeadline() });
    expect(again.status).toBe(403);
    expect(again.body.code).toBe("EXCEEDS_DAILY_LIMIT");
    // The attack's payment: signed with a deadline only the moved clock would accept (25 h ahead,
    // past this chain's 24 h horizon). Before, it was paid as a new day's $6: $12 against $10 a day.
    const attack = await pay(other, 6, { to, deadline: BigInt(Math.floor(Date.now() / 1000) + TRAVEL + 300) });
    expect(attack.status).toBe(400);
    expect(attack.body.code).toBe("DEADLINE_TOO_FAR");
    expect(await balanceOf(other, usdc(other), to)).toBe(usd(6));
    expect(await balanceOf(other, usdc(other), other.vault)).toBe(vaultBefore);
    const window = { chainId: OTHER, vault: other.vault, bot: bots.get(OTHER)!.address, windowSeconds: BigInt(DAY) };
    expect(await relayer.store.spentInWindow(window)).toMatchObject({ usd: usd(6), count: 1n });
  });

  it("(b) a normal 5-minute deadline is still accepted there, within what the window has left", async () => {
    const to = payees.get(OTHER)!;
    const small = await pay(other, 1, { to, deadline: defaultDeadline() });
    expect(small.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await balanceOf(other, usdc(other), to)).toBe(usd(7));
    expect(await balanceOf(other, usdc(other), other.vault)).toBe(vaultBefore - usd(1));
  });

  it("the owner's approval there, with an hour's deadline, has not expired: the held payment executes", async () => {
    const detail = await get(`${other.url}/v1/reviews/${held.get(OTHER)}`, auth);
    expect(detail.status).toBe(200);
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3_600);
    const signature = await signReviewApproval(other.ownerAccount, other.manifest.domain as never, { intentHash: detail.body.intentHash, deadline });
    const approved = await post(`${other.url}/v1/reviews/${held.get(OTHER)}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth);
    expect(approved.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    expect(await balanceOf(other, usdc(other), other.vault)).toBe(vaultBefore - usd(2));
  });

  it("the moved chain's own window did reset: a new day's $6 is paid there", async () => {
    const to = payees.get(MOVED)!;
    expect((await pay(moved, 6, { to })).body).toMatchObject({ status: "approved" });
    expect(await balanceOf(moved, usdc(moved), to)).toBe(usd(12));
  });
});
