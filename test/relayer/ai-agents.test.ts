// The AI panel as its own process: `relay agents` (spawned here as the CLI runs it) keeps its three
// keys in its own state directory (0700, keys 0600) and serves verdicts on 127.0.0.1; the vault's
// owner registers its keys as scanners, and `relay serve --agents-url` (here the in-process
// relayer with ai.agentsUrl) asks it. A $60 payment the agents approve executes on-chain with their
// verdicts, and the relayer's state directory holds no scanner key. A stranger calling the agents'
// HTTP directly gets verdicts only for what the agents approve after checking it against the chain:
// garbage, a forged bot signature, an executed intent, a far deadline are refused; nothing is signed
// for a hash it is handed.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFunctionData, recoverAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { verdictDigest } from "../../src/eip712/verdict.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { removeTempDir, tempDir } from "../helpers/temp-dir.ts";
import { balanceOf, calldata, executeBody, fresh, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { readOf } from "./harness-extra.ts";

const USDC = (n: number) => BigInt(n) * 1_000_000n;
const vaultAbi = readArtifact("ServiceVault").abi;

describe("relay agents: the panel in its own process", () => {
  let env: Env;
  let bot: PrivateKeyAccount;
  let agents: SpawnedRelay;
  let agentsDir: string;
  let agentsUrl: string;
  let scanners: Address[];

  beforeAll(async () => {
    env = await startEnv();
    bot = privateKeyToAccount(generatePrivateKey());
    await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, aiTriggerThreshold: USDC(50) }]);
    agentsDir = tempDir("relay-agents-");
    agents = spawnRelay(["agents", "--rpc-url", env.devnet.rpc.url, "--state-dir", agentsDir, "--port", "0", "--json"]);
    await agents.waitFor(/agents ready/);
    const ready = JSON.parse(agents.output.stdout.trim().split("\n")[0]!) as { url: string; scanners: Address[] };
    agentsUrl = ready.url;
    scanners = ready.scanners;
    await ownerCall(env, "setScanners", [scanners]);
    await env.stopRelayers();
    await env.startRelayers({ ai: { timeoutMs: 30_000, agentsUrl } });
  }, 180_000);
  afterAll(async () => {
    agents?.child.kill("SIGTERM");
    await agents?.exited;
    await env?.close();
    if (agentsDir) removeTempDir(agentsDir);
  });

  it("keeps its keys in its own state directory: agents/ 0700, keys 0600", () => {
    const dir = path.join(agentsDir, "agents");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, "keys")).mode & 0o777).toBe(0o600);
    expect(agents.output.stderr).not.toMatch(/0x[0-9a-fA-F]{64}/); // no key printed
    expect(readdirSync(env.stateDir)).not.toContain("scanner-keys");
  });

  it("a $60 payment the agents approve executes with the agents' verdicts", async () => {
    const to = fresh();
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(60) }, { signer: bot, memo: "invoice 77 for hosting, 60 USDC", metadata: { scenario: "ai-approve" } }));
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    const tx = await env.clients.publicClient.getTransaction({ hash: res.body.txHash });
    const call = decodeFunctionData({ abi: vaultAbi, data: tx.input });
    expect(call.functionName).toBe("executeReviewedPayment");
    const args = call.args as readonly unknown[];
    const [deadline, packed] = args.slice(-2) as [bigint, Hex];
    const intentHash = await readOf<Hex>(env, env.vault, "ServiceVault", "hashPaymentIntent", [args[0]]);
    const digest = verdictDigest(env.manifest.domain as never, intentHash, deadline);
    const signers: string[] = [];
    for (let at = 2; at < packed.length; at += 130) signers.push((await recoverAddress({ hash: digest, signature: `0x${packed.slice(at, at + 130)}` })).toLowerCase());
    expect(signers.length).toBeGreaterThanOrEqual(2);
    for (const s of signers) expect(scanners.map((a) => a.toLowerCase())).toContain(s);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(60));
  });

  it("a $60 protocol call the agents approve executes with their verdicts", async () => {
    const lending = env.manifest.contracts.lending as Address;
    await ownerCall(env, "approveProtocol", [lending]);
    const usdc = env.token("USDC");
    const before = await readOf<bigint>(env, lending, "mocks/MockLendingPool", "supplied", [env.vault, usdc]);
    const data = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(60)]);
    const res = await post(`${env.url}/v1/execute`, await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(60)] }, data, { signer: bot, memo: "supply 60 USDC to the lending pool", metadata: { scenario: "ai-approve" } }));
    expect(res.body).toMatchObject({ status: "approved" });
    const tx = await env.clients.publicClient.getTransaction({ hash: res.body.txHash });
    expect(decodeFunctionData({ abi: vaultAbi, data: tx.input }).functionName).toBe("executeReviewedProtocol");
    expect(await readOf<bigint>(env, lending, "mocks/MockLendingPool", "supplied", [env.vault, usdc])).toBe(before + USDC(60));
  });

  it("the agents' no-consensus holds the payment for the owner; nothing moves", async () => {
    const to = fresh();
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env, { bot: bot.address, to, amount: USDC(60) }, { signer: bot, metadata: { scenario: "ai-no-consensus" } }));
    expect(res.body.status).toBe("pending_review");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  describe("a stranger calling the agents directly", () => {
    const ask = async (body: unknown) => {
      const res = await fetch(`${agentsUrl}/v1/verdicts`, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const input = (usd: number) => ({
      kind: "payment", chainId: env.manifest.chainId, vault: env.vault, bot: bot.address, counterparty: bot.address, summary: "", usdValue: String(USDC(usd)), reasons: ["ai_threshold"],
      policy: { aiTriggerThreshold: "0", maxPerTxAmount: "0", dailyLimit: "0" },
      history: { requests24h: 0, rejected24h: 0, approvedUsd24h: "0", medianUsd: "0", approvedCount: 5, knownCounterparty: true },
    });
    const soon = async () => String((await env.clients.publicClient.getBlock()).timestamp + 300n);

    it("garbage, or a bare hash to sign: 400 with {error, code, details}", async () => {
      expect((await ask("not json")).body).toMatchObject({ code: "INVALID_REQUEST", error: expect.any(String), details: expect.any(String) });
      const bare = await ask({ intentHash: `0x${"11".repeat(32)}`, deadline: await soon() });
      expect(bare.status).toBe(400);
      expect(bare.body.verdicts).toBeUndefined();
    });

    it("a payment whose signature is not the bot's: 400 INVALID_SIGNATURE, nothing signed", async () => {
      const stranger = privateKeyToAccount(generatePrivateKey());
      const body = await paymentBody(env, { bot: bot.address, to: fresh(), amount: USDC(60) }, { signer: stranger, metadata: { scenario: "ai-approve" } });
      const res = await ask({ kind: "payment", body: { ...body, bot: bot.address }, input: input(60), deadline: await soon() });
      expect(res.status).toBe(400);
      expect(res.body.verdicts).toBeUndefined();
      expect(res.body).toMatchObject({ code: "INVALID_SIGNATURE" });
    });

    it("an intent already executed: 409 INTENT_REJECTED; a deadline too far ahead: 400 INVALID_DEADLINE", async () => {
      const body = await paymentBody(env, { bot: bot.address, to: fresh(), amount: USDC(5) }, { signer: bot });
      expect((await post(`${env.url}/v1/payments`, body)).body.status).toBe("approved");
      const executed = await ask({ kind: "payment", body, input: input(5), deadline: await soon() });
      expect(executed.status).toBe(409);
      expect(executed.body).toMatchObject({ code: "INTENT_REJECTED" });
      const fresher = await paymentBody(env, { bot: bot.address, to: fresh(), amount: USDC(60) }, { signer: bot, metadata: { scenario: "ai-approve" } });
      const far = String((await env.clients.publicClient.getBlock()).timestamp + 86_400n);
      expect((await ask({ kind: "payment", body: fresher, input: input(60), deadline: far })).body).toMatchObject({ code: "INVALID_DEADLINE" });
    });

    it("a real, fresh, bot-signed payment: signed only as the agents judge it, for the hash they compute", async () => {
      const body = await paymentBody(env, { bot: bot.address, to: fresh(), amount: USDC(60) }, { signer: bot, metadata: { scenario: "ai-no-consensus" } });
      const refused = await ask({ kind: "payment", body, input: input(60), deadline: await soon() });
      expect(refused.status).toBe(200);
      expect(refused.body).toMatchObject({ result: { approved: false }, verdicts: [] });
    });
  });
});
