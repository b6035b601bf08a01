// x402 on the devnet, as a user meets it: the real `relay serve` process, its facilitator and demo
// resource over HTTP, the unmodified x402 packages as the payer, the chain read for every outcome.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, hashDomain, keccak256, toHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient, decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { manifestSchema } from "../../src/devnet/manifest-schema.ts";
import { DEMO_PRICE_ATOMIC, X402_MERCHANT_INDEX } from "../../src/x402/devnet.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { AUTHORIZATION_TYPES } from "./support/vault-pays.ts";

const USDC_ABI = readArtifact("mocks/MockUSDC").abi;
const WALLET_ABI = readArtifact("mocks/MockERC1271Wallet");
const AUTH_TYPES = AUTHORIZATION_TYPES;

describe("x402 on the devnet (relay serve)", () => {
  const stateDir = tempDir("relay-x402-");
  let relay: SpawnedRelay;
  let manifest: Manifest;
  let clients: ReturnType<typeof clientsFor>;
  let usdc: Address;
  const merchant = devKeyPair(X402_MERCHANT_INDEX).address;
  // A payer of its own (test mnemonic #10), so these tests touch no role's balance.
  const payer = devKeyPair(10);
  const sender = devKeyPair(8);

  beforeAll(async () => {
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
    clients = clientsFor(manifest.rpcUrl, manifest.chainId);
    usdc = manifest.tokens.USDC!.address as Address;
    await write(sender.privateKey, usdc, "mint", [payer.address, 1_000_000_000n]);
  }, 180_000);
  afterAll(() => {
    if (relay.child.exitCode === null) relay.child.kill("SIGKILL");
  });

  async function write(key: Hex, address: Address, functionName: string, args: unknown[], abi: readonly unknown[] = USDC_ABI) {
    const wallet = clients.walletFor(privateKeyToAccount(key));
    const hash = await wallet.writeContract({ address, abi: abi as never, functionName: functionName as never, args: args as never });
    return clients.publicClient.waitForTransactionReceipt({ hash });
  }
  const balance = (who: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  const now = async () => (await clients.publicClient.getBlock()).timestamp;

  async function authorization(key: Hex, from: Address, to: Address, value: bigint, window: { after?: bigint; before?: bigint } = {}) {
    const t = await now();
    const message = { from, to, value, validAfter: window.after ?? 0n, validBefore: window.before ?? t + 600n, nonce: keccak256(toHex(`${Math.random()}`)) };
    const signature = await privateKeyToAccount(key).signTypedData({
      domain: { name: "USDC", version: "2", chainId: manifest.chainId, verifyingContract: usdc },
      types: AUTH_TYPES,
      primaryType: "TransferWithAuthorization",
      message,
    });
    return { message, signature };
  }
  const settleArgs = ({ message: m, signature }: { message: Record<string, unknown>; signature: Hex }) => [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature];
  const reverts = async (fn: () => Promise<unknown>, reason: RegExp) => {
    await expect(fn()).rejects.toThrow(reason);
  };

  it("records the facilitator and demo URLs in the manifest and the banner, on loopback", () => {
    expect(() => manifestSchema.parse(manifest)).not.toThrow();
    expect(manifest.x402?.facilitatorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/facilitator$/);
    expect(manifest.x402?.demoUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/demo\/report$/);
    expect(relay.output.stderr).toContain(manifest.x402!.facilitatorUrl);
    expect(relay.output.stderr).toContain(manifest.x402!.demoUrl);
  });

  it("gives USDC the EIP-712 domain Base Sepolia's USDC has, as @x402/evm signs for it", async () => {
    const read = (functionName: string) => clients.publicClient.readContract({ address: usdc, abi: USDC_ABI, functionName });
    expect(await read("name")).toBe("USDC");
    expect(await read("version")).toBe("2");
    const res = await fetch(manifest.x402!.demoUrl);
    const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    const accepted = required.accepts[0]!;
    expect(accepted.network).toBe("eip155:84532");
    expect(accepted.asset.toLowerCase()).toBe(usdc.toLowerCase());
    const extra = accepted.extra as { name: string; version: string };
    expect(await read("DOMAIN_SEPARATOR")).toBe(hashDomain({
      domain: { name: extra.name, version: extra.version, chainId: 84532n, verifyingContract: accepted.asset as Address },
      types: { EIP712Domain: [{ name: "name", type: "string" }, { name: "version", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }] },
    }));
  });

  describe("EIP-3009", () => {
    it("moves funds once on a valid authorization and refuses its replay", async () => {
      const auth = await authorization(payer.privateKey, payer.address, merchant, 1234n);
      const before = await balance(merchant);
      await write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(auth));
      expect(await balance(merchant)).toBe(before + 1234n);
      expect(await clients.publicClient.readContract({ address: usdc, abi: USDC_ABI, functionName: "authorizationState", args: [payer.address, auth.message.nonce] })).toBe(true);
      await reverts(() => write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(auth)), /used or canceled/);
      expect(await balance(merchant)).toBe(before + 1234n);
    });

    it("refuses an expired authorization, one not yet valid, a forged one and a cancelled one", async () => {
      const t = await now();
      const expired = await authorization(payer.privateKey, payer.address, merchant, 1n, { before: t - 1n });
      await reverts(() => write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(expired)), /expired/);
      const early = await authorization(payer.privateKey, payer.address, merchant, 1n, { after: t + 3600n, before: t + 7200n });
      await reverts(() => write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(early)), /not yet valid/);
      const forged = await authorization(sender.privateKey, payer.address, merchant, 1n);
      await reverts(() => write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(forged)), /invalid signature/);

      const cancelled = await authorization(payer.privateKey, payer.address, merchant, 1n);
      const cancel = await privateKeyToAccount(payer.privateKey).signTypedData({
        domain: { name: "USDC", version: "2", chainId: manifest.chainId, verifyingContract: usdc },
        types: { CancelAuthorization: [{ name: "authorizer", type: "address" }, { name: "nonce", type: "bytes32" }] },
        primaryType: "CancelAuthorization",
        message: { authorizer: payer.address, nonce: cancelled.message.nonce },
      });
      await write(sender.privateKey, usdc, "cancelAuthorization", [payer.address, cancelled.message.nonce, cancel]);
      await reverts(() => write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(cancelled)), /used or canceled/);
    });

    it("only the payee may use receiveWithAuthorization", async () => {
      const auth = await authorization(payer.privateKey, payer.address, merchant, 5n);
      const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
        domain: { name: "USDC", version: "2", chainId: manifest.chainId, verifyingContract: usdc },
        types: { ReceiveWithAuthorization: AUTH_TYPES.TransferWithAuthorization },
        primaryType: "ReceiveWithAuthorization",
        message: auth.message,
      });
      const args = settleArgs({ message: auth.message, signature });
      await reverts(() => write(sender.privateKey, usdc, "receiveWithAuthorization", args), /caller must be the payee/);
      const before = await balance(merchant);
      await write(devKeyPair(X402_MERCHANT_INDEX).privateKey, usdc, "receiveWithAuthorization", args);
      expect(await balance(merchant)).toBe(before + 5n);
    });

    it("checks a contract signer by ERC-1271", async () => {
      const walletOwner = devKeyPair(11);
      const deployHash = await clients.walletFor(privateKeyToAccount(sender.privateKey)).deployContract({
        abi: WALLET_ABI.abi as never, bytecode: WALLET_ABI.bytecode as Hex, args: [walletOwner.address] as never,
      });
      const contract = (await clients.publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress as Address;
      await write(sender.privateKey, usdc, "mint", [contract, 100n]);
      const good = await authorization(walletOwner.privateKey, contract, merchant, 40n);
      const before = await balance(merchant);
      await write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(good));
      expect(await balance(merchant)).toBe(before + 40n);
      expect(await balance(contract)).toBe(60n);
      const bad = await authorization(payer.privateKey, contract, merchant, 40n);
      await reverts(() => write(sender.privateKey, usdc, "transferWithAuthorization", settleArgs(bad)), /invalid signature/);
    });
  });

  it("verifies and settles through the facilitator with @x402/core's own facilitator client", async () => {
    const facilitator = new HTTPFacilitatorClient({ url: manifest.x402!.facilitatorUrl });
    const supported = await facilitator.getSupported();
    expect(supported.kinds).toContainEqual(expect.objectContaining({ x402Version: 2, scheme: "exact", network: "eip155:84532" }));

    const res = await fetch(manifest.x402!.demoUrl);
    const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    const client = new x402Client().register("eip155:84532", new ExactEvmScheme(privateKeyToAccount(payer.privateKey)));
    const payload = await client.createPaymentPayload(required);
    const requirements = required.accepts[0]!;
    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true, payer: payer.address });
    const before = await balance(merchant);
    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, network: "eip155:84532" });
    const receipt = await clients.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(await balance(merchant)).toBe(before + BigInt(DEMO_PRICE_ATOMIC));
    // The same payload again: refused, nothing moves.
    const again = await facilitator.settle(payload, requirements).catch((error: { invalidReason?: string; errorReason?: string }) => error);
    expect((again as { success?: boolean }).success).not.toBe(true);
    expect(await balance(merchant)).toBe(before + BigInt(DEMO_PRICE_ATOMIC));
  });

  it("answers a malformed or unsupported facilitator request with the error envelope, and unknown routes with 404", async () => {
    const post = (body: unknown) => fetch(`${manifest.x402!.facilitatorUrl}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const malformed = await post({ x402Version: 2 });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: "INVALID_REQUEST", details: {} });
    const unsupported = await post({ x402Version: 2, paymentPayload: { x402Version: 2 }, paymentRequirements: { scheme: "exact", network: "eip155:1" } });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ code: "UNSUPPORTED_PAYMENT", error: expect.stringContaining("eip155:1") });
    const unknown = await fetch(manifest.x402!.facilitatorUrl.replace("/facilitator", "/nothing"));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("the demo answers 402 until paid, then 200 with PAYMENT-RESPONSE, bought by an unmodified @x402/fetch; a replayed PAYMENT-SIGNATURE settles once", async () => {
    const unpaid = await fetch(manifest.x402!.demoUrl);
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get("payment-required")).toBeTruthy();

    const signatures: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const header = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get("payment-signature");
      if (header) signatures.push(header);
      return fetch(input, init);
    };
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(payer.privateKey)));
    const paidFetch = wrapFetchWithPayment(recording, client);
    const [merchantBefore, payerBefore] = [await balance(merchant), await balance(payer.address)];
    const paid = await paidFetch(manifest.x402!.demoUrl);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toMatchObject({ paid: true });
    const response = decodePaymentResponseHeader(paid.headers.get("payment-response")!);
    expect(response).toMatchObject({ success: true, network: "eip155:84532", payer: payer.address });
    const receipt = await clients.publicClient.getTransactionReceipt({ hash: response.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(await balance(merchant)).toBe(merchantBefore + BigInt(DEMO_PRICE_ATOMIC));
    expect(await balance(payer.address)).toBe(payerBefore - BigInt(DEMO_PRICE_ATOMIC));

    // An attacker replays the PAYMENT-SIGNATURE the client sent: no second settlement, no body.
    expect(signatures).toHaveLength(1);
    const replay = await fetch(manifest.x402!.demoUrl, { headers: { "PAYMENT-SIGNATURE": signatures[0]! } });
    expect(replay.status).not.toBe(200);
    expect(await balance(merchant)).toBe(merchantBefore + BigInt(DEMO_PRICE_ATOMIC));
    expect(await balance(payer.address)).toBe(payerBefore - BigInt(DEMO_PRICE_ATOMIC));
  });
});
