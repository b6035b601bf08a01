// SIWE nonces cannot be evicted or starved by a flood (issue 12, item 8), against a real relayer
// over HTTP: the owner takes a nonce, then 10,010 anonymous nonce requests arrive from ten other
// loopback addresses, and the owner still signs in with the first nonce; the same signed message
// sent again is refused. Nothing about the vault changes on-chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSiweMessage } from "../../packages/client/src/siwe-message.ts";
import { balanceOf, startEnv, type Env } from "../relayer/harness.ts";
import { loopbackClient, mapConcurrent, tally, type LoopbackClient } from "./support/loopback-client.ts";

const FLOODERS = 10;
const PER_FLOODER = 1_001; // within the relayer's general per-address bucket, so every one is issued

describe("a flood of SIWE nonce requests", () => {
  let env: Env;
  const clients: LoopbackClient[] = [];

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await env?.close();
  });

  it("does not evict the owner's outstanding nonce; the owner signs in with it once, and a replay is refused", async () => {
    const ownerClient = loopbackClient("127.0.0.1");
    clients.push(ownerClient);
    const vaultBefore = await balanceOf(env, env.token("USDC"), env.vault);
    const issued = await ownerClient.post(`${env.url}/v1/auth/nonce`, {});
    expect(issued.status).toBe(200);
    const message = buildSiweMessage({
      domain: new URL(env.url).host,
      address: env.ownerAccount.address,
      uri: env.url,
      chainId: env.manifest.chainId,
      nonce: issued.body.nonce,
      issuedAt: new Date(),
    });
    const signature = await env.ownerAccount.signMessage({ message });

    const flooders = Array.from({ length: FLOODERS }, (_, i) => loopbackClient(`127.0.0.${i + 2}`, 16));
    clients.push(...flooders);
    const floods = await Promise.all(
      flooders.map((flooder) => mapConcurrent(Array.from({ length: PER_FLOODER }), 16, () => flooder.post(`${env.url}/v1/auth/nonce`, {}))),
    );
    const answers = floods.flat();
    expect(tally(answers)).toEqual({ "200": FLOODERS * PER_FLOODER });
    expect(new Set(answers.map((a) => a.body.nonce)).size).toBe(FLOODERS * PER_FLOODER);

    const login = await ownerClient.post(`${env.url}/v1/auth/login`, { message, signature });
    expect(login.status, login.text).toBe(200);
    expect(login.body.address).toBe(env.ownerAccount.address);
    const reviews = await ownerClient.get(`${env.url}/v1/reviews`, { authorization: `Bearer ${login.body.token}` });
    expect(reviews.status).toBe(200);

    const replay = await ownerClient.post(`${env.url}/v1/auth/login`, { message, signature });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: expect.any(String), code: "UNAUTHORIZED", details: expect.stringMatching(/already used/) });
    expect(await balanceOf(env, env.token("USDC"), env.vault)).toBe(vaultBefore);
  });
});
