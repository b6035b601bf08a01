// The relayer's terms of service end to end: a real devnet, a real relayer over HTTP. Without terms
// nothing is required and payments run; with `terms: {version: "2026-11"}` a vault whose owner has not
// accepted them is refused (403 TERMS_NOT_ACCEPTED, nothing moved), a forged, borrowed or stale
// acceptance is 400 INVALID_SIGNATURE and records nothing, the owner's own signature unblocks the
// vault, and the acceptance outlives a restart (it is in the ledger).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { acceptTerms } from "../../packages/client/src/terms.ts";
import { termsMessage } from "../../packages/client/src/terms-message.ts";
import { balanceOf, fresh, get, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { expectErrorEnvelope } from "./harness-extra.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;
const TERMS = { version: "2026-11", url: "https://relay.example/terms" };

describe("terms of service: none configured", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(() => env?.close());

  it("the status says nothing is required, an acceptance is refused, and payments run", async () => {
    const status = await get(`${env.url}/v1/tos/status?wallet=${env.ownerAccount.address}`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ wallet: env.ownerAccount.address, required: false, version: null, accepted: true });

    const accept = await post(`${env.url}/v1/tos/accept`, { wallet: env.ownerAccount.address, version: "2026-11", message: "x", signature: "0x" + "1".repeat(130) });
    expect(accept.status).toBe(400);
    expectErrorEnvelope(accept.body, "INVALID_REQUEST");

    const to = fresh();
    const pay = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(1) }));
    expect(pay.body).toMatchObject({ status: "approved" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
  });

  it("a malformed wallet is 400 INVALID_ADDRESS, a missing one INVALID_REQUEST", async () => {
    expectErrorEnvelope((await get(`${env.url}/v1/tos/status?wallet=0x1234`)).body, "INVALID_ADDRESS");
    expectErrorEnvelope((await get(`${env.url}/v1/tos/status`)).body, "INVALID_REQUEST");
  });
});

