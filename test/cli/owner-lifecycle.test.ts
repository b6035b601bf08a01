// `relay owner …` for a vault's life, against a devnet (no relayer): deploy at the predicted address,
// deposit with a ref, withdraw tokens, ETH and an NFT, the operator and its ceilings, two-step
// ownership, and `state`; every result read back from the chain, every refusal one `relay:` line
// with a non-zero exit and nothing moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, keccak256, stringToHex, zeroAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { runMain } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const stateDir = tempDir("relay-cli-owner-");
let devnet: Devnet;
let clients: Clients;
let vault: Address;
let usdc: Address;

async function relay(args: string[]) {
  const run = runMain([...args, "--state-dir", stateDir]);
  const code = await run.done;
  return { code, stdout: run.output.stdout, stderr: run.output.stderr };
}
async function relayJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const { code, stdout, stderr } = await relay([...args, "--json"]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  return JSON.parse(stdout) as T;
}
const read = (functionName: string, args: readonly unknown[] = [], address: Address = vault) =>
  clients.publicClient.readContract({ address, abi: readArtifact("ServiceVault").abi, functionName, args });
const usdcOf = (who: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });
const fund = (who: Address) => clients.publicClient.request({ method: "hardhat_setBalance" as never, params: [who, "0x56bc75e2d63100000"] as never });

beforeAll(async () => {
  devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  clients = clientsFor(devnet.manifest.rpcUrl, 84532);
  vault = devnet.manifest.contracts.vault as Address;
  usdc = devnet.manifest.tokens.USDC!.address as Address;
});
afterAll(async () => devnet?.close());

describe("relay owner deploy, predict, state", () => {
  it("deploy lands where predict said; state reads the new vault's policy", async () => {
    const key = generatePrivateKey();
    const me = privateKeyToAccount(key).address;
    await fund(me);
    const predicted = await relayJson<{ vault: Address; nonce: number; deployed: boolean }>(["owner", "predict", "--owner-key", key]);
    expect(predicted).toMatchObject({ nonce: 0, deployed: false });
    const deployed = await relayJson<{ vault: Address; owner: Address; txHash: Hex }>(["owner", "deploy", "--owner-key", key]);
    expect(deployed).toMatchObject({ vault: predicted.vault, owner: me });
    expect(await read("owner", [], deployed.vault)).toBe(me);
    expect(await relayJson(["owner", "predict", "--owner", me, "--nonce", "0"])).toMatchObject({ vault: predicted.vault, deployed: true });
    const state = await relayJson<{ owner: Address; bots: unknown[]; paused: boolean }>(["owner", "state", "--vault", deployed.vault]);
    expect(state).toMatchObject({ owner: me, bots: [], paused: false, pendingOwner: null, operator: null });
  });

  it("state of the devnet's vault lists its bots with their policies", async () => {
    const state = await relayJson<{ bots: { address: Address; policy: { requireHumanReview: boolean } }[] }>(["owner", "state"]);
    const reviewed = state.bots.find((b) => b.address === devnet.manifest.accounts.bots.reviewed.address);
    expect(reviewed?.policy.requireHumanReview).toBe(true);
    const { stdout } = await relay(["owner", "state"]);
    expect(stdout).toMatch(/^owner\s+0x/m);
  });
});

