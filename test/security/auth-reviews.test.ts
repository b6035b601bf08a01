// A signed-in stranger learns nothing about another owner's reviews (issue 12, item 8), against a
// real devnet and a real relayer over HTTP: asking for a vault's review list answers the same
// (status and body) before and after the vault has a held request, and another vault's review —
// to read, approve or reject — answers exactly as an id that does not exist. The held payment stays
// held and the chain shows nothing moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { signInWithEthereum } from "../../packages/client/src/siwe.ts";
import { newRequestId } from "../../src/ledger/index.ts";
import { balanceOf, fresh, get, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";

describe("what a stranger can learn from the review routes", () => {
  let env: Env;
  let owner: Record<string, string>;
  let stranger: Record<string, string>;

  const session = async (account: PrivateKeyAccount) => {
    const login = await signInWithEthereum(new RelayClient({ baseUrl: env.url }), account, { chainId: env.manifest.chainId, baseUrl: env.url });
    return { authorization: `Bearer ${login.token}` };
  };
  /** Status and body, with `id` (if given) written as ":id" so that two ids' answers compare. */
  const seen = (res: { status: number; body: unknown }, id?: string) => ({
    status: res.status,
    body: id === undefined ? res.body : JSON.parse(JSON.stringify(res.body).replaceAll(id, ":id")),
  });

  beforeAll(async () => {
    env = await startEnv();
    owner = await session(env.ownerAccount);
    stranger = await session(privateKeyToAccount(generatePrivateKey()));
  });
  afterAll(() => env?.close());

  it("the list for one vault answers a stranger the same whether or not the vault has held requests, and the owner sees them", async () => {
    const urls = [`${env.url}/v1/reviews?vault=${env.vault}`, `${env.url}/v1/reviews?vault=${env.vault}&chainId=${env.manifest.chainId}`];
    const before = await Promise.all(urls.map(async (url) => seen(await get(url, stranger))));
    expect((await get(urls[0]!, owner)).body).toEqual({ reviews: [] });

    const held = await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }, { signer: env.reviewedBot }));
    expect(held.body.status, held.text).toBe("pending_review");

    const after = await Promise.all(urls.map(async (url) => seen(await get(url, stranger))));
    expect(after).toEqual(before);
    // Decided by the vault's on-chain owner, so the same refusal with or without held requests.
    expect(after[0]).toEqual({ status: 403, body: { error: expect.any(String), code: "NOT_VAULT_OWNER", details: expect.any(String) } });
    // Unfiltered, a stranger sees an empty list; the owner sees the held request in both forms.
    expect((await get(`${env.url}/v1/reviews`, stranger)).body).toEqual({ reviews: [] });
    for (const url of urls) {
      const mine = await get(url, owner);
      expect(mine.body.reviews.map((r: { requestId: string }) => r.requestId)).toContain(held.body.requestId);
    }
  });

  it("another vault's review answers a stranger exactly as an unknown id, for reading, approving and rejecting; nothing moves", async () => {
    const to = fresh();
    const held = await post(`${env.url}/v1/payments`, await paymentBody(env, { to }, { signer: env.reviewedBot }));
    expect(held.body.status, held.text).toBe("pending_review");
    const real = held.body.requestId as string;
    const unknown = newRequestId();
    const vaultBefore = await balanceOf(env, env.token("USDC"), env.vault);
    const approval = { approval: { deadline: String(Math.floor(Date.now() / 1000) + 3600), signature: `0x${"11".repeat(65)}` } };

    const asks = [
      (id: string) => get(`${env.url}/v1/reviews/${id}`, stranger),
      (id: string) => post(`${env.url}/v1/reviews/${id}/approve`, approval, stranger),
      (id: string) => post(`${env.url}/v1/reviews/${id}/reject`, { reason: "not mine to decide" }, stranger),
    ];
    for (const ask of asks) {
      const forReal = seen(await ask(real), real);
      const forUnknown = seen(await ask(unknown), unknown);
      expect(forReal).toEqual(forUnknown);
      expect(forReal).toEqual({ status: 404, body: { error: expect.any(String), code: "NOT_FOUND", details: "no review :id" } });
    }

    expect((await get(`${env.url}/v1/payments/${real}`)).body.status).toBe("pending_review");
    expect((await get(`${env.url}/v1/reviews/${real}`, owner)).body).toMatchObject({ requestId: real, status: "pending_review" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    expect(await balanceOf(env, env.token("USDC"), env.vault)).toBe(vaultBefore);
  });
});
