// `relay fetch` and relay-client's payingFetch buying from unmodified x402 merchants (@x402/express and
// @x402/hono) that settle through the facilitator of the real `relay serve`, on its devnet, in both
// modes: the vault as the payer (the default) and the vault funding the bot. Every outcome is read
// from the chain: who paid, how much, and that nothing moved when nothing should.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodePaymentResponseHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import {
  RelayClient,
  payingFetch,
  X402PaymentRejectedError,
  X402PriceAboveMaxError,
  type PayingFetchOptions,
  type TypedDataSigner,
  type X402Event,
} from "../../packages/client/src/index.ts";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { runMain, spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { MERCHANT_BODY, startExpressMerchant, startHonoMerchant, type Merchant } from "./merchants.ts";

const VAULT_ABI = readArtifact("ServiceVault").abi;
/** "$0.01" in USDC's base units. */
const PRICE = 10_000n;

describe("relay fetch and payingFetch buy from unmodified @x402/express and @x402/hono merchants (relay serve's facilitator)", () => {
  const stateDir = tempDir("relay-x402-fetch-");
  let relay: SpawnedRelay;
  let manifest: Manifest;
  let clients: ReturnType<typeof clientsFor>;
  let usdc: Address;
  let vault: Address;
  let bot: { address: Address; privateKey: Hex };
  let reviewed: { address: Address; privateKey: Hex };
  let shop: Merchant; // @x402/express
  let stall: Merchant; // @x402/hono

  beforeAll(async () => {
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
    clients = clientsFor(manifest.rpcUrl, manifest.chainId);
    usdc = manifest.tokens.USDC!.address as Address;
    vault = manifest.contracts.vault as Address;
    bot = manifest.accounts.bots.default as typeof bot;
    reviewed = manifest.accounts.bots.reviewed as typeof reviewed;
    shop = await startExpressMerchant(manifest.x402!.facilitatorUrl, manifest.chainId, devKeyPair(14).address);
    stall = await startHonoMerchant(manifest.x402!.facilitatorUrl, manifest.chainId, devKeyPair(15).address);
  }, 180_000);
  afterAll(async () => {
    await shop?.close();
    await stall?.close();
    if (relay.child.exitCode === null) relay.child.kill("SIGKILL");
  });

  const fetchCli = (...args: string[]) => {
    const run = runMain(["fetch", ...args, "--state-dir", stateDir]);
    return { run, result: run.done.then((code) => ({ code, ...run.output })) };
  };
  const balance = (who: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  async function balances() {
    return {
      vault: await balance(vault),
      bot: await balance(bot.address),
      reviewed: await balance(reviewed.address),
      shop: await balance(shop.payTo),
      stall: await balance(stall.payTo),
    };
  }
  /** The default bot's payingFetch on this devnet's relayer and vault, with `options` on top. */
  const botFetch = (options: Partial<PayingFetchOptions> = {}) =>
    payingFetch({ relay: new RelayClient({ baseUrl: manifest.relayerUrl! }), bot: privateKeyToAccount(bot.privateKey), chain: clients.publicClient, vault, ...options });
  /** One purchase at PRICE: the merchant credited, the vault debited, the bot's balance where it was. */
  async function expectOnePurchase(before: Awaited<ReturnType<typeof balances>>, merchant: "shop" | "stall", payingBot: "bot" | "reviewed" = "bot") {
    const after = await balances();
    expect({ merchant: after[merchant] - before[merchant], vault: after.vault - before.vault, bot: after[payingBot] - before[payingBot] }).toEqual({ merchant: PRICE, vault: -PRICE, bot: 0n });
  }
  /** The USDC transfers a transaction made, after checking it succeeded. */
  async function transfers(hash: Hex) {
    const receipt = await clients.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })
      .filter((log) => log.address.toLowerCase() === usdc.toLowerCase())
      .map(({ args }) => ({ from: args.from, to: args.to, value: args.value }));
  }
  async function owner(functionName: string, args: unknown[]) {
    const wallet = clients.walletFor(privateKeyToAccount(manifest.accounts.owner.privateKey as Hex));
    const hash = await wallet.writeContract({ address: vault, abi: VAULT_ABI as never, functionName: functionName as never, args: args as never });
    expect((await clients.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  }

  it("relay fetch buys from @x402/express in funding mode at a price equal to --max: the vault funds the bot with exactly the price, the merchant is paid by the bot", async () => {
    const before = await balances();
    const { code, stdout, stderr } = await fetchCli(shop.url, "--mode", "funding", "--max", "0.01", "--json").result;
    expect(stderr).toMatch(/asks 0\.01 USDC, paid to 0x/);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ status: 200, body: MERCHANT_BODY, payment: { status: "approved", mode: "funding" } });
    expect(out.payment.requestId).toMatch(/^req_/);
    // The funding payment: vault → bot, exactly the price.
    expect(await transfers(out.payment.txHash)).toEqual([{ from: vault, to: bot.address, value: PRICE }]);
    // The merchant's settlement: bot → merchant, exactly the price, and the header says so.
    expect(await transfers(out.payment.settlementTx)).toEqual([{ from: bot.address, to: shop.payTo, value: PRICE }]);
    expect(decodePaymentResponseHeader(out.headers["payment-response"])).toMatchObject({ success: true, payer: bot.address, transaction: out.payment.settlementTx });
    await expectOnePurchase(before, "shop");
  });

  it("relay-client's payingFetch buys from @x402/hono in funding mode, the same way", async () => {
    const before = await balances();
    const paid = botFetch({ mode: "funding", max: PRICE });
    const res = await paid(stall.url);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(MERCHANT_BODY);
    expect(res.payment).toMatchObject({ status: "approved", mode: "funding", requirement: { scheme: "exact", network: `eip155:${manifest.chainId}`, amount: PRICE.toString() } });
    expect(await transfers(res.payment!.txHash)).toEqual([{ from: vault, to: bot.address, value: PRICE }]);
    expect(await transfers(res.payment!.settlementTx!)).toEqual([{ from: bot.address, to: stall.payTo, value: PRICE }]);
    await expectOnePurchase(before, "stall");
  });

  it("relay fetch buys from @x402/express in vault mode (the default): the vault records the authorization, the merchant is paid from the vault, the bot's key untouched", async () => {
    const before = await balances();
    const botNonce = await clients.publicClient.getTransactionCount({ address: bot.address });
    const { code, stdout, stderr } = await fetchCli(shop.url, "--max", "0.01", "--json").result;
    expect(stderr).toMatch(/paying from the vault \(mode vault\)/);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ status: 200, body: MERCHANT_BODY, payment: { status: "approved", mode: "vault" } });
    // The vault's transaction moves nothing: it records the authorization; the settlement moves it.
    expect(await transfers(out.payment.txHash)).toEqual([]);
    expect(await transfers(out.payment.settlementTx)).toEqual([{ from: vault, to: shop.payTo, value: PRICE }]);
    expect(decodePaymentResponseHeader(out.headers["payment-response"])).toMatchObject({ success: true, payer: vault });
    await expectOnePurchase(before, "shop");
    expect(await clients.publicClient.getTransactionCount({ address: bot.address })).toBe(botNonce);
    // `relay status` follows it as the x402 request it is.
    const status = runMain(["status", out.payment.requestId, "--json", "--state-dir", stateDir]);
    expect(await status.done).toBe(0);
    expect(JSON.parse(status.output.stdout)).toMatchObject({ requestId: out.payment.requestId, status: "approved", txHash: out.payment.txHash });
  });

  it("relay-client's payingFetch buys from @x402/hono in vault mode, paid from the vault", async () => {
    const before = await balances();
    const events: string[] = [];
    const paid = botFetch({ max: "0.01", onEvent: (event) => events.push(event.type) });
    const res = await paid(stall.url);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(MERCHANT_BODY);
    expect(res.payment).toMatchObject({ status: "approved", mode: "vault" });
    expect(events).toEqual(["payment-required", "submitted", "executed"]);
    expect(await transfers(res.payment!.settlementTx!)).toEqual([{ from: vault, to: stall.payTo, value: PRICE }]);
    await expectOnePurchase(before, "stall");
  });

  it("a relayer without POST /v1/x402 (an older relay, behind a loopback proxy that answers it 404): payingFetch says so and pays in funding mode", async () => {
    const relayerUrl = new URL(manifest.relayerUrl!);
    const proxy: Server = createServer((req, res) => {
      if (req.url?.startsWith("/v1/x402")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: `no route ${req.method} /v1/x402`, code: "NOT_FOUND", details: {} }));
        return;
      }
      const forward = request({ host: relayerUrl.hostname, port: relayerUrl.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const before = await balances();
      const events: string[] = [];
      const paid = botFetch({
        relay: new RelayClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }),
        onEvent: (event) => events.push(event.type === "vault-cannot-pay" ? `${event.type}: ${event.reason}` : event.type),
      });
      const res = await paid(shop.url);
      expect(res.status).toBe(200);
      expect(res.payment).toMatchObject({ status: "approved", mode: "funding" });
      expect(events).toEqual(["payment-required", "vault-cannot-pay: the relayer has no POST /v1/x402", "submitted", "executed"]);
      expect(await transfers(res.payment!.settlementTx!)).toEqual([{ from: bot.address, to: shop.payTo, value: PRICE }]);
      await expectOnePurchase(before, "shop");
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it("follows a redirect to the paywall: the paid request goes to the URL that asked for payment, not to the page that redirected", async () => {
    // The page that redirects is not the paywall: it must never see the payment.
    let shownPayment = 0;
    const redirect: Server = createServer((req, res) => {
      if (req.headers["payment-signature"] !== undefined) shownPayment++;
      res.writeHead(302, { location: stall.url }).end();
    });
    await new Promise<void>((resolve) => redirect.listen(0, "127.0.0.1", resolve));
    try {
      const before = await balances();
      const res = await botFetch({ max: PRICE })(`http://127.0.0.1:${(redirect.address() as AddressInfo).port}/old`);
      expect(res.status).toBe(200);
      expect(res.url).toBe(stall.url);
      expect(shownPayment).toBe(0);
      expect(await transfers(res.payment!.settlementTx!)).toEqual([{ from: vault, to: stall.payTo, value: PRICE }]);
      await expectOnePurchase(before, "stall");
    } finally {
      await new Promise<void>((resolve) => redirect.close(() => resolve()));
    }
  });

  it("refuses a price above --max with exit 3 before anything is signed: nothing moves", async () => {
    const before = await balances();
    const { code, stdout, stderr } = await fetchCli(shop.url, "--max", "0.009").result;
    expect(code).toBe(3);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^relay: the price 0\.01 USDC is above --max 0\.009; nothing was paid$/m);
    expect(await balances()).toEqual(before);

    // The client: the bot's key is never asked to sign.
    let signed = 0;
    const account = privateKeyToAccount(bot.privateKey);
    const counting: TypedDataSigner = { address: account.address, signTypedData: (d) => (signed++, account.signTypedData(d)) };
    const paid = botFetch({ bot: counting, max: PRICE - 1n });
    const error = await paid(stall.url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(X402PriceAboveMaxError);
    expect(error).toMatchObject({ price: PRICE, max: PRICE - 1n, code: "X402_PRICE_ABOVE_MAX" });
    expect(signed).toBe(0);
    expect(await balances()).toEqual(before);
  });

  it("refuses, with exit 3, a purchase from a blacklisted merchant in either mode: nothing moves", async () => {
    await owner("addGlobalBlacklist", [stall.payTo]);
    try {
      const before = await balances();
      for (const mode of ["vault", "funding"]) {
        const { code, stderr } = await fetchCli(stall.url, "--mode", mode).result;
        expect({ mode, code }).toEqual({ mode, code: 3 });
        expect(stderr).toMatch(/^relay: relayer refused: DESTINATION_NOT_ALLOWED: .*blacklisted/m);
      }
      expect(await balances()).toEqual(before);
    } finally {
      await owner("removeGlobalBlacklist", [stall.payTo]);
    }
  });

  it("a payment held for review exits 4 with its request id and nothing moves; with --wait the purchase completes once the owner approves", async () => {
    const before = await balances();
    for (const mode of ["vault", "funding"]) {
      const held = await fetchCli(shop.url, "--bot", "reviewed", "--mode", mode).result;
      expect({ mode, code: held.code, stdout: held.stdout }).toEqual({ mode, code: 4, stdout: "" });
      expect(held.stderr).toMatch(/^relay: payment req_\w+ is held for the owner's review; nothing was paid/m);
    }
    expect(await balances()).toEqual(before);

    const waiting = fetchCli(shop.url, "--bot", "reviewed", "--wait", "--json");
    await waiting.run.waitFor(/held for the owner's review; waiting/);
    const requestId = /payment (req_\w+) held/.exec(waiting.run.output.stderr)![1]!;
    // Nothing is authorized while the owner has not decided.
    expect(await balances()).toEqual(before);
    const approved = await runMain(["review", "approve", requestId, "--state-dir", stateDir]).done;
    expect(approved).toBe(0);
    const { code, stdout } = await waiting.result;
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ status: 200, body: MERCHANT_BODY, payment: { requestId, status: "approved", mode: "vault" } });
    expect(await transfers(out.payment.settlementTx)).toEqual([{ from: vault, to: shop.payTo, value: PRICE }]);
    await expectOnePurchase(before, "shop", "reviewed");
  }, 120_000);

  it("payingFetch waiting for the owner: a rejection is X402PaymentRejectedError with nothing moved and no authorization signed; an approval completes the purchase from the vault", async () => {
    const account = privateKeyToAccount(reviewed.privateKey);
    const signed: string[] = [];
    const counting: TypedDataSigner = { address: account.address, signTypedData: (d) => (signed.push(String(d.primaryType)), account.signTypedData(d)) };
    const decide = (verb: "approve" | "reject") => async (event: X402Event) => {
      if (event.type !== "held") return;
      const args = verb === "approve" ? [event.requestId] : [event.requestId, "--reason", "not this one"];
      expect(await runMain(["review", verb, ...args, "--state-dir", stateDir]).done).toBe(0);
    };
    const wait = { reviewIntervalMs: 100, aiWindowMs: 0, timeoutMs: 60_000 };
    const before = await balances();

    const rejected = await botFetch({ bot: counting, mode: "funding", wait, onEvent: decide("reject") })(shop.url).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(X402PaymentRejectedError);
    expect(rejected).toMatchObject({ code: "X402_PAYMENT_REJECTED", mode: "funding", reason: expect.stringMatching(/not this one/) });
    expect(signed).toEqual(["PaymentIntent"]); // the funding intent only: no authorization from the bot's key
    expect(await balances()).toEqual(before);

    signed.length = 0;
    const res = await botFetch({ bot: counting, wait, onEvent: decide("approve") })(shop.url);
    expect(res.status).toBe(200);
    expect(res.payment).toMatchObject({ status: "approved", mode: "vault" });
    expect(signed).toEqual(["X402Intent"]);
    expect(await transfers(res.payment!.settlementTx!)).toEqual([{ from: vault, to: shop.payTo, value: PRICE }]);
    await expectOnePurchase(before, "shop", "reviewed");
  });

  /** A paywall of its own making: answers 402 with `required` (a header value, or x402 v2 built from `accepts`) to every request, paid or not; counts the paid ones. */
  async function hostilePaywall(required: string | Record<string, unknown>[]): Promise<{ url: string; paidAttempts: () => number; close: () => Promise<void> }> {
    const header = typeof required === "string" ? required : encodePaymentRequiredHeader({ x402Version: 2, resource: { url: "http://127.0.0.1/x" }, accepts: required } as never);
    let paidAttempts = 0;
    const server: Server = createServer((req, res) => {
      if (req.headers["payment-signature"] !== undefined) paidAttempts++;
      res.writeHead(402, { "PAYMENT-REQUIRED": header, "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/x`, paidAttempts: () => paidAttempts, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  const requirementFor = (over: Record<string, unknown> = {}) => ({
    scheme: "exact",
    network: `eip155:${manifest.chainId}`,
    amount: PRICE.toString(),
    asset: usdc,
    payTo: devKeyPair(16).address,
    maxTimeoutSeconds: 60,
    extra: { name: "USDC", version: "2" },
    ...over,
  });

  it("refuses with exit 3 a 402 whose every requirement the vault cannot pay (another chain, Permit2, a token it lacks), before anything is signed", async () => {
    const paywall = await hostilePaywall([
      requirementFor({ network: "eip155:1" }),
      requirementFor({ extra: { name: "USDC", version: "2", assetTransferMethod: "permit2" } }),
      requirementFor({ amount: (10n ** 30n).toString() }),
    ]);
    try {
      const before = await balances();
      const { code, stderr } = await fetchCli(paywall.url).result;
      expect(code).toBe(3);
      expect(stderr).toMatch(/^relay: no payment the paywall accepts can be made from this vault: exact on eip155:1: the vault is on eip155:\d+; .*permit2 \(only EIP-3009 is paid\); .*the price is 10{30}\n$/);
      expect(paywall.paidAttempts()).toBe(0);
      expect(await balances()).toEqual(before);
    } finally {
      await paywall.close();
    }
  });

  it("a 402 that is not x402 v2 is one line and exit 1; nothing is signed", async () => {
    const paywall = await hostilePaywall("bm90IGpzb24=");
    try {
      const before = await balances();
      const { code, stderr } = await fetchCli(paywall.url).result;
      expect({ code, stderr }).toEqual({ code: 1, stderr: "relay: the PAYMENT-REQUIRED header is not base64 of a JSON object\n" });
      expect(await balances()).toEqual(before);
    } finally {
      await paywall.close();
    }
  });

  it("a paywall that takes the vault's authorization and still answers 402: exit 1 naming the request and its transaction; the merchant has not settled it, the vault still holds the price", async () => {
    const paywall = await hostilePaywall([requirementFor()]);
    try {
      const before = await balances();
      const merchantBefore = await balance(devKeyPair(16).address);
      const { code, stdout, stderr } = await fetchCli(paywall.url).result;
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^relay: the paywall answered 402 to the paid request; payment req_\w+, transaction 0x[0-9a-f]{64}\n$/m);
      expect(paywall.paidAttempts()).toBe(1);
      // Recorded, not settled: nothing moved.
      expect(await balances()).toEqual(before);
      expect(await balance(devKeyPair(16).address)).toBe(merchantBefore);
    } finally {
      await paywall.close();
    }
  });

  it("a URL that answers without a 402 is just printed, even with no chain to reach, and nothing is paid", async () => {
    const before = await balances();
    const text = await fetchCli(shop.freeUrl).result;
    expect(text).toMatchObject({ code: 0, stdout: "free text\n" });
    const json = await fetchCli(stall.freeUrl, "--json").result;
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 200, body: "free text\n", payment: null });
    // No chain is needed for it; a paywall with no chain to pay on is one line and exit 1.
    const noChain = "http://127.0.0.1:9";
    expect(await fetchCli(shop.freeUrl, "--rpc-url", noChain).result).toMatchObject({ code: 0, stdout: "free text\n" });
    const unpaid = await fetchCli(shop.url, "--rpc-url", noChain).result;
    expect(unpaid).toMatchObject({ code: 1, stdout: "" });
    expect(unpaid.stderr).toMatch(/^relay: cannot reach a JSON-RPC node at http:\/\/127\.0\.0\.1:9 /m);
    expect(await balances()).toEqual(before);
  });

  it("answers bad input with one line and exit 2, before anything is paid", async () => {
    const before = await balances();
    const cases: [string[], RegExp][] = [
      [["ftp://example.com/x"], /^relay: the URL must be http:\/\/ or https:\/\/, got "ftp:\/\/example.com\/x"\n$/],
      [["not a url"], /^relay: the URL must be http:\/\/ or https:\/\/, got "not a url"\n$/],
      [[shop.url, "--max", "-1"], /^relay: --max is the most to pay in the asset's units, e\.g\. 0\.05; got "-1"\n$/],
      [[shop.url, "--max", "1e3"], /^relay: --max is the most to pay/],
      [[shop.url, "--mode", "wallet"], /^relay: option '--mode <mode>' argument 'wallet' is invalid/],
      [[shop.url, "--max", "0.0000001"], /^relay: the maximum "0\.0000001" has more than 6 decimal places \(the asset 0x\w+ has 6 decimals\)\n$/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await fetchCli(...args).result;
      expect({ args, code, stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(stderr.split("\n").filter((l) => !l.startsWith("relay: http")).join("\n")).toMatch(message);
    }
    expect(await balances()).toEqual(before);
  });
});
