// The CLI against a devnet (no relayer): sign, owner configuration, fund, keys, profiles, and the
// failures a user meets (bad amount, unknown token, relayer down, nothing to show).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, formatUnits, getAddress, type Address } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { intentDigest } from "../../packages/client/src/sign.ts";
import type { PaymentRequestBody } from "../../packages/client/src/types.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { recoverSigner } from "../../src/eip712/recover.ts";
import { runMain } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { freePort } from "../support/free-port.ts";

const stateDir = tempDir("relay-cli-");
let devnet: Devnet;
let clients: Clients;
const RECIPIENT = "0x00000000000000000000000000000000000000aa" as Address;

/** Run `relay …` with the test's state directory; resolves with the exit code and the output. */
async function relay(args: string[], env: Record<string, string> = {}) {
  const run = runMain([...args, "--state-dir", stateDir], env);
  const code = await run.done;
  return { code, stdout: run.output.stdout, stderr: run.output.stderr };
}

async function relayNoState(args: string[]) {
  const run = runMain(args);
  const code = await run.done;
  return { code, stdout: run.output.stdout, stderr: run.output.stderr };
}

const vaultRead = (functionName: string, args: readonly unknown[] = []) =>
  clients.publicClient.readContract({ address: devnet.manifest.contracts.vault as Address, abi: readArtifact("ServiceVault").abi, functionName, args });


beforeAll(async () => {
  devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  clients = clientsFor(devnet.manifest.rpcUrl, 84532);
});
afterAll(async () => {
  await devnet?.close();
});

