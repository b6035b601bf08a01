// Hostile clients against a real relayer on a real devnet: bodies over the size limit, a body
// trickled at one byte a second, slowloris headers, forged `bot` fields, and signatures that are
// valid somewhere else (another chain, another vault) or malformed (high-s, 64-byte, all zero, bad
// v). Every answer is the error envelope; nothing is executed and no one's rate limit is spent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent, VaultDomain } from "../../packages/client/src/intent-types.ts";
import { BODY_LIMIT_BYTES } from "../../src/server/app.ts";
import { balanceOf, fresh, get, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";
import { deployVault, newBot } from "../relayer/harness-extra.ts";
import { expectEnvelope, rawExchange } from "./support/hostile-http.ts";

const REQUEST_TIMEOUT_MS = 2_000;
const BOT_BUCKET = 3;
/** secp256k1's group order: s and n - s are both valid for ECDSA; only s <= n/2 is accepted. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe("hostile clients", () => {
  let env: Env;
  let payments: string;
  let domain: VaultDomain;

  beforeAll(async () => {
    env = await startEnv({
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      rateLimits: {
        bot: { capacity: BOT_BUCKET, refillPerSecond: 0.001 },
        vault: { capacity: 10_000, refillPerSecond: 10_000 },
        client: { capacity: 10_000, refillPerSecond: 10_000 },
      },
    });
    payments = `${env.url}/v1/payments`;
    domain = env.manifest.domain as VaultDomain;
  });
  afterAll(() => env?.close());

  /** Transactions the relayer has sent so far (its account nonce). */
  const relayerTxCount = () => env.clients.publicClient.getTransactionCount({ address: env.manifest.accounts.relayer.address as Address });

  describe("size limits", () => {
    it("a Content-Length over the limit is 413 PAYLOAD_TOO_LARGE before any body is read", async () => {
      const head = `POST /v1/payments HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT_BYTES * 16}\r\nConnection: close\r\n\r\n`;
      const answer = await rawExchange(env.url, { head, giveUpMs: 10_000 });
      expect(answer.status).toBe(413);
      expectEnvelope(413, answer.body, "PAYLOAD_TOO_LARGE");
    });

    it("a chunked body (no Content-Length) that grows over the limit is 413 PAYLOAD_TOO_LARGE", async () => {
      const frame = (data: string) => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
      const filler = "a".repeat(8 * 1024);
      const chunks = [frame('{"memo":"'), ...Array.from({ length: (BODY_LIMIT_BYTES / filler.length) * 2 }, () => frame(filler))].join("");
      const head = `POST /v1/payments HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}`;
      const answer = await rawExchange(env.url, { head, giveUpMs: 10_000 });
      expect(answer.status).toBe(413);
      expectEnvelope(413, answer.body, "PAYLOAD_TOO_LARGE");
    });
  });

  describe(`slow clients (request timeout ${REQUEST_TIMEOUT_MS} ms)`, () => {
    it("a body trickled at 1 byte/s is closed with 408 REQUEST_TIMEOUT in the envelope", async () => {
      const body = JSON.stringify(await paymentBody(env));
      const head = `POST /v1/payments HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const answer = await rawExchange(env.url, { head, trickle: body, everyMs: 1_000, giveUpMs: REQUEST_TIMEOUT_MS * 6 });
      console.log(`slow body: 408 after ${answer.elapsedMs} ms, ${answer.trickled} of ${body.length} bytes sent`);
      expect(answer.closedByServer, "the server closed the connection before the client gave up").toBe(true);
      expect(answer.status).toBe(408);
      expectEnvelope(408, answer.body, "REQUEST_TIMEOUT");
      expect(answer.trickled).toBeLessThan(body.length);
    });

    it("slowloris headers (one byte at a time, never finished) are closed with 408 REQUEST_TIMEOUT", async () => {
      const head = "POST /v1/payments HTTP/1.1\r\nHost: relay\r\n";
      const answer = await rawExchange(env.url, { head, trickle: `X-Slow: ${"a".repeat(200)}`, everyMs: 200, giveUpMs: REQUEST_TIMEOUT_MS * 6 });
      console.log(`slowloris: 408 after ${answer.elapsedMs} ms, ${answer.trickled} header bytes sent`);
      expect(answer.closedByServer).toBe(true);
      expect(answer.status).toBe(408);
      expectEnvelope(408, answer.body, "REQUEST_TIMEOUT");
    });

    it("while 40 slowloris connections are open, payments are still served; each of the 40 ends in 408", async () => {
      const head = "GET /healthz HTTP/1.1\r\nHost: relay\r\n";
      const attack = Array.from({ length: 40 }, () => rawExchange(env.url, { head, trickle: `X-Slow: ${"b".repeat(200)}`, everyMs: 250, giveUpMs: REQUEST_TIMEOUT_MS * 6 }));
      const to = fresh();
      const paid = await post(payments, await paymentBody(env, { to }));
      expect(paid.status).toBe(200);
      expect(paid.body.status).toBe("approved");
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(1_000_000n);
      const answers = await Promise.all(attack);
      for (const answer of answers) {
        expect(answer.closedByServer).toBe(true);
        expect(answer.status).toBe(408);
        expectEnvelope(408, answer.body, "REQUEST_TIMEOUT");
      }
      expect((await get(`${env.url}/healthz`)).status).toBe(200);
    });
  });

  describe("forged bot fields spend no one's rate limit", () => {
    // operations.test.ts covers signers unknown to the vault; here the forger is itself an active
    // bot of the vault, so its signature is valid, for another bot's intent.
    it("another active bot's valid signature for an intent naming bot A is refused and spends neither bucket", async () => {
      const a = await newBot(env);
      const b = await newBot(env);
      const before = await relayerTxCount();
      for (let i = 0; i < BOT_BUCKET * 2; i++) {
        // B signs an intent whose bot field is A.
        const forged = await paymentBody(env, { bot: a.address }, { signer: b });
        const res = await post(payments, forged);
        expect(res.status).toBe(400);
        expectEnvelope(res.status, res.text, "INVALID_SIGNATURE");
        // A's genuine intent with the bot field swapped to B.
        const genuine = await paymentBody(env, { bot: a.address }, { signer: a });
        const swapped = await post(payments, { ...genuine, bot: b.address });
        expect(swapped.status).toBe(400);
        expectEnvelope(swapped.status, swapped.text, "INVALID_SIGNATURE");
        // A's genuine signature over different terms (another recipient).
        const moved = await post(payments, { ...genuine, to: fresh() });
        expect(moved.status).toBe(400);
        expectEnvelope(moved.status, moved.text, "INVALID_SIGNATURE");
      }
      expect(await relayerTxCount()).toBe(before);
      // Each bot still has its whole bucket: BOT_BUCKET real payments, then 429.
      for (const bot of [a, b]) {
        for (let i = 0; i < BOT_BUCKET; i++) {
          const ok = await post(payments, await paymentBody(env, { bot: bot.address, to: fresh() }, { signer: bot }));
          expect(ok.body.status, `payment ${i + 1} of ${bot.address}`).toBe("approved");
        }
        const over = await post(payments, await paymentBody(env, { bot: bot.address }, { signer: bot }));
        expect(over.status).toBe(429);
        expectEnvelope(429, over.text, "RATE_LIMITED");
      }
    });
  });

  describe("signatures valid elsewhere or malformed are refused, nothing executed", () => {
    /** A payment of 1 USDC to `to`, signed by the default bot on `signDomain`, sent as for env's vault. */
    async function signedOn(signDomain: VaultDomain, to: Address) {
      const intent: PaymentIntent = { bot: env.bot.address, to, token: env.token("USDC"), amount: 1_000_000n, deadline: defaultDeadline(), ref: randomRef() };
      const signature = await signPaymentIntent(env.bot, signDomain, intent);
      return { ...paymentRequestBody(domain, intent, signature, { idempotencyKey: crypto.randomUUID() }), signature };
    }

    /** r, s and v of a 65-byte signature. */
    function parts(signature: Hex): { r: string; s: bigint; v: number } {
      return { r: signature.slice(2, 66), s: BigInt(`0x${signature.slice(66, 130)}`), v: Number.parseInt(signature.slice(130), 16) };
    }
    const hex32 = (n: bigint) => n.toString(16).padStart(64, "0");
    const withV = (signature: Hex, v: number) => `${signature.slice(0, 130)}${v.toString(16).padStart(2, "0")}`;

    const cases: Array<[string, (to: Address) => Promise<Record<string, unknown>>, string]> = [
      ["signed for another chain id (8453), sent as 84532", (to) => signedOn({ ...domain, chainId: 8453 }, to), "INVALID_SIGNATURE"],
      ["signed for and sent as another chain id (8453)", async (to) => ({ ...(await signedOn({ ...domain, chainId: 8453 }, to)), chainId: 8453 }), "INVALID_CHAIN_ID"],
      ["high-s (the malleated twin of a valid signature)", async (to) => {
        const body = await signedOn(domain, to);
        const { r, s, v } = parts(body.signature);
        return { ...body, signature: `0x${r}${hex32(SECP256K1_N - s)}${(v === 27 ? 28 : 27).toString(16)}` };
      }, "INVALID_SIGNATURE"],
      ["64 bytes (EIP-2098 compact form of a valid signature)", async (to) => {
        const body = await signedOn(domain, to);
        const { r, s, v } = parts(body.signature);
        return { ...body, signature: `0x${r}${hex32(s | (BigInt(v - 27) << 255n))}` };
      }, "INVALID_SIGNATURE"],
      ["65 zero bytes", async (to) => ({ ...(await signedOn(domain, to)), signature: `0x${"00".repeat(65)}` }), "INVALID_SIGNATURE"],
      ...[0, 1, 29, 37, 255].map((v): [string, (to: Address) => Promise<Record<string, unknown>>, string] => [
        `v = ${v} (only 27/28 are valid)`,
        async (to) => {
          const body = await signedOn(domain, to);
          return { ...body, signature: withV(body.signature, v) };
        },
        "INVALID_SIGNATURE",
      ]),
    ];

    it("signed for another vault (another vault's domain), sent for this one: INVALID_SIGNATURE", async () => {
      const other = await deployVault(env, env.owner);
      const to = fresh();
      const before = await relayerTxCount();
      const res = await post(payments, await signedOn({ ...domain, verifyingContract: other }, to));
      expect(res.status).toBe(400);
      expectEnvelope(400, res.text, "INVALID_SIGNATURE");
      expect(await relayerTxCount()).toBe(before);
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    });

    for (const [name, build, code] of cases) {
      it(`${name}: ${code}`, async () => {
        const to = fresh();
        const before = await relayerTxCount();
        const res = await post(payments, await build(to));
        expect(res.status).toBe(400);
        expectEnvelope(400, res.text, code);
        expect(await relayerTxCount()).toBe(before);
        expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
      });
    }

    it("the untouched signature of the same construction is accepted (the cases above differ only in what they say)", async () => {
      const to = fresh();
      const res = await post(payments, await signedOn(domain, to));
      expect(res.body.status).toBe("approved");
      expect(await balanceOf(env, env.token("USDC"), to)).toBe(1_000_000n);
    });
  });
});
