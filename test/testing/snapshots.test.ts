// relay/testing's snapshot() and revert(id) against a real `relay serve` process: a revert puts the
// chain, the relayer's ledger and its in-memory state back together (balances read on-chain, the
// request unknown to the relayer, the relayer's nonces and devnet clock following the chain back),
// an id stays valid after a revert to it, and only the holder of the token startRelay() passed can
// call relay_snapshot or relay_revert: a stranger on loopback is refused and nothing moves.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createPublicClient, erc20Abi, http, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RelayApiError, RelayClient, defaultDeadline, randomRef, readVaultDomain, signPaymentRequest, type PaymentResponse } from "../../packages/client/src/index.ts";
import { revert, snapshot, startRelay, type StartedRelay } from "relay/testing";
import { spawnRelay } from "../helpers/cli.ts";

let relay: StartedRelay;

beforeAll(async () => {
  relay = await startRelay();
}, 300_000);

afterAll(async () => {
  await relay?.stop();
});

const chain = () => createPublicClient({ transport: http(relay.rpcUrl) });
const client = () => new RelayClient({ baseUrl: relay.relayerUrl, chainId: relay.manifest.chainId });
const usdc = () => relay.manifest.tokens.USDC!.address;
const freshRecipient = (): Address => privateKeyToAccount(generatePrivateKey()).address;

function usdcOf(holder: Address): Promise<bigint> {
  return chain().readContract({ address: usdc(), abi: erc20Abi, functionName: "balanceOf", args: [holder] });
}

/** 1 USDC from the vault to `to`, signed by the default bot, with this deadline (unix seconds). */
async function pay(to: Address, deadline = defaultDeadline()): Promise<PaymentResponse> {
  const bot = privateKeyToAccount(relay.manifest.accounts.bots.default.privateKey);
  const domain = await readVaultDomain(chain(), relay.manifest.contracts.vault);
  return client().submitPayment(await signPaymentRequest(bot, domain, { bot: bot.address, to, token: usdc(), amount: 1_000_000n, deadline, ref: randomRef() }));
}

async function lookupCode(requestId: string): Promise<string> {
  const answer = await client().getPayment(requestId).then(
    (found) => `found ${found.status}`,
    (error: unknown) => (error instanceof RelayApiError ? error.code : String(error)),
  );
  return answer;
}

