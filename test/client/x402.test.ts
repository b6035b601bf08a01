// relay-client's x402 (vault pays) surface: the X402Intent signed on the vault's domain recovers to
// the bot and hashes as the relayer hashes it; the body carries the intent and the requirement; the
// client posts it to /v1/x402 with its idempotency key (resent as is on a 5xx) and reads it back.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { recoverTypedDataAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  intentDigest,
  intentTypes,
  RelayClient,
  signX402Intent,
  signX402Request,
  x402RequestBody,
  type X402Intent,
  type X402Response,
} from "../../packages/client/src/index.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { startScriptedServer, type ScriptedServer } from "./support/scripted-server.ts";

const bot = privateKeyToAccount(`0x${"11".repeat(32)}`);
const domain = { name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: "0x1111111111111111111111111111111111111111" as Address };
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address;
const MERCHANT = "0x2222222222222222222222222222222222222222" as Address;
const intent: X402Intent = { bot: bot.address, token: USDC, payTo: MERCHANT, amount: 10_000n, validAfter: 0n, validBefore: 1_900_000_600n, nonce: `0x${"5a".repeat(32)}`, deadline: 1_900_000_000n };
const requirement = { resource: "https://api.example/report", scheme: "exact", network: "eip155:84532", payTo: MERCHANT, amount: "10000", asset: USDC, extra: { name: "USDC", version: "2" } };

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

describe("X402Intent", () => {
  it("is the interface's type, signed by the bot on the vault's domain, hashed as the relayer hashes it", async () => {
    expect(intentTypes.X402Intent.map((m) => `${m.type} ${m.name}`).join(",")).toBe(
      "address bot,address token,address payTo,uint256 amount,uint256 validAfter,uint256 validBefore,bytes32 nonce,uint256 deadline",
    );
    const signature = await signX402Intent(bot, domain, intent);
    expect(await recoverTypedDataAddress({ domain, types: intentTypes, primaryType: "X402Intent", message: intent, signature })).toBe(bot.address);
    expect(intentDigest(domain, "X402Intent", intent)).toBe(hashIntent("x402", domain, intent));
  });

  it("builds the body of POST /v1/x402: the intent as decimal strings, the requirement, a fresh key", async () => {
    const body = await signX402Request(bot, domain, intent, { x402: requirement, memo: "report" });
    expect(body).toEqual({
      chainId: 84532, vaultAddress: domain.verifyingContract, bot: bot.address, token: USDC, payTo: MERCHANT, amount: "10000", validAfter: "0",
      validBefore: "1900000600", nonce: intent.nonce, deadline: "1900000000", signature: await signX402Intent(bot, domain, intent),
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/), memo: "report", x402: requirement,
    });
    expect(x402RequestBody(domain, intent, "0x01" as Hex, { idempotencyKey: "k" })).not.toHaveProperty("x402");
  });
});

describe("RelayClient x402", () => {
  it("submitX402 posts to /v1/x402 with its key, resends it as is on a 5xx; getX402 and getStatus read /v1/x402/:id", async () => {
    const answer: X402Response = { requestId: "req-x", status: "approved", txHash: `0x${"12".repeat(32)}`, digest: `0x${"34".repeat(32)}` };
    server.script({ status: 500, body: { error: "node", code: "RPC_ERROR" } }, { status: 200, body: answer });
    const relay = new RelayClient({ baseUrl: server.url, retry: { baseDelayMs: 5, maxDelayMs: 10 } });
    const body = await signX402Request(bot, domain, intent, { x402: requirement });
    expect(await relay.submitX402(body)).toEqual(answer);
    expect(await relay.getX402("req-x")).toEqual(answer);
    expect(await relay.getStatus("x402", "req-x")).toEqual(answer);
    const [first, second, read, status] = server.received;
    expect([first!.method, first!.url, second!.url, read!.url, status!.url]).toEqual(["POST", "/v1/x402", "/v1/x402", "/v1/x402/req-x", "/v1/x402/req-x"]);
    expect(second!.body).toBe(first!.body);
    expect(first!.headers["idempotency-key"]).toBe(body.idempotencyKey);
  });
});
