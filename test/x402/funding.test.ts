// x402 funding (the production SDK's flow) against the real `relay serve`: the SDK's own
// `x402.fund()` (x402Funding: true) is approved and funds the bot; a funding payment whose
// requirement names a merchant is refused when the vault's rules would refuse paying that merchant;
// then the bot, with its own key, buys relay's demo resource through an unmodified @x402/fetch.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { clientsFor } from "../../src/chain/clients.ts";
import { projectRoot } from "../../src/paths.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { DEMO_PRICE_ATOMIC, X402_MERCHANT_INDEX } from "../../src/x402/devnet.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

// The production SDK's build (MIT), run as a bot would run it, from where it sits beside the
// checkout (../shared/axon-sdk, as the design's vectors do) or where RELAY_AXON_SDK names its
// dist/index.js: never copied into relay, and not on the npm registry. Without it this file is
// reported skipped, by name; the funding rules themselves are tested without the SDK in
// test/api/off-chain.test.ts and test/cli/off-chain-e2e.test.ts.
const SDK = process.env.RELAY_AXON_SDK ?? path.join(projectRoot, "..", "shared", "axon-sdk", "dist", "index.js");
type AxonClient = {
  x402: { fund(amount: bigint): Promise<{ requestId: string; status: string; txHash?: string }> };
  pay(input: Record<string, unknown>): Promise<{ requestId: string; status: string; txHash?: string; reason?: string; errorCode?: string }>;
  poll(requestId: string): Promise<{ status: string; txHash?: string }>;
};

const VAULT_ABI = readArtifact("ServiceVault").abi;

describe.skipIf(!existsSync(SDK))("x402 funding on the devnet (relay serve, the production SDK at ../shared/axon-sdk or RELAY_AXON_SDK)", () => {
  const stateDir = tempDir("relay-x402-funding-");
  let relay: SpawnedRelay;
  let manifest: Manifest;
  let clients: ReturnType<typeof clientsFor>;
  let usdc: Address;
  let bot: { address: Address; privateKey: Hex };
  let sdk: AxonClient;
  const merchant = devKeyPair(X402_MERCHANT_INDEX).address;

  beforeAll(async () => {
    // The SDK signs on the production vault's domain name.
    relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--domain-name", "AxonVault"]);
    await relay.waitFor(/relay: ready/);
    manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
    clients = clientsFor(manifest.rpcUrl, manifest.chainId);
    usdc = manifest.tokens.USDC!.address as Address;
    bot = manifest.accounts.bots.default as { address: Address; privateKey: Hex };
    const { AxonClient } = (await import(SDK)) as { AxonClient: new (config: Record<string, unknown>) => AxonClient };
    sdk = new AxonClient({ vaultAddress: manifest.contracts.vault, chainId: manifest.chainId, relayerUrl: manifest.relayerUrl, botPrivateKey: bot.privateKey });
  }, 180_000);
  afterAll(() => {
    if (relay.child.exitCode === null) relay.child.kill("SIGKILL");
  });

  const balance = (who: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  async function owner(functionName: string, args: unknown[]) {
    const wallet = clients.walletFor(privateKeyToAccount(manifest.accounts.owner.privateKey as Hex));
    const hash = await wallet.writeContract({ address: manifest.contracts.vault as Address, abi: VAULT_ABI as never, functionName: functionName as never, args: args as never });
    expect((await clients.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  }
  async function settled(requestId: string): Promise<{ status: string; txHash?: string }> {
    for (let i = 0; i < 200; i++) {
      const status = await sdk.poll(requestId);
      if (status.status !== "pending" && status.status !== "submitted" && status.status !== "approved") return status;
      if (status.txHash && status.status === "approved") return status;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`request ${requestId} did not settle`);
  }
  // Each request a different amount: the SDK derives the intent from its fields, and a second intent
  // equal to one already executed would be refused as a replay.
  let nextAmount = 1_000_000n;
  const amount = () => (nextAmount += 1n);
  async function refusal(x402Funding: unknown): Promise<string> {
    const error = await sdk.pay({ to: bot.address, token: usdc, amount: amount(), x402Funding }).then(
      (result) => new Error(`accepted: ${JSON.stringify(result)}`),
      (e: Error) => e,
    );
    return error.message;
  }
  const requirement = (payTo: Address) => ({ scheme: "exact", network: "eip155:84532", asset: usdc, amount: "1000000", payTo, extra: { name: "USDC", version: "2" } });

  it("approves the SDK's own funding call (x402Funding: true) and funds the bot's key from the vault", async () => {
    const [vaultBefore, botBefore] = [await balance(manifest.contracts.vault as Address), await balance(bot.address)];
    const result = await sdk.x402.fund(2_000_000n);
    expect(result.status).not.toBe("rejected");
    const done = await settled(result.requestId);
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash: done.txHash as Hex });
    expect(receipt.status).toBe("success");
    expect(await balance(bot.address)).toBe(botBefore + 2_000_000n);
    expect(await balance(manifest.contracts.vault as Address)).toBe(vaultBefore - 2_000_000n);
  });

  it("then the bot buys relay's demo resource with its own key through an unmodified @x402/fetch", async () => {
    const [botBefore, merchantBefore] = [await balance(bot.address), await balance(merchant)];
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(bot.privateKey)));
    const res = await wrapFetchWithPayment(fetch, client)(manifest.x402!.demoUrl);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ paid: true });
    const payment = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(payment).toMatchObject({ success: true, payer: bot.address });
    expect(await balance(merchant)).toBe(merchantBefore + BigInt(DEMO_PRICE_ATOMIC));
    expect(await balance(bot.address)).toBe(botBefore - BigInt(DEMO_PRICE_ATOMIC));
  });

  it("accepts a funding payment whose requirement names an allowed merchant", async () => {
    const botBefore = await balance(bot.address);
    const paid = amount();
    const result = await sdk.pay({ to: bot.address, token: usdc, amount: paid, x402Funding: requirement(merchant) });
    await settled(result.requestId);
    expect(await balance(bot.address)).toBe(botBefore + paid);
  });

  it("refuses a funding payment whose merchant is blacklisted, or off the vault's whitelist, and nothing moves", async () => {
    const blacklisted = devKeyPair(12).address;
    await owner("addGlobalBlacklist", [blacklisted]);
    const botBefore = await balance(bot.address);
    expect(await refusal(requirement(blacklisted))).toMatch(/\[403\].*DESTINATION_NOT_ALLOWED.*x402Funding\.payTo .* is blacklisted/);

    // A whitelist the bot is on but the merchant is not.
    await owner("addGlobalDestination", [bot.address]);
    expect(await refusal(requirement(merchant))).toMatch(/\[403\].*DESTINATION_NOT_ALLOWED.*x402Funding\.payTo .* is not on the vault's or the bot's destination whitelist/);
    // The same payment without a merchant is the bot's own: allowed.
    const paid = amount();
    const plain = await sdk.pay({ to: bot.address, token: usdc, amount: paid, x402Funding: true });
    await settled(plain.requestId);
    expect(await balance(bot.address)).toBe(botBefore + paid);
    await owner("removeGlobalDestination", [bot.address]);
  });

  it("answers a payTo that is not an address with 400 INVALID_X402_FUNDING", async () => {
    expect(await refusal({ ...requirement(merchant), payTo: "merchant.example" })).toMatch(/\[400\].*INVALID_X402_FUNDING.*x402Funding\.payTo must be an address/);
    expect(await refusal(false)).toMatch(/\[400\].*INVALID_X402_FUNDING.*must be true or a JSON object/);
  });
});