async function rpc(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(relay.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

const relayerNonce = () => chain().getTransactionCount({ address: relay.manifest.accounts.relayer.address });

describe("snapshot() and revert(id)", () => {
  it("put back the chain, the ledger and the relayer's state together; the id stays valid, later ones are dropped", async () => {
    const recipient = freshRecipient();
    const vault = relay.manifest.contracts.vault;
    const [vaultBefore, nonceBefore] = [await usdcOf(vault), await relayerNonce()];
    const id = await relay.snapshot();

    const paid = await pay(recipient);
    expect(paid.status).toBe("approved");
    expect(await usdcOf(recipient)).toBe(1_000_000n);
    expect(await relayerNonce()).toBe(nonceBefore + 1);
    const later = await relay.snapshot();

    await relay.revert(id);
    expect(await usdcOf(recipient)).toBe(0n);
    expect(await usdcOf(vault)).toBe(vaultBefore);
    expect(await relayerNonce()).toBe(nonceBefore);
    expect(await lookupCode(paid.requestId)).toBe("NOT_FOUND");
    // The relayer's nonce for its key follows the chain back: a payment now is mined, not stuck behind a gap.
    const again = await pay(recipient);
    expect(again.status).toBe("approved");
    expect(await usdcOf(recipient)).toBe(1_000_000n);
    expect(await relayerNonce()).toBe(nonceBefore + 1);

    // The same id again (a suite reverts to its baseline before every test).
    await relay.revert(id);
    expect(await usdcOf(recipient)).toBe(0n);
    expect(await lookupCode(again.requestId)).toBe("NOT_FOUND");
    // A snapshot taken after the one reverted to is gone, as on the chain.
    await expect(relay.revert(later)).rejects.toThrow(/relay_revert: no snapshot 0x[0-9a-f]+/);
    expect(await usdcOf(vault)).toBe(vaultBefore);
  }, 120_000);

  it("drop a payment held for the owner's review: unknown to the relayer after the revert", async () => {
    const id = await relay.snapshot();
    const reviewed = privateKeyToAccount(relay.manifest.accounts.bots.reviewed.privateKey);
    const domain = await readVaultDomain(chain(), relay.manifest.contracts.vault);
    const recipient = freshRecipient();
    const intent = { bot: reviewed.address, to: recipient, token: usdc(), amount: 1_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const held = await client().submitPayment(await signPaymentRequest(reviewed, domain, intent));
    expect(held.status).toBe("pending_review");
    expect(await lookupCode(held.requestId)).toBe("found pending_review");

    await relay.revert(id);
    expect(await lookupCode(held.requestId)).toBe("NOT_FOUND");
    expect(await usdcOf(recipient)).toBe(0n);
  }, 120_000);

  it("bring the relayer's devnet clock back with the chain's time", async () => {
    const id = await relay.snapshot();
    // Two days ahead on the chain; a payment makes the relayer read a block of that time.
    const twoDays = 2 * 86_400;
    expect((await rpc("evm_increaseTime", [twoDays])).error).toBeUndefined();
    expect((await rpc("evm_mine", [])).error).toBeUndefined();
    const ahead = await pay(freshRecipient(), defaultDeadline(Math.floor(Date.now() / 1000) + twoDays));
    expect(ahead.status).toBe("approved");
    // With a clock two days ahead, a deadline five minutes from the wall clock would have passed.
    const stale = await pay(freshRecipient()).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(RelayApiError);
    expect((stale as RelayApiError).code).toBe("DEADLINE_EXPIRED");

    await relay.revert(id);
    const recipient = freshRecipient();
    const now = await pay(recipient);
    expect(now.status).toBe("approved");
    expect(await usdcOf(recipient)).toBe(1_000_000n);
  }, 120_000);

  it("at module level act on the one relay running, and refuse an unknown id", async () => {
    const recipient = freshRecipient();
    const id = await snapshot();
    expect((await pay(recipient)).status).toBe("approved");
    await revert(id);
    expect(await usdcOf(recipient)).toBe(0n);
    await expect(revert("0xfff")).rejects.toThrow(/no snapshot 0xfff/);
    await expect(relay.revert("not an id")).rejects.toThrow(/snapshot id/);
  }, 120_000);
});

describe("the ledger a relay leaves", () => {
  it("is whole after snapshots and reverts: at stop() it is checkpointed, intact, and holds what the reverts kept, not what they dropped", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "relay-snapshots-ledger-"));
    const own = await startRelay({ stateDir: dir });
    try {
      const ownChain = createPublicClient({ transport: http(own.rpcUrl) });
      const ownClient = new RelayClient({ baseUrl: own.relayerUrl, chainId: own.manifest.chainId });
      const bot = privateKeyToAccount(own.manifest.accounts.bots.default.privateKey);
      const domain = await readVaultDomain(ownChain, own.manifest.contracts.vault);
      const payOwn = async () => {
        const intent = { bot: bot.address, to: freshRecipient(), token: own.manifest.tokens.USDC!.address, amount: 1_000_000n, deadline: defaultDeadline(), ref: randomRef() };
        const answer = await ownClient.submitPayment(await signPaymentRequest(bot, domain, intent));
        expect(answer.status).toBe("approved");
        return answer.requestId;
      };
      const before = await payOwn();
      const id = await own.snapshot();
      const dropped = [await payOwn(), await payOwn()];
      await own.snapshot();
      await own.revert(id);
      const kept = await payOwn();
      await own.revert(id);
      const last = await payOwn();
      await own.stop();

      // Everything is in the file itself: the write-ahead log was checkpointed into it at stop.
      const ledger = path.join(dir, "ledger.sqlite");
      expect(!existsSync(`${ledger}-wal`) || statSync(`${ledger}-wal`).size === 0).toBe(true);
      const db = new DatabaseSync(ledger, { readOnly: true });
      try {
        expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
        const ids = (db.prepare("SELECT id FROM requests").all() as Array<{ id: string }>).map((row) => row.id);
        expect(ids.sort()).toEqual([before, last].sort());
        for (const gone of [...dropped, kept]) expect(ids).not.toContain(gone);
      } finally {
        db.close();
      }
    } finally {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe("who may snapshot or revert", () => {
  it("a caller without the token is refused, and the payment it tries to erase stays on the chain and in the ledger", async () => {
    const id = await relay.snapshot();
    const recipient = freshRecipient();
    const paid = await pay(recipient);
    expect(paid.status).toBe("approved");

    for (const token of [undefined, "", "0".repeat(64), relay.rpcUrl]) {
      const params = token === undefined ? [] : [token];
      const snap = await rpc("relay_snapshot", params);
      expect(snap.error?.code).toBe(-32001);
      const back = await rpc("relay_revert", [...(token === undefined ? [null] : params), id]);
      expect(back.error?.code).toBe(-32001);
      expect(back.result).toBeUndefined();
    }
    // A batch is no way round it.
    const batch = (await (
      await fetch(relay.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "relay_revert", params: ["x", id] }]) })
    ).json()) as Array<{ error?: { code: number } }>;
    expect(batch[0]!.error?.code).toBe(-32001);

    expect(await usdcOf(recipient)).toBe(1_000_000n);
    expect(await lookupCode(paid.requestId)).toBe("found approved");
  }, 120_000);

  it("a relay serve started without RELAY_TESTING_TOKEN has no snapshot methods, and one with a short token does not start", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "relay-snapshots-plain-"));
    try {
      const short = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", path.join(dir, "short"), "--json"], { RELAY_TESTING_TOKEN: "too-short" });
      expect((await short.exited).code).toBe(2);
      expect(short.output.stderr).toMatch(/RELAY_TESTING_TOKEN must be at least 32 characters/);

      const env = { ...process.env };
      delete env.RELAY_TESTING_TOKEN;
      const plain = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", path.join(dir, "plain"), "--json"], env as Record<string, string>);
      try {
        await plain.waitFor(/relay: ready/, 240_000);
        const manifest = JSON.parse(plain.output.stdout.split("\n").find((line) => line.startsWith("{"))!) as { rpcUrl: string };
        for (const [method, params] of [["relay_snapshot", ["0".repeat(64)]], ["relay_revert", ["0".repeat(64), "0x1"]]] as const) {
          const answer = (await (
            await fetch(manifest.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })
          ).json()) as { result?: unknown; error?: { code: number; message: string } };
          expect(answer.result).toBeUndefined();
          expect(answer.error?.code).not.toBe(-32001);
          expect(answer.error?.message).toMatch(/not supported|not found|does not exist|unknown|method/i);
        }
      } finally {
        plain.child.kill("SIGTERM");
        await plain.exited;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
