// The off-chain fields a bot's SDK sends with a payment (invoiceId, orderId, recipientLabel,
// resourceUrl, x402Funding) end to end on a devnet: a review-required bot's payment carrying all five
// is held, and its owner reads them back from GET /v1/reviews/:id and the list after signing in with
// SIWE; they are part of the idempotency fingerprint; a bad one is its own 400 and nothing moves; a
// funding payment (x402Funding) to the bot itself is refused when the merchant it names is.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { signInWithEthereum } from "../../packages/client/src/siwe.ts";
import { balanceOf, fresh, get, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";

const OFF_CHAIN = {
  invoiceId: "INV-2024-0042",
  orderId: "order_9f8e7d",
  recipientLabel: "Acme Data Ltd",
  resourceUrl: "https://api.example.com/reports/42?format=pdf",
  x402Funding: {
    scheme: "exact",
    network: "base-sepolia",
    asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    amount: "4000000",
    payTo: "0x2222222222222222222222222222222222222222",
    maxTimeoutSeconds: 60,
    extra: { name: "USDC", version: "2" },
  },
};

describe("off-chain fields of a payment", () => {
  let env: Env;
  let auth: Record<string, string>;

  beforeAll(async () => {
    env = await startEnv();
    const login = await signInWithEthereum(new RelayClient({ baseUrl: env.url }), env.ownerAccount, { chainId: env.manifest.chainId, baseUrl: env.url });
    auth = { authorization: `Bearer ${login.token}` };
  });
  afterAll(() => env?.close());

  it("a held payment carries all five to the owner's review, as sent", async () => {
    const to = fresh();
    // The fields are not signed: they ride next to the signed intent, as the SDK sends them.
    const body = { ...(await paymentBody(env, { to, amount: 4_000_000n }, { signer: env.reviewedBot, memo: "monthly report" })), ...OFF_CHAIN };
    const res = await post(`${env.url}/v1/payments`, body);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("pending_review");
    const id = res.body.requestId as string;

    const detail = await get(`${env.url}/v1/reviews/${id}`, auth);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ requestId: id, kind: "payment", status: "pending_review", memo: "monthly report", ...OFF_CHAIN });
    expect(detail.body.x402Funding).toEqual(OFF_CHAIN.x402Funding);

    const list = await get(`${env.url}/v1/reviews?chainId=${env.manifest.chainId}&vault=${env.vault}`, auth);
    expect(list.body.reviews.find((r: { requestId: string }) => r.requestId === id)).toMatchObject(OFF_CHAIN);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it("a review without them has none of the five", async () => {
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }, { signer: env.reviewedBot }));
    expect(res.body.status).toBe("pending_review");
    const detail = await get(`${env.url}/v1/reviews/${res.body.requestId}`, auth);
    for (const field of Object.keys(OFF_CHAIN)) expect(detail.body).not.toHaveProperty(field);
  });

  it("are part of the request for idempotency: the same key with another invoiceId is 409 IDEMPOTENCY_CONFLICT", async () => {
    const body = { ...(await paymentBody(env, { to: fresh() }, { signer: env.reviewedBot })), ...OFF_CHAIN };
    const first = await post(`${env.url}/v1/payments`, body);
    expect(first.body.status).toBe("pending_review");
    const again = await post(`${env.url}/v1/payments`, body);
    expect(again.status).toBe(200);
    expect(again.body.requestId).toBe(first.body.requestId);
    const changed = await post(`${env.url}/v1/payments`, { ...body, invoiceId: "INV-OTHER" });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe("IDEMPOTENCY_CONFLICT");
    const detail = await get(`${env.url}/v1/reviews/${first.body.requestId}`, auth);
    expect(detail.body.invoiceId).toBe(OFF_CHAIN.invoiceId);
  });

  it("a bad field is refused with its own 400 before anything is recorded, and the fast-path payment does not move funds", async () => {
    const to = fresh();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ invoiceId: "i".repeat(129) }, "INVOICE_ID_TOO_LONG"],
      [{ orderId: 12345 }, "ORDER_ID_TOO_LONG"],
      [{ recipientLabel: "l".repeat(201) }, "RECIPIENT_LABEL_TOO_LONG"],
      [{ resourceUrl: "javascript:alert(1)" }, "INVALID_RESOURCE_URL"],
      [{ x402Funding: "network=base" }, "INVALID_X402_FUNDING"],
    ];
    for (const [fields, code] of cases) {
      const body = { ...(await paymentBody(env, { to })), ...fields };
      const res = await post(`${env.url}/v1/payments`, body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code });
    }
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    // The same default bot's valid payment to the same address still goes through: nothing was reserved.
    const ok = await post(`${env.url}/v1/payments`, { ...(await paymentBody(env, { to })), ...OFF_CHAIN });
    expect(ok.body.status).toBe("approved");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(1_000_000n);
  });
  it("a funding payment to the bot's own key: x402Funding true is approved; one whose merchant (payTo) is blacklisted is 403 and nothing moves", async () => {
    const usdc = env.token("USDC");
    const before = await balanceOf(env, usdc, env.bot.address);
    const funded = await post(`${env.url}/v1/payments`, { ...(await paymentBody(env, { to: env.bot.address })), x402Funding: true });
    expect(funded.body.status).toBe("approved");
    expect(await balanceOf(env, usdc, env.bot.address)).toBe(before + 1_000_000n);

    const merchant = fresh();
    await ownerCall(env, "addGlobalBlacklist", [merchant]);
    const refused = await post(`${env.url}/v1/payments`, { ...(await paymentBody(env, { to: env.bot.address })), x402Funding: { ...OFF_CHAIN.x402Funding, payTo: merchant } });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: "DESTINATION_NOT_ALLOWED" });
    expect(refused.body.details).toMatch(/x402Funding\.payTo .* is blacklisted/);
    expect(await balanceOf(env, usdc, env.bot.address)).toBe(before + 1_000_000n);
  });
});