describe("relay sign", () => {
  it("prints a payment body signed by the manifest's default bot, with human amounts converted", async () => {
    const { code, stdout, stderr } = await relay(["sign", "payment", "--to", RECIPIENT, "--amount", "5.25", "--token", "usdc", "--memo", "rent", "--ref", "invoice 7"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const body = JSON.parse(stdout) as PaymentRequestBody;
    const m = devnet.manifest;
    expect(body).toMatchObject({
      chainId: 84532,
      vaultAddress: m.contracts.vault,
      bot: m.accounts.bots.default.address,
      to: "0x00000000000000000000000000000000000000AA",
      token: m.tokens.USDC!.address,
      amount: "5250000",
      memo: "rent",
    });
    expect(body.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const digest = intentDigest(m.domain as never, "PaymentIntent", {
      bot: body.bot,
      to: body.to,
      token: body.token,
      amount: BigInt(body.amount),
      deadline: BigInt(body.deadline),
      ref: body.ref,
    });
    expect(recoverSigner(digest, body.signature)).toBe(m.accounts.bots.default.address);
    // The vault computes the same digest: the body would pass its signature check.
    const onChain = await vaultRead("hashPaymentIntent", [{ ...body, amount: BigInt(body.amount), deadline: BigInt(body.deadline) }]);
    expect(onChain).toBe(digest);
  });

  it("signs as another manifest bot with --bot, and takes base units with --base-units", async () => {
    const { code, stdout } = await relay(["sign", "payment", "--bot", "reviewed", "--to", "owner", "--amount", "7", "--base-units", "--token", "WBTC", "--json"]);
    expect(code).toBe(0);
    const body = JSON.parse(stdout) as PaymentRequestBody;
    expect(body.bot).toBe(devnet.manifest.accounts.bots.reviewed.address);
    expect(body.to).toBe(devnet.manifest.accounts.owner.address);
    expect(body.amount).toBe("7");
  });

  it("signs execute and swap bodies", async () => {
    const execute = await relay(["sign", "execute", "--protocol", "marketplace", "--calldata", "0x12345678", "--token", "USDC", "--amount", "10", "--protocol-name", "market"]);
    expect(execute.code).toBe(0);
    expect(JSON.parse(execute.stdout)).toMatchObject({ protocol: devnet.manifest.contracts.marketplace, amounts: ["10000000"], value: "0", protocolName: "market" });
    const swap = await relay(["sign", "swap", "--from-token", "USDC", "--max-from-amount", "3000", "--to-token", "WETH", "--min-to-amount", "0.9"]);
    expect(swap.code).toBe(0);
    expect(JSON.parse(swap.stdout)).toMatchObject({ maxFromAmount: "3000000000", minToAmount: "900000000000000000" });
  });

  it("refuses too many decimal places and unknown tokens with one line and exit 2", async () => {
    const bad = await relay(["sign", "payment", "--to", RECIPIENT, "--amount", "0.1234567", "--token", "USDC"]);
    expect(bad).toMatchObject({ code: 2, stdout: "", stderr: 'relay: amount "0.1234567" has more than 6 decimal places (USDC has 6 decimals)\n' });
    const unknown = await relay(["sign", "payment", "--to", RECIPIENT, "--amount", "1", "--token", "DOGE"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('relay: unknown token "DOGE" on chain 84532 (known: USDC, USDT, DAI, WETH, WBTC)\n');
  });

  it("says so when a required flag is missing (exit 2)", async () => {
    const { code, stderr } = await relay(["sign", "payment", "--to", RECIPIENT, "--token", "USDC"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/required option '--amount <amount>' not specified/);
  });
});

describe("relay pay without a relayer", () => {
  it("exits 5 with one line when the relayer is unreachable", async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await relay(["pay", "--to", RECIPIENT, "--amount", "1", "--token", "USDC", "--relayer-url", `http://127.0.0.1:${port}`]);
    expect(code).toBe(5);
    expect(stdout).toBe("");
    const lines = stderr.trim().split("\n");
    expect(lines.at(-1)).toBe(`relay: relayer unreachable at http://127.0.0.1:${port} (connection failed); is \`relay serve\` running? (--relayer-url, RELAY_URL)`);
    expect(lines.slice(0, -1).every((line) => /retrying in/.test(line))).toBe(true);
  });

  it("relay status without an id and no earlier request is a usage error", async () => {
    const { code, stderr } = await relay(["status"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^relay: no request was sent with this state directory .* yet; give a request id\n$/);
  });
});

describe("relay owner and relay fund", () => {
  const newBot = "0x00000000000000000000000000000000000000b0" as Address;

  it("adds a bot with limits, updates one field, shows and removes it", async () => {
    const added = await relay(["owner", "bot", "add", newBot, "--max-per-tx", "500", "--daily-limit", "2000", "--ai-threshold", "250"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^done {4}added bot 0x00000000000000000000000000000000000000B0\ntxHash {2}0x[0-9a-f]{64}\n$/);
    expect(await vaultRead("isBotActive", [newBot])).toBe(true);

    const updated = await relay(["owner", "bot", "update", newBot, "--require-review"]);
    expect(updated.code).toBe(0);
    const config = (await vaultRead("getBotPolicy", [newBot])) as { maxPerTxAmount: bigint; requireHumanReview: boolean; spendingLimits: unknown[] };
    expect(config).toMatchObject({ maxPerTxAmount: 500_000_000n, requireHumanReview: true });
    expect(config.spendingLimits).toEqual([{ amount: 2_000_000_000n, maxCount: 0n, windowSeconds: 86_400n }]);

    const shown = await relay(["owner", "bot", "show", newBot, "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ active: true, config: { maxPerTxAmount: "500000000", aiTriggerThreshold: "250000000" } });

    expect((await relay(["owner", "bot", "remove", newBot])).code).toBe(0);
    expect(await vaultRead("isBotActive", [newBot])).toBe(false);
  });

  it("refuses with the contract's error when the key is not the owner's", async () => {
    const { code, stderr } = await relay(["owner", "pause", "--owner-key", devnet.manifest.accounts.bots.default.privateKey]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^relay: pause would revert: \w+/);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(await vaultRead("paused")).toBe(false);
  });

  it("pauses and unpauses, manages destinations, blacklist, protocols and rebalance tokens", async () => {
    expect((await relay(["owner", "pause"])).code).toBe(0);
    expect(await vaultRead("paused")).toBe(true);
    expect((await relay(["owner", "unpause"])).code).toBe(0);
    expect(await vaultRead("paused")).toBe(false);

    expect((await relay(["owner", "destination", "add", RECIPIENT, "--for-bot", "default"])).code).toBe(0);
    expect(await vaultRead("isBotDestination", [devnet.manifest.accounts.bots.default.address, RECIPIENT])).toBe(true);
    expect((await relay(["owner", "destination", "remove", RECIPIENT, "--for-bot", "default"])).code).toBe(0);
    expect((await relay(["owner", "destination", "add", RECIPIENT])).code).toBe(0);
    expect(await vaultRead("isGlobalDestination", [RECIPIENT])).toBe(true);
    expect((await relay(["owner", "destination", "remove", RECIPIENT])).code).toBe(0);

    expect((await relay(["owner", "blacklist", "add", RECIPIENT])).code).toBe(0);
    expect(await vaultRead("isBlacklisted", [RECIPIENT])).toBe(true);
    expect((await relay(["owner", "blacklist", "remove", RECIPIENT])).code).toBe(0);
    expect(await vaultRead("isBlacklisted", [RECIPIENT])).toBe(false);

    expect((await relay(["owner", "protocol", "approve", "lending"])).code).toBe(0);
    expect(await vaultRead("isProtocolApprovedByVault", [devnet.manifest.contracts.lending])).toBe(true);
    expect((await relay(["owner", "protocol", "revoke", "lending"])).code).toBe(0);

    expect((await relay(["owner", "rebalance-tokens", "add", "USDC", "WETH"])).code).toBe(0);
    expect(await vaultRead("rebalanceTokenCount")).toBe(2n);
    expect((await relay(["owner", "rebalance-tokens", "remove", "USDC", "WETH"])).code).toBe(0);
    expect(await vaultRead("rebalanceTokenCount")).toBe(0n);

    // The devnet's vault registers the devnet's panel keys; the owner may clear and register again.
    const devScanners = (await vaultRead("scanners")) as Address[];
    expect(devScanners).toHaveLength(3);
    expect((await relay(["owner", "scanners", "--clear"])).code).toBe(0);
    expect(await vaultRead("scanners")).toEqual(Array(3).fill("0x0000000000000000000000000000000000000000"));
    const relayerAsScanner = await relay(["owner", "scanners", devScanners[0]!, devScanners[1]!, devnet.manifest.accounts.relayer.address]);
    expect(relayerAsScanner.code).toBe(1);
    expect(relayerAsScanner.stderr).toMatch(/^relay: setScanners would revert: InvalidScanner/);
    const two = await relay(["owner", "scanners", devScanners[0]!, devScanners[1]!]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/^relay: give the AI panel's three scanner addresses/);
    expect((await relay(["owner", "scanners", ...devScanners])).code).toBe(0);
    expect(await vaultRead("scanners")).toEqual(devScanners);

    expect((await relay(["owner", "limits", "--limit", "100000/1h"])).code).toBe(0);
    expect(await vaultRead("getVaultSpendingLimits")).toEqual([{ amount: 100_000_000_000n, maxCount: 0n, windowSeconds: 3600n }]);
    expect((await relay(["owner", "limits", "--clear-limits"])).code).toBe(0);
    expect(await vaultRead("getVaultSpendingLimits")).toEqual([]);
  });

  it("mints devnet tokens to the vault and deposits from the owner's wallet", async () => {
    const vault = devnet.manifest.contracts.vault as Address;
    const usdc = devnet.manifest.tokens.USDC!.address as Address;
    const balance = () => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [vault] });
    const before = await balance();
    const funded = await relay(["fund", "--token", "USDC", "--amount", "1000.5", "--json"]);
    expect(funded.code).toBe(0);
    expect(JSON.parse(funded.stdout)).toMatchObject({ action: "mint", to: vault, amount: "1000500000", balance: (before + 1_000_500_000n).toString() });
    const deposited = await relay(["owner", "deposit", "--token", "USDC", "--amount", "2"]);
    expect(deposited.code).toBe(0);
    expect(deposited.stdout).toMatch(/^done {4}deposited 2 USDC\n/);
    expect(await balance()).toBe(before + 1_002_500_000n);
  });

  it("a deposit above the owner's balance is refused with the token's error decoded in USDC, and nothing moves", async () => {
    const vault = devnet.manifest.contracts.vault as Address;
    const owner = devnet.manifest.accounts.owner.address as Address;
    const usdc = devnet.manifest.tokens.USDC!.address as Address;
    const balanceOf = (who: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
    const [ownerBefore, vaultBefore] = [await balanceOf(owner), await balanceOf(vault)];
    const needed = ownerBefore + 1_500_000n; // 1.5 USDC more than the owner holds

    const { code, stdout, stderr } = await relay(["owner", "deposit", "--token", "USDC", "--amount", formatUnits(needed, 6)]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(`relay: deposit would revert: ERC20InsufficientBalance(${getAddress(owner)}, ${formatUnits(ownerBefore, 6)} USDC, ${formatUnits(needed, 6)} USDC)\n`);
    expect(await balanceOf(owner)).toBe(ownerBefore);
    expect(await balanceOf(vault)).toBe(vaultBefore);
  });
});

describe("relay keys new and profiles", () => {
  it("prints a fresh key pair whose address matches the key", async () => {
    const { code, stdout, stderr } = await relayNoState(["keys", "new", "--json"]);
    expect(code).toBe(0);
    const { address, privateKey } = JSON.parse(stdout) as { address: string; privateKey: `0x${string}` };
    const { privateKeyToAddress } = await import("viem/accounts");
    expect(privateKeyToAddress(privateKey)).toBe(address);
    expect(stderr).toMatch(/keep the private key secret/);
  });

  it("saves a profile whose settings apply with --profile, below flags, and removes it", async () => {
    const port = await freePort();
    const saved = await relay(["profile", "save", "down", "--relayer-url", `http://127.0.0.1:${port}`]);
    expect(saved).toMatchObject({ code: 0, stderr: "" });
    const listed = await relay(["profile", "list", "--json"]);
    expect(JSON.parse(listed.stdout)).toEqual({ down: { relayerUrl: `http://127.0.0.1:${port}` } });
    const viaProfile = await relay(["vault", "info", "--profile", "down"]);
    expect(viaProfile.code).toBe(5);
    expect(viaProfile.stderr).toContain(`relayer unreachable at http://127.0.0.1:${port}`);
    const missing = await relay(["vault", "info", "--profile", "nope"]);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toMatch(/no profile "nope"/);

    expect(await relay(["profile", "remove", "down"])).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse((await relay(["profile", "list", "--json"])).stdout)).toEqual({});
    expect((await relay(["vault", "info", "--profile", "down"])).code).toBe(2);
  });
});