describe("relay owner deposit and withdraw", () => {
  it("deposit --ref leaves a Deposited event with that ref", async () => {
    const before = await usdcOf(vault);
    const out = await relayJson<{ txHash: Hex }>(["owner", "deposit", "--token", "USDC", "--amount", "3", "--ref", "top-up 1"]);
    expect(await usdcOf(vault)).toBe(before + 3_000_000n);
    const logs = await clients.publicClient.getContractEvents({ address: vault, abi: readArtifact("ServiceVault").abi, eventName: "Deposited", fromBlock: 0n });
    const mine = logs.find((l) => l.transactionHash === out.txHash) as unknown as { args: { ref: Hex; amount: bigint } };
    expect(mine.args).toMatchObject({ ref: keccak256(stringToHex("top-up 1")), amount: 3_000_000n });
  });

  it("withdraw sends tokens and ETH to --to; another key is refused in one line and nothing moves", async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const before = await usdcOf(vault);
    expect(await relayJson(["owner", "withdraw", "--token", "USDC", "--amount", "1.5", "--to", to])).toMatchObject({ action: "withdraw", to, amount: "1500000" });
    expect(await usdcOf(to)).toBe(1_500_000n);
    expect(await usdcOf(vault)).toBe(before - 1_500_000n);
    await relayJson(["owner", "withdraw", "--token", "ETH", "--amount", "0.25", "--to", to]);
    expect(await clients.publicClient.getBalance({ address: to })).toBe(25n * 10n ** 16n);

    const stranger = generatePrivateKey();
    await fund(privateKeyToAccount(stranger).address);
    const refused = await relay(["owner", "withdraw", "--token", "USDC", "--amount", "1", "--to", to, "--owner-key", stranger]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/^relay: withdraw would revert: .*NotOwner/);
    expect(await usdcOf(to)).toBe(1_500_000n);
  });

  it("withdraw-nft sends an ERC-721 the vault holds", async () => {
    const nft = devnet.manifest.contracts.nft as Address;
    const nftAbi = readArtifact("mocks/MockNFT").abi;
    const minter = privateKeyToAccount(devnet.manifest.accounts.owner.privateKey as Hex);
    const { result: id, request } = await clients.publicClient.simulateContract({ address: nft, abi: nftAbi, functionName: "mint", args: [vault], account: minter });
    await clients.publicClient.waitForTransactionReceipt({ hash: await clients.walletFor(minter).writeContract(request) });
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const stranger = generatePrivateKey();
    await fund(privateKeyToAccount(stranger).address);
    const refused = await relay(["owner", "withdraw-nft", nft, String(id), "--to", to, "--owner-key", stranger]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^relay: withdrawERC721 would revert: .*NotOwner/);
    expect(await clients.publicClient.readContract({ address: nft, abi: nftAbi, functionName: "ownerOf", args: [id] })).toBe(vault);
    await relayJson(["owner", "withdraw-nft", nft, String(id), "--to", to]);
    expect(await clients.publicClient.readContract({ address: nft, abi: nftAbi, functionName: "ownerOf", args: [id] })).toBe(to);
    const bad = await relay(["owner", "withdraw-nft", nft, "1.5", "--to", to]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^relay: token id must be a whole number/);
  });
});

describe("relay owner operator and ownership", () => {
  it("operator set, ceilings, clear: read back from the chain", async () => {
    const op = privateKeyToAccount(generatePrivateKey()).address;
    await relayJson(["owner", "operator", "set", op]);
    expect(await read("operator")).toBe(op);
    await relayJson(["owner", "operator", "ceilings", "--max-bots", "2", "--max-per-tx", "25", "--max-bot-daily", "100", "--vault-daily", "150", "--ai-floor", "10"]);
    expect(await read("operatorCeilings")).toEqual([25_000_000n, 100_000_000n, 2n, 150_000_000n, 10_000_000n]);
    const bad = await relay(["owner", "operator", "ceilings", "--max-per-tx", "abc"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^relay: --max-per-tx must be a USD amount/);
    await relayJson(["owner", "operator", "clear"]);
    expect(await read("operator")).toBe(zeroAddress);
  });

  it("transfer-ownership names the next owner; only its accept-ownership moves the vault", async () => {
    const owner = devnet.manifest.accounts.owner.address as Address;
    const nextKey = generatePrivateKey();
    const next = privateKeyToAccount(nextKey).address;
    await fund(next);
    const early = await relay(["owner", "accept-ownership", "--owner-key", nextKey]);
    expect(early.code).not.toBe(0);
    expect(early.stderr).toMatch(/^relay: acceptOwnership would revert: .*NotOwner/);
    await relayJson(["owner", "transfer-ownership", next]);
    expect(await read("pendingOwner")).toBe(next);
    expect(await read("owner")).toBe(owner);
    await relayJson(["owner", "accept-ownership", "--owner-key", nextKey]);
    expect(await read("owner")).toBe(next);
    // And back, so the devnet's owner key is the owner again.
    await relayJson(["owner", "transfer-ownership", owner, "--owner-key", nextKey]);
    await relayJson(["owner", "accept-ownership"]);
    expect(await read("owner")).toBe(owner);
  });
});
