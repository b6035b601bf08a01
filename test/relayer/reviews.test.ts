// The owner's review queue end to end: Sign-In with Ethereum, list and detail restricted to the
// vault's on-chain owner, approve with a ReviewApproval signature (also after the bot's deadline),
// reject with a reason, and expiry of undecided reviews.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { signInWithEthereum } from "../../packages/client/src/siwe.ts";
import { signReviewApproval } from "../../packages/client/src/sign.ts";
import { EXIT } from "../../src/cli/io.ts";
import { runMain } from "../helpers/cli.ts";
import { balanceOf, calldata, executeBody, fresh, get, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { advanceChain } from "./harness-extra.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
const inAnHour = () => BigInt(Math.floor(Date.now() / 1000) + 3600);

async function tokenFor(env: Env, account: ReturnType<typeof privateKeyToAccount>): Promise<string> {
  const client = new RelayClient({ baseUrl: env.url });
  const login = await signInWithEthereum(client, account, { chainId: env.manifest.chainId, baseUrl: env.url });
  return login.token;
}

describe("owner reviews", () => {
  let env: Env;
  let auth: Record<string, string>;

  beforeAll(async () => {
    env = await startEnv();
    auth = { authorization: `Bearer ${await tokenFor(env, env.ownerAccount)}` };
  });
  afterAll(() => env?.close());

  async function hold(amount = USDC(4), deadline?: bigint) {
    const to = fresh();
    const body = await paymentBody(env, { to, amount, ...(deadline === undefined ? {} : { deadline }) }, { signer: env.reviewedBot, memo: "monthly hosting", metadata: { invoice: "42" } });
    const res = await post(`${env.url}/v1/payments`, body);
    expect(res.body.status).toBe("pending_review");
    return { id: res.body.requestId as string, to, body };
  }

  async function approval(id: string, deadline = inAnHour()) {
    const detail = await get(`${env.url}/v1/reviews/${id}`, auth);
    const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: detail.body.intentHash, deadline });
    return { deadline: deadline.toString(), signature };
  }

  it("the review routes need a session: 401 UNAUTHORIZED without one", async () => {
    const res = await get(`${env.url}/v1/reviews`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("UNAUTHORIZED");
  });

  it("lists held requests with everything the owner needs to decide", async () => {
    const { id } = await hold();
    const res = await get(`${env.url}/v1/reviews?chainId=${env.manifest.chainId}&vault=${env.vault}`, auth);
    expect(res.status).toBe(200);
    const item = res.body.reviews.find((r: { requestId: string }) => r.requestId === id);
    expect(item).toMatchObject({
      requestId: id,
      kind: "payment",
      status: "pending_review",
      chainId: env.manifest.chainId,
      vault: env.vault,
      bot: env.reviewedBot.address,
      intentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      heldBecause: expect.stringMatching(/human review/),
      memo: "monthly hosting",
      metadata: { invoice: "42" },
      usdValue: 4,
      amounts: [expect.objectContaining({ symbol: "USDC", human: "4", amount: "4000000" })],
    });
  });

  it("someone who is not the vault's owner can sign in but not see or decide its reviews, nor learn that they exist", async () => {
    const { id } = await hold();
    const stranger = { authorization: `Bearer ${await tokenFor(env, privateKeyToAccount(generatePrivateKey()))}` };
    const list = await get(`${env.url}/v1/reviews`, stranger);
    expect(list.status).toBe(200);
    expect(list.body.reviews).toEqual([]);
    // Another vault's review is answered as an unknown id is (test/security/auth-reviews.test.ts).
    const detail = await get(`${env.url}/v1/reviews/${id}`, stranger);
    expect(detail.status).toBe(404);
    expect(detail.body).toEqual({ error: expect.any(String), code: "NOT_FOUND", details: `no review ${id}` });
    const reject = await post(`${env.url}/v1/reviews/${id}/reject`, { reason: "no" }, stranger);
    expect(reject.status).toBe(404);
    expect(reject.body.code).toBe("NOT_FOUND");
    expect((await get(`${env.url}/v1/payments/${id}`)).body.status).toBe("pending_review");
  });

  it("approve: the payment executes and polling shows approved with the txHash", async () => {
    const { id, to } = await hold(USDC(4));
    const res = await post(`${env.url}/v1/reviews/${id}/approve`, { approval: await approval(id) }, auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requestId: id, status: "approved", txHash: expect.stringMatching(/^0x/) });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(4));
    const polled = await get(`${env.url}/v1/payments/${id}`);
    expect(polled.body).toEqual({ requestId: id, status: "approved", txHash: res.body.txHash });
    const twice = await post(`${env.url}/v1/reviews/${id}/approve`, { approval: await approval(id) }, auth);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe("REVIEW_ALREADY_DECIDED");
  });

  it("approve with a signature that is not the owner's ReviewApproval: 400 INVALID_SIGNATURE, still held", async () => {
    const { id } = await hold();
    const good = await approval(id);
    const forged = await signReviewApproval(privateKeyToAccount(generatePrivateKey()), env.manifest.domain as never, { intentHash: `0x${"11".repeat(32)}`, deadline: BigInt(good.deadline) });
    const res = await post(`${env.url}/v1/reviews/${id}/approve`, { approval: { deadline: good.deadline, signature: forged } }, auth);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("INVALID_SIGNATURE");
    expect((await get(`${env.url}/v1/payments/${id}`)).body.status).toBe("pending_review");
  });

  it("reject: polling shows rejected with the owner's reason verbatim, nothing paid", async () => {
    const { id, to } = await hold();
    const reason = "Unknown supplier: invoice #42 is not ours";
    const res = await post(`${env.url}/v1/reviews/${id}/reject`, { reason }, auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requestId: id, status: "rejected", reason, errorCode: "OWNER_REJECTED" });
    const polled = await get(`${env.url}/v1/payments/${id}`);
    expect(polled.body).toMatchObject({ status: "rejected", reason, errorCode: "OWNER_REJECTED" });
    expect((await get(`${env.url}/v1/reviews/${id}`, auth)).body).toMatchObject({ status: "rejected", reason });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    const missing = await post(`${env.url}/v1/reviews/${id}/reject`, {}, auth);
    expect(missing.status).toBe(400);
  });

  describe("a held approve call shows the owner what it grants", () => {
    const spender = fresh();
    let id: string;

    beforeAll(async () => {
      const usdc = env.token("USDC");
      const body = await executeBody(env, { protocol: usdc }, calldata("mocks/MockERC20", "approve", [spender, USDC(20_000)]));
      const res = await post(`${env.url}/v1/execute`, body);
      expect(res.body.status).toBe("pending_review");
      id = res.body.requestId;
      // Held, so nothing was granted.
      const allowance = await env.clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [env.vault, spender] });
      expect(allowance).toBe(0n);
    });

    it("GET /v1/reviews/:id decodes the call: function approve, the spender, 20,000 USDC", async () => {
      const res = await get(`${env.url}/v1/reviews/${id}`, auth);
      expect(res.status).toBe(200);
      // What the call would grant, read from its call tree (grants.ts): the token, the amount, the spender.
      expect(res.body).toMatchObject({
        kind: "execute",
        heldBecause: `the call grants a right over the vault's assets that outlives it: an allowance of 20000 USDC (${env.token("USDC")}) to ${spender}`,
      });
      expect(res.body.call).toEqual({
        decoded: true,
        target: env.token("USDC"),
        targetSymbol: "USDC",
        selector: "0x095ea7b3",
        function: "approve",
        signature: "approve(address,uint256)",
        arguments: [
          { name: "spender", type: "address", value: spender, text: spender },
          { name: "amount", type: "uint256", value: "20000000000", token: env.token("USDC"), symbol: "USDC", decimals: 6, human: "20000", text: "20,000 USDC (20000000000 base units)" },
        ],
        summary: `approve(spender ${spender.slice(0, 6)}…${spender.slice(-4)}, amount 20,000 USDC)`,
      });
      const listed = await get(`${env.url}/v1/reviews`, auth);
      expect(listed.body.reviews.find((r: { requestId: string }) => r.requestId === id).call).toEqual(res.body.call);
    });

    it("`relay review show` prints the function, the spender and the amount in human units", async () => {
      const stateDir = mkdtempSync(path.join(tmpdir(), "relay-review-show-"));
      try {
        const ownerKey = env.manifest.accounts.owner.privateKey;
        const run = runMain(["review", "show", id, "--relayer-url", env.url, "--owner-key", ownerKey, "--chain-id", String(env.manifest.chainId), "--state-dir", stateDir]);
        expect(await run.done).toBe(EXIT.OK);
        const out = run.output.stdout;
        expect(out).toMatch(/^Action: +call 0x\w{4}…\w{4} \(USDC\): approve\(spender 0x\w{4}…\w{4}, amount 20,000 USDC\)$/m);
        expect(out).toMatch(/^Function: +approve\(address,uint256\)$/m);
        expect(out).toMatch(new RegExp(`^  spender: +${spender}$`, "m"));
        expect(out).toMatch(/^  amount: +20,000 USDC \(20000000000 base units\)$/m);
        // An approval grant stops at the vault's review gate in simulation and moves nothing: no
        // outflows are measured, so none are shown (a held transfer shows its own, see
        // test/security/execute-value.test.ts).
        expect(out).not.toMatch(/Moves out of the vault/);
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    });
  });

  it("an approval executes even after the bot's own deadline has passed (last: it moves the chain's clock)", async () => {
    const chainNow = (await env.clients.publicClient.getBlock()).timestamp;
    const wallNow = BigInt(Math.floor(Date.now() / 1000));
    const deadline = (chainNow > wallNow ? chainNow : wallNow) + 30n;
    const { id, to } = await hold(USDC(1), deadline);
    const signed = await approval(id, deadline + 3600n);
    await advanceChain(env, 120);
    const res = await post(`${env.url}/v1/reviews/${id}/approve`, { approval: signed }, auth);
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: res.body.txHash });
    const block = await env.clients.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(block.timestamp > deadline).toBe(true);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
  });
});

describe("undecided reviews", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ reviewWindowSeconds: 1 });
  });
  afterAll(() => env?.close());

  it("become rejected once the review window ends", async () => {
    const body = await paymentBody(env, {}, { signer: env.reviewedBot });
    const held = await post(`${env.url}/v1/payments`, body);
    expect(held.body.status).toBe("pending_review");
    let polled = held;
    for (let i = 0; i < 50 && polled.body.status === "pending_review"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      polled = await get(`${env.url}/v1/payments/${held.body.requestId}`);
    }
    expect(polled.body).toMatchObject({ status: "rejected", reason: "review expired", errorCode: "REVIEW_EXPIRED" });
  });
});
