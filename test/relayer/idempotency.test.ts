// The idempotency key's life on the spine (relayer.ts): looked up with a plain read before the
// checks, claimed only in the record's transaction. Proven here on a real devnet, over HTTP, with the
// ledger and the chain read back: a request that fails before its record writes nothing at all; a
// key that another instance takes between this instance's lookup and its record (written into the
// shared ledger by the test, while the relayer's chain read is held at the node) is followed as the
// lookup would have followed it: its answer replayed byte for byte, 409 for other data, its outcome
// awaited while it runs; and this request records nothing and moves nothing.
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EIP1193Provider, Hex } from "viem";
import { validateBody } from "../../src/api/validate.ts";
import { requestFingerprint } from "../../src/api/fingerprint.ts";
import { ledgerPath, newRequestId } from "../../src/ledger/index.ts";
import { intentHashOf } from "../../src/relayer/intake/checks.ts";
import { balanceOf, fresh, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { clusterRun } from "./deployment.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
type Body = Awaited<ReturnType<typeof paymentBody>>;

// Not in the cluster run: the hold is in the relayer's provider, inside this process.
describe.skipIf(clusterRun())("the idempotency key: looked up before the checks, claimed with the record", () => {
  let env: Env;
  let ledger: DatabaseSync;
  /** Runs once, before the relayer's next eth_call reaches the node (the request is past its key's lookup). */
  let beforeNextRead: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    env = await startEnv({}, {
      relayerProvider: (provider) =>
        ({
          ...provider,
          request: (async (args: { method: string }) => {
            const hook = args.method === "eth_call" ? beforeNextRead : undefined;
            beforeNextRead = undefined;
            await hook?.();
            return provider.request(args as never);
          }) as EIP1193Provider["request"],
        }) as EIP1193Provider,
    });
    ledger = new DatabaseSync(ledgerPath(env.stateDir), { readOnly: true });
    // The vault's domain is read once, by the first request: later requests make one chain read first.
    expect((await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }))).body.status).toBe("approved");
  });
  afterAll(async () => {
    ledger?.close();
    await env?.close();
  });

  const payments = () => `${env.url}/v1/payments`;
  const request = (body: Body) => validateBody("payment", body);
  const intentHash = (body: Body) => intentHashOf(request(body), env.manifest.domain as never);
  /** Rows naming this key or this intent, read from another connection on the ledger's file. */
  const rowsOf = (body: Body) => ({
    keys: Number((ledger.prepare("SELECT COUNT(*) AS n FROM idempotency WHERE key = ?").get(body.idempotencyKey as string) as { n: number }).n),
    requests: Number((ledger.prepare("SELECT COUNT(*) AS n FROM requests WHERE idempotency_key = ? OR intent_hash = ?").get(body.idempotencyKey as string, intentHash(body)) as { n: number }).n),
  });
  /** SQLite's count of commits by other connections, as this connection sees it. */
  const commits = () => Number((ledger.prepare("PRAGMA data_version").get() as { data_version: number }).data_version);

  /**
   * What another instance sharing the ledger writes when it records a request under `body`'s key:
   * the key's claim and its request, in one transaction. `fingerprint`: the data it ran (default the
   * same as `body`'s); `answer`: its stored 200 answer, if it was answered. Its request carries an
   * intent hash of its own, so that `body`'s intent stays unrecorded unless this relayer records it.
   */
  async function otherInstanceRecords(body: Body, options: { fingerprint?: string; answer?: string } = {}): Promise<string> {
    const fingerprint = options.fingerprint ?? requestFingerprint(request(body));
    const id = newRequestId();
    await env.store.transaction(async (tx) => {
      expect(await tx.claimIdempotency("payment", body.idempotencyKey as string, fingerprint, id)).toEqual({ outcome: "new" });
      await tx.createRequest({
        id,
        kind: "payment",
        chainId: env.manifest.chainId,
        vault: env.vault,
        bot: env.bot.address,
        intentHash: `0x${id.slice(4).padEnd(64, "0").replace(/[^0-9a-f]/g, "0")}` as Hex,
        idempotencyKey: body.idempotencyKey as string,
        fingerprint,
        usdValue: 1_000_000n,
        body: "{}",
        deadline: 4_000_000_000n,
        ...(options.answer === undefined ? {} : { status: "approved" as const }),
      });
      if (options.answer !== undefined) {
        await tx.transition(id, ["approved"], "approved", { response: options.answer });
        await tx.completeIdempotency("payment", body.idempotencyKey as string, options.answer);
      }
    });
    return id;
  }

  it("a request that fails a check before its record writes nothing at all; its retry runs again", async () => {
    const to = fresh();
    const tooMuch = await paymentBody(env, { to, amount: USDC(10_000_000) });
    const before = commits();
    const refused = await post(payments(), tooMuch);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("EXCEEDS_PER_TX_LIMIT");
    expect(commits()).toBe(before); // not a claim, not its release: no commit at all
    expect(rowsOf(tooMuch)).toEqual({ keys: 0, requests: 0 });
    expect((await post(payments(), tooMuch)).body.code).toBe("EXCEEDS_PER_TX_LIMIT");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it.each([
    { what: "this one's checks pass", amount: USDC(1) },
    { what: "this one's checks fail (its own error is not answered)", amount: USDC(10_000_000) },
  ])("another instance takes the key with the same data and answers while this one checks, and $what: the answer is replayed byte for byte; nothing recorded or paid here", async ({ amount }) => {
    const to = fresh();
    const body = await paymentBody(env, { to, amount });
    const answer = `{"requestId":"elsewhere","status":"approved",  "txHash":"0x${"ab".repeat(32)}"}`;
    beforeNextRead = async () => void (await otherInstanceRecords(body, { answer }));
    const res = await post(payments(), body);
    expect(res.status).toBe(200);
    expect(res.text).toBe(answer);
    expect(rowsOf(body)).toEqual({ keys: 1, requests: 1 }); // the other instance's, and only it
    expect(await env.store.findByIntentHash(env.manifest.chainId, env.vault, intentHash(body))).toBeUndefined();
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it("another instance takes the key with other data while this one checks: 409 IDEMPOTENCY_CONFLICT; nothing recorded or paid here", async () => {
    const to = fresh();
    const body = await paymentBody(env, { to, amount: USDC(1) });
    beforeNextRead = async () => void (await otherInstanceRecords(body, { fingerprint: "other data" }));
    const res = await post(payments(), body);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("IDEMPOTENCY_CONFLICT");
    expect(await env.store.findByIntentHash(env.manifest.chainId, env.vault, intentHash(body))).toBeUndefined();
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it("another instance takes the key with the same data and is still running it: this request waits for its outcome and answers it", async () => {
    const to = fresh();
    const body = await paymentBody(env, { to, amount: USDC(1) });
    let other: string | undefined;
    beforeNextRead = async () => void (other = await otherInstanceRecords(body));
    const pending = post(payments(), body);
    const answer = `{"requestId":"elsewhere","status":"approved","txHash":"0x${"cd".repeat(32)}"}`;
    // The other instance settles its request a little later (its outcome and answer in one commit).
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(other).toBeDefined();
    await env.store.transaction(async (tx) => {
      await tx.transition(other!, ["received"], "approved", { response: answer });
      await tx.completeIdempotency("payment", body.idempotencyKey as string, answer);
    });
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.text).toBe(answer);
    expect(await env.store.findByIntentHash(env.manifest.chainId, env.vault, intentHash(body))).toBeUndefined();
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it("a key claimed without a request (an instance that claims before its checks and stopped) is freed, and the request runs: paid once", async () => {
    const to = fresh();
    const body = await paymentBody(env, { to, amount: USDC(1) });
    expect(await env.store.claimIdempotency("payment", body.idempotencyKey as string, requestFingerprint(request(body)), "req_stopped")).toEqual({ outcome: "new" });
    const res = await post(payments(), body);
    expect(res.body.status).toBe("approved");
    expect((await post(payments(), body)).text).toBe(res.text);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
  });

  it("in one process, other data under a key whose request is still being checked is 409 at once; the first is paid", async () => {
    const to = fresh();
    const first = await paymentBody(env, { to, amount: USDC(1) });
    const other = await paymentBody(env, { to: fresh(), amount: USDC(2) }, { idempotencyKey: first.idempotencyKey as string });
    let conflict: Awaited<ReturnType<typeof post>> | undefined;
    // While the first's chain read is held (its key looked up, not claimed): the other data arrives.
    beforeNextRead = async () => void (conflict = await post(payments(), other));
    const paid = await post(payments(), first);
    expect(conflict?.status).toBe(409);
    expect(conflict?.body.code).toBe("IDEMPOTENCY_CONFLICT");
    expect(paid.body.status).toBe("approved");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
    expect((await post(payments(), other)).status).toBe(409);
  });
});
