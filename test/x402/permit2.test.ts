// Permit2 and x402's exact-scheme Permit2 proxy on the devnet: at the addresses @x402/evm calls, with
// Permit2's EIP-712 domain right there, settled by relay's facilitator for an unmodified x402 client
// whose requirement asks for Permit2; and every way to bend a signed permit refused, the chain read
// to show nothing moved.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, hashDomain, keccak256, toHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient, decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { PERMIT2_ADDRESS as X402_PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress } from "@x402/evm";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from "../../src/devnet/permit2.ts";
import { DEMO_PRICE_ATOMIC, X402_MERCHANT_INDEX } from "../../src/x402/devnet.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const USDC_ABI = readArtifact("mocks/MockUSDC").abi;
const PERMIT2_ABI = readArtifact("mocks/DevnetPermit2").abi;
// With Permit2's errors, which the proxy's calls pass on.
const PROXY_ABI = [...readArtifact("mocks/DevnetX402Permit2Proxy").abi, ...PERMIT2_ABI.filter((item) => (item as { type: string }).type === "error")];
const WITNESS_TYPES = {
  PermitWitnessTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: "Witness" },
  ],
  TokenPermissions: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
  ],
  Witness: [
    { name: "to", type: "address" },
    { name: "validAfter", type: "uint256" },
  ],
} as const;