describe("terms of service: version 2026-11 required", () => {
  let env: Env;
  const owner = () => env.ownerAccount;
  const stranger = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    env = await startEnv({ terms: TERMS });
  });
  afterAll(() => env?.close());

  /** The owner's acceptance body as the relayer's own text would be signed, with overrides. */
  async function acceptance(over: { version?: string; signedVersion?: string; signer?: typeof stranger; issuedAt?: string } = {}) {
    const message = termsMessage({
      wallet: owner().address,
      version: over.signedVersion ?? TERMS.version,
      url: TERMS.url,
      issuedAt: over.issuedAt ?? new Date().toISOString(),
    });
    const signature = await (over.signer ?? owner()).signMessage({ message });
    return { wallet: owner().address, version: over.version ?? TERMS.version, message, signature };
  }

  async function expectNothingRecorded() {
    expect(await env.store.latestTermsAcceptance(owner().address)).toBeUndefined();
  }

  it("the status names the version and URL, says it is not accepted, and offers the text to sign", async () => {
    const res = await get(`${env.url}/v1/tos/status?wallet=${owner().address.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      wallet: owner().address,
      required: true,
      version: "2026-11",
      url: TERMS.url,
      accepted: false,
      message: expect.stringContaining(`Wallet: ${owner().address}\nTerms version: 2026-11\nTerms URL: ${TERMS.url}\nIssued At: `),
    });
  });

  it("a payment from a vault whose owner has not accepted is 403 TERMS_NOT_ACCEPTED, and nothing moves", async () => {
    const to = fresh();
    const vaultBefore = await balanceOf(env, env.token("USDC"), env.vault);
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(1) }));
    expect(res.status).toBe(403);
    expectErrorEnvelope(res.body, "TERMS_NOT_ACCEPTED");
    expect(res.body.details).toContain("2026-11");
    expect(res.body.details).toContain("POST /v1/tos/accept");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    expect(await balanceOf(env, env.token("USDC"), env.vault)).toBe(vaultBefore);
  });

  it("a stranger's forged intent learns nothing about the terms: its signature is refused first", async () => {
    const forged = await paymentBody(env, { bot: env.bot.address, to: fresh(), amount: USDC(1) }, { signer: stranger });
    const res = await post(`${env.url}/v1/payments`, forged);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, "INVALID_SIGNATURE");
  });

  it("a bad signature, another wallet's, another version's or a stale one is 400 INVALID_SIGNATURE and records nothing", async () => {
    const url = `${env.url}/v1/tos/accept`;
    const good = await acceptance();
    // The owner's signature with one byte of r changed.
    const tampered = { ...good, signature: (good.signature.slice(0, 10) + (good.signature[10] === "0" ? "1" : "0") + good.signature.slice(11)) as Hex };
    const cases = {
      tampered,
      strangerSigned: await acceptance({ signer: stranger }),
      otherVersionSigned: await acceptance({ signedVersion: "2026-10" }),
      otherVersionSent: await acceptance({ version: "2026-10", signedVersion: "2026-10" }),
      otherWalletNamed: { ...(await acceptance({ signer: stranger })), wallet: stranger.address },
      stale: await acceptance({ issuedAt: new Date(Date.now() - 2 * 86_400_000).toISOString() }),
      notTheText: { ...good, message: `${good.message}\nand more` },
    };
    for (const [name, body] of Object.entries(cases)) {
      const res = await post(url, body);
      expect(res.status, name).toBe(400);
      expectErrorEnvelope(res.body, "INVALID_SIGNATURE");
    }
    await expectNothingRecorded();
    expect(await env.store.latestTermsAcceptance(stranger.address)).toBeUndefined();
    expect((await get(`${env.url}/v1/tos/status?wallet=${owner().address}`)).body.accepted).toBe(false);
    expect((await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh(), amount: USDC(1) }))).status).toBe(403);
  });

  it("the owner accepts (the client signs the offered text); accepting again changes nothing; the payment is approved", async () => {
    const client = new RelayClient({ baseUrl: env.url });
    const status = await acceptTerms(client, owner());
    expect(status).toMatchObject({ wallet: owner().address, required: true, version: "2026-11", accepted: true, acceptedVersion: "2026-11" });
    expect(status.message).toBeUndefined();
    const recorded = (await env.store.findTermsAcceptance(owner().address, "2026-11"))!;
    expect(recorded).toMatchObject({ wallet: owner().address.toLowerCase(), version: "2026-11", message: expect.stringContaining("Terms version: 2026-11") });
    expect(new Date(recorded.at).toISOString()).toBe(status.acceptedAt);

    const again = await post(`${env.url}/v1/tos/accept`, await acceptance());
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ wallet: owner().address, version: "2026-11", acceptedAt: status.acceptedAt });

    const to = fresh();
    const pay = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(2) }));
    expect(pay.status).toBe(200);
    expect(pay.body).toMatchObject({ status: "approved" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(2));
  });

  it("the acceptance survives a restart; a failed acceptance spends the client's bucket for unauthenticated work", async () => {
    await env.stopRelayers();
    await env.startRelayers({
      terms: TERMS,
      rateLimits: {
        bot: { capacity: 100, refillPerSecond: 50 },
        vault: { capacity: 100, refillPerSecond: 50 },
        client: { capacity: 1000, refillPerSecond: 500 },
        unauthenticated: { capacity: 3, refillPerSecond: 0.001 },
      },
    });
    const status = await get(`${env.url}/v1/tos/status?wallet=${owner().address}`);
    expect(status.body).toMatchObject({ required: true, version: "2026-11", accepted: true, acceptedVersion: "2026-11" });

    const to = fresh();
    // The first request for this vault after the restart reads the chain before its signature can be checked: one token.
    const pay = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: USDC(1) }));
    expect(pay.body).toMatchObject({ status: "approved" });
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));

    const bad = { ...(await acceptance({ signer: stranger })) };
    for (let i = 0; i < 2; i++) expectErrorEnvelope((await post(`${env.url}/v1/tos/accept`, bad)).body, "INVALID_SIGNATURE");
    const limited = await post(`${env.url}/v1/tos/accept`, bad);
    expect(limited.status).toBe(429);
    expectErrorEnvelope(limited.body, "RATE_LIMITED");
  });
});
