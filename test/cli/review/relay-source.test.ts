// The RelayClient-backed ReviewSource against a scripted HTTP server: lazy sign-in, one new sign-in
// after a 401, and approvals signed by the owner on the vault's domain.
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RelayApiError } from "../../../packages/client/src/errors.ts";
import { RelayClient } from "../../../packages/client/src/relay-client.ts";
import { intentDigest } from "../../../packages/client/src/sign.ts";
import { createRelaySource } from "../../../src/cli/review/relay-source.ts";
import { recoverSigner } from "../../../src/eip712/recover.ts";
import type { VaultDomain } from "../../../packages/client/src/intent-types.ts";
import { startScriptedServer, type ScriptedServer } from "../../client/support/scripted-server.ts";
import { BOT, PAYEE, USDC, VAULT, heldPayment } from "./support/memory-source.ts";

const owner = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const domain: VaultDomain = { name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: VAULT };
const NOW_MS = 1_700_000_000_000;

let server: ScriptedServer;
beforeAll(async () => (server = await startScriptedServer()));
afterAll(() => server.close());

function setup(domainChainId = 84532, chainTime?: () => Promise<number>) {
  const client = new RelayClient({ baseUrl: server.url, retry: { maxAttempts: 1 } });
  let signIns = 0;
  const source = createRelaySource({
    client,
    owner,
    signIn: async () => {
      signIns += 1;
      client.setAuthToken(`token-${signIns}`);
    },
    vaultDomain: async () => ({ ...domain, chainId: domainChainId }),
    filter: { chainId: 84532 },
    approvalWindowSeconds: 600,
    now: () => NOW_MS,
    ...(chainTime ? { chainTime } : {}),
  });
  server.received.length = 0;
  return { source, signIns: () => signIns };
}

const unauthorized = { status: 401, body: { error: "session expired", code: "UNAUTHORIZED" } };

describe("createRelaySource", () => {
  it("signs in before the first call and sends the bearer token and filter", async () => {
    const { source, signIns } = setup();
    server.script({ status: 200, body: { reviews: [heldPayment("req_a", 5)] } });
    const reviews = await source.list();
    expect(reviews.map((r) => r.requestId)).toEqual(["req_a"]);
    expect(signIns()).toBe(1);
    expect(server.received[0]!.url).toBe("/v1/reviews?chainId=84532");
    expect(server.received[0]!.headers.authorization).toBe("Bearer token-1");
    await source.list();
    expect(signIns()).toBe(1);
  });

  it("signs in again once after a 401 (a restarted relayer) and retries the call", async () => {
    const { source, signIns } = setup();
    server.script({ status: 200, body: { reviews: [] } });
    await source.list();
    server.script(unauthorized, { status: 200, body: { reviews: [] } });
    await source.list();
    expect(signIns()).toBe(2);
    expect(server.received.at(-1)!.headers.authorization).toBe("Bearer token-2");
  });

  it("passes a second 401 on", async () => {
    const { source, signIns } = setup();
    server.script(unauthorized);
    const failure = await source.list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RelayApiError);
    expect((failure as RelayApiError).status).toBe(401);
    expect(signIns()).toBe(2);
  });

  /** A held payment whose intent is whole and whose intentHash is that intent's digest on `domain`. */
  function consistentPayment(id: string, usdc: number) {
    const intent = { bot: BOT as Address, to: PAYEE as Address, token: USDC as Address, amount: BigInt(usdc * 1_000_000), deadline: 1_700_000_300n, ref: `0x${"cd".repeat(32)}` as Hex };
    const intentHash = intentDigest(domain, "PaymentIntent", intent);
    return heldPayment(id, usdc, { intentHash, intent: { ...intent, amount: String(intent.amount), deadline: String(intent.deadline) } });
  }

  it("approves with the owner's ReviewApproval over the item's intent hash on the vault's domain", async () => {
    const { source } = setup();
    const item = consistentPayment("req_a", 5);
    server.script({ status: 200, body: item }, { status: 200, body: { requestId: "req_a", status: "approved", txHash: `0x${"12".repeat(32)}` } });
    const response = await source.approve("req_a");
    expect(response.status).toBe("approved");
    const sent = server.received.at(-1)!;
    expect(sent.method).toBe("POST");
    expect(sent.url).toBe("/v1/reviews/req_a/approve");
    const body = JSON.parse(sent.body) as { approval: { deadline: string; signature: Hex } };
    expect(body.approval.deadline).toBe(String(NOW_MS / 1000 + 600));
    const digest = intentDigest(domain, "ReviewApproval", { intentHash: item.intentHash, deadline: BigInt(body.approval.deadline) });
    expect(recoverSigner(digest, body.approval.signature)).toBe(owner.address);
  });

  it("counts the approval's deadline from the chain's time where it is ahead (a devnet moved 25 h), else from the wall clock", async () => {
    const ahead = NOW_MS / 1000 + 25 * 3_600;
    for (const [chainTime, from] of [[ahead, ahead], [NOW_MS / 1000 - 30, NOW_MS / 1000]] as const) {
      const { source } = setup(84532, async () => chainTime);
      server.script({ status: 200, body: consistentPayment("req_a", 5) }, { status: 200, body: { requestId: "req_a", status: "approved", txHash: `0x${"12".repeat(32)}` } });
      await source.approve("req_a");
      const body = JSON.parse(server.received.at(-1)!.body) as { approval: { deadline: string } };
      expect(body.approval.deadline).toBe(String(from + 600));
    }
  });

  it("refuses to sign when the intent shown does not hash to the item's intent hash", async () => {
    const { source } = setup();
    const honest = consistentPayment("req_a", 500);
    const shown = { ...honest, intent: { ...(honest.intent as Record<string, unknown>), amount: "1000000" } };
    server.script({ status: 200, body: shown });
    await expect(source.approve("req_a")).rejects.toThrow(/does not hash to the intent hash the approval would sign/);
    expect(server.received.some((r) => r.url.endsWith("/approve"))).toBe(false);
  });

  it("refuses to approve when the RPC serves another chain than the review's", async () => {
    const { source } = setup(42161);
    server.script({ status: 200, body: heldPayment("req_a", 5) });
    await expect(source.approve("req_a")).rejects.toThrow(/on chain 84532, but the RPC URL serves chain 42161/);
    expect(server.received.some((r) => r.url.endsWith("/approve"))).toBe(false);
  });

  it("rejects with the reason in the body", async () => {
    const { source } = setup();
    server.script({ status: 200, body: { requestId: "req_a", status: "rejected", reason: "not ours" } });
    const response = await source.reject("req_a", "not ours");
    expect(response).toMatchObject({ status: "rejected", reason: "not ours" });
    expect(JSON.parse(server.received.at(-1)!.body)).toEqual({ reason: "not ours" });
  });
});