describe("Permit2 and x402's Permit2 proxy on the devnet (relay serve)", () => {
  const stateDir = tempDir("relay-permit2-");
  let relay: SpawnedRelay;
  let manifest: Manifest;
  let clients: ReturnType<typeof clientsFor>;
  let usdc: Address;
  const merchant = devKeyPair(X402_MERCHANT_INDEX).address;
  const other = devKeyPair(12).address;
  // A payer of its own (test mnemonic #10), so these tests touch no role's balance; #8 sends the rest.
  const payer = devKeyPair(10);
  const sender = devKeyPair(8);

  beforeAll(async () => {
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
    clients = clientsFor(manifest.rpcUrl, manifest.chainId);
    usdc = manifest.tokens.USDC!.address as Address;
    await write(sender.privateKey, usdc, USDC_ABI, "mint", [payer.address, 1_000_000_000n]);
  }, 180_000);
  afterAll(() => {
    if (relay.child.exitCode === null) relay.child.kill("SIGKILL");
  });

  async function write(key: Hex, address: Address, abi: readonly unknown[], functionName: string, args: unknown[]) {
    const wallet = clients.walletFor(privateKeyToAccount(key));
    const hash = await wallet.writeContract({ address, abi: abi as never, functionName: functionName as never, args: args as never });
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    return receipt;
  }
  const balance = (who: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  const now = async () => (await clients.publicClient.getBlock()).timestamp;

  /** A permit as x402's exact scheme has the payer sign it: spender the proxy, the witness naming the recipient. */
  async function signedPermit(over: { amount?: bigint; to?: Address; validAfter?: bigint; deadline?: bigint; signer?: Hex } = {}) {
    const permit = { permitted: { token: usdc, amount: over.amount ?? 1_000n }, nonce: BigInt(keccak256(toHex(`${Math.random()}`))), deadline: over.deadline ?? (await now()) + 600n };
    const witness = { to: over.to ?? merchant, validAfter: over.validAfter ?? 0n };
    const signature = await privateKeyToAccount(over.signer ?? payer.privateKey).signTypedData({
      domain: { name: "Permit2", chainId: manifest.chainId, verifyingContract: PERMIT2_ADDRESS },
      types: WITNESS_TYPES,
      primaryType: "PermitWitnessTransferFrom",
      message: { ...permit, spender: X402_EXACT_PERMIT2_PROXY_ADDRESS, witness },
    });
    return { permit, witness, signature };
  }
  const settle = (p: Awaited<ReturnType<typeof signedPermit>>, change: { witness?: { to: Address; validAfter: bigint }; amount?: bigint } = {}) =>
    write(sender.privateKey, X402_EXACT_PERMIT2_PROXY_ADDRESS, PROXY_ABI, "settle", [
      { ...p.permit, permitted: { ...p.permit.permitted, amount: change.amount ?? p.permit.permitted.amount } },
      payer.address,
      change.witness ?? p.witness,
      p.signature,
    ]);
  /** Runs `attempt`, which must revert with `reason`, and shows the payer, merchant and other lost and gained nothing. */
  async function refusedAndNothingMoved(attempt: () => Promise<unknown>, reason: RegExp) {
    const before = await Promise.all([payer.address, merchant, other].map(balance));
    await expect(attempt()).rejects.toThrow(reason);
    expect(await Promise.all([payer.address, merchant, other].map(balance))).toEqual(before);
  }

  it("sits at the addresses @x402/evm calls, with Permit2's EIP-712 domain at its address and the proxy's witness type", async () => {
    expect(PERMIT2_ADDRESS).toBe(X402_PERMIT2_ADDRESS);
    expect(X402_EXACT_PERMIT2_PROXY_ADDRESS).toBe(x402ExactPermit2ProxyAddress);
    for (const address of [PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS]) {
      expect(((await clients.publicClient.getCode({ address })) ?? "0x").length).toBeGreaterThan(2);
    }
    expect(await clients.publicClient.readContract({ address: PERMIT2_ADDRESS, abi: PERMIT2_ABI, functionName: "DOMAIN_SEPARATOR" })).toBe(
      hashDomain({
        domain: { name: "Permit2", chainId: BigInt(manifest.chainId), verifyingContract: PERMIT2_ADDRESS },
        types: { EIP712Domain: [{ name: "name", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }] },
      }),
    );
    expect(await clients.publicClient.readContract({ address: X402_EXACT_PERMIT2_PROXY_ADDRESS, abi: PROXY_ABI, functionName: "PERMIT2" })).toBe(PERMIT2_ADDRESS);
    expect(await clients.publicClient.readContract({ address: X402_EXACT_PERMIT2_PROXY_ADDRESS, abi: PROXY_ABI, functionName: "WITNESS_TYPEHASH" })).toBe(
      keccak256(toHex("Witness(address to,uint256 validAfter)")),
    );
  });

  it("settles an unmodified x402 client's Permit2 payment through relay's facilitator, once", async () => {
    // The payer lets Permit2 move its USDC (the one on-chain step Permit2 asks of a payer, once per token).
    await write(payer.privateKey, usdc, USDC_ABI, "approve", [PERMIT2_ADDRESS, 2n ** 256n - 1n]);
    const required = decodePaymentRequiredHeader((await fetch(manifest.x402!.demoUrl)).headers.get("payment-required")!);
    const requirements = { ...required.accepts[0]!, extra: { ...required.accepts[0]!.extra, assetTransferMethod: "permit2" } };
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(payer.privateKey)));
    const payload = await client.createPaymentPayload({ ...required, accepts: [requirements] });
    expect(payload.payload).toHaveProperty("permit2Authorization");

    const facilitator = new HTTPFacilitatorClient({ url: manifest.x402!.facilitatorUrl });
    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true, payer: payer.address });
    const [merchantBefore, payerBefore] = [await balance(merchant), await balance(payer.address)];
    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, network: "eip155:84532", payer: payer.address });
    const receipt = await clients.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(receipt.to?.toLowerCase()).toBe(X402_EXACT_PERMIT2_PROXY_ADDRESS.toLowerCase());
    expect(await balance(merchant)).toBe(merchantBefore + BigInt(DEMO_PRICE_ATOMIC));
    expect(await balance(payer.address)).toBe(payerBefore - BigInt(DEMO_PRICE_ATOMIC));

    // The same payload again: its nonce is spent; refused, nothing moves.
    const again = await facilitator.settle(payload, requirements).catch((error: unknown) => error);
    expect((again as { success?: boolean }).success).not.toBe(true);
    expect(await balance(merchant)).toBe(merchantBefore + BigInt(DEMO_PRICE_ATOMIC));
    expect(await balance(payer.address)).toBe(payerBefore - BigInt(DEMO_PRICE_ATOMIC));
  });

  it("a signed permit pays only its recipient, only its amount, once, in its time, and only through the proxy", async () => {
    const permit = await signedPermit({ amount: 700n });
    // Another recipient or a larger amount than signed: the signature does not match.
    await refusedAndNothingMoved(() => settle(permit, { witness: { to: other, validAfter: 0n } }), /InvalidSigner/);
    await refusedAndNothingMoved(() => settle(permit, { amount: 701n }), /InvalidSigner/);
    // Straight to Permit2 by someone else: the permit names the proxy as its spender.
    await refusedAndNothingMoved(
      () => write(sender.privateKey, PERMIT2_ADDRESS, PERMIT2_ABI, "permitWitnessTransferFrom", [
        permit.permit,
        { to: other, requestedAmount: 700n },
        payer.address,
        keccak256(`0x${"00".repeat(32)}`),
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)",
        permit.signature,
      ]),
      /InvalidSigner/,
    );
    // As signed: the merchant gets exactly 700, once.
    const [merchantBefore, payerBefore] = [await balance(merchant), await balance(payer.address)];
    await settle(permit);
    expect(await balance(merchant)).toBe(merchantBefore + 700n);
    expect(await balance(payer.address)).toBe(payerBefore - 700n);
    await refusedAndNothingMoved(() => settle(permit), /InvalidNonce/);

    const t = await now();
    await refusedAndNothingMoved(async () => settle(await signedPermit({ deadline: t - 1n })), /SignatureExpired/);
    await refusedAndNothingMoved(async () => settle(await signedPermit({ validAfter: t + 3600n })), /PaymentTooEarly/);
    // Signed by someone else for the payer's funds.
    await refusedAndNothingMoved(async () => settle(await signedPermit({ signer: sender.privateKey })), /InvalidSigner/);
  });

  it("the payer can retire a nonce it signed before it is used", async () => {
    const permit = await signedPermit({ amount: 5n });
    const nonce = permit.permit.nonce;
    await write(payer.privateKey, PERMIT2_ADDRESS, PERMIT2_ABI, "invalidateUnorderedNonces", [nonce >> 8n, 1n << (nonce & 0xffn)]);
    await refusedAndNothingMoved(() => settle(permit), /InvalidNonce/);
  });
});
