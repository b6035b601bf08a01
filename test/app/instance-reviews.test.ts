// Owner decisions on one held review reaching two instances at once (one PostgreSQL database, one
// chain): approve on one and reject on the other, or approve on both. The decision is claimed in
// the store, so exactly one outcome wins, the other gets REVIEW_ALREADY_DECIDED, and at most one
// transaction is sent. Read from the chain: the intent executed once if approved, never if
// rejected; the relayer key sent exactly one transaction per decision: the execution of an
// approval, or the on-chain cancel of a rejection (sent after the rejection's answer).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAbiItem, type Address, type Hex } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { buildSiweMessage, siweTarget } from "../../packages/client/src/siwe-message.ts";
import { signReviewApproval } from "../../packages/client/src/sign.ts";
import { balanceOf, fresh, get, paymentBody, post, type Env } from "../relayer/harness.ts";
import { startInstances, type Instances } from "./instances-harness.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
const paymentExecuted = parseAbiItem("event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)");

describe("two instances deciding one review at once", () => {
  let cluster: Instances;
  let env: Env;
  let urls: [string, string];
  let auth: Record<string, string>;

  beforeAll(async () => {
    cluster = await startInstances({ count: 2, leaseTtlMs: 2_000 });
    env = cluster.env;
    urls = cluster.relayers.map((r) => r.url) as [string, string];
    const { nonce } = (await post(`${urls[0]}/v1/auth/nonce`, {})).body as { nonce: string };
    const message = buildSiweMessage({ ...siweTarget(urls[0]), address: env.ownerAccount.address, chainId: env.manifest.chainId, nonce, issuedAt: new Date() });
    const login = await post(`${urls[0]}/v1/auth/login`, { message, signature: await env.ownerAccount.signMessage({ message }) });
    expect(login.status).toBe(200);
    auth = { authorization: `Bearer ${login.body.token}` };
  }, 120_000);
  afterAll(() => cluster?.close());

  const relayer = () => env.manifest.accounts.relayer.address as Address;
  const cancelled = (intentHash: string) =>
    env.clients.publicClient.readContract({ address: env.vault, abi: vaultAbi, functionName: "cancelledIntents", args: [intentHash as Hex] }) as Promise<boolean>;
  const sentCount = async () => env.clients.publicClient.getTransactionCount({ address: relayer(), blockTag: "latest" });

  async function heldReview() {
    const to = fresh();
    const held = await post(`${urls[1]}/v1/payments`, await paymentBody(env, { to, amount: USDC(1) }, { signer: env.reviewedBot }));
    expect(held.body.status).toBe("pending_review");
    const id = held.body.requestId as string;
    const detail = await get(`${urls[0]}/v1/reviews/${id}`, auth);
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const approval = { deadline: deadline.toString(), signature: await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: detail.body.intentHash, deadline }) };
    return { id, to, intentHash: String(detail.body.intentHash).toLowerCase(), approval };
  }

  /** The intent's executions on the chain since `fromBlock`. */
  async function executions(intentHash: string, fromBlock: bigint) {
    const logs = await env.clients.publicClient.getLogs({ event: paymentExecuted, fromBlock });
    return logs.filter((l) => l.args.intentHash!.toLowerCase() === intentHash).length;
  }

  for (const race of ["approve on one, reject on the other", "approve on both"] as const) {
    it(`${race}: exactly one outcome, at most one transaction`, async () => {
      for (let round = 0; round < 3; round++) {
        const review = await heldReview();
        const fromBlock = await env.clients.publicClient.getBlockNumber();
        const before = await sentCount();
        const decide = (url: string, approve: boolean) =>
          approve ? post(`${url}/v1/reviews/${review.id}/approve`, { approval: review.approval }, auth) : post(`${url}/v1/reviews/${review.id}/reject`, { reason: "no" }, auth);
        const answers = await Promise.all([decide(urls[0], true), decide(urls[1], race === "approve on both")]);
        const won = answers.filter((a) => a.status === 200);
        const lost = answers.filter((a) => a.status !== 200);
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.body.code).toBe("REVIEW_ALREADY_DECIDED");
        const outcome = won[0]!.body.status as string;
        expect(["approved", "rejected"]).toContain(outcome);
        // Both instances tell the same final state; the chain agrees.
        for (const url of urls) expect((await get(`${url}/v1/payments/${review.id}`)).body.status).toBe(outcome);
        const approved = outcome === "approved";
        expect(await executions(review.intentHash, fromBlock + 1n)).toBe(approved ? 1 : 0);
        expect(await balanceOf(env, env.token("USDC"), review.to)).toBe(approved ? USDC(1) : 0n);
        if (!approved) {
          for (const until = Date.now() + 30_000; !(await cancelled(review.intentHash)); await new Promise((r) => setTimeout(r, 100))) {
            if (Date.now() > until) throw new Error(`the rejected intent ${review.intentHash} was not cancelled on-chain`);
          }
        }
        expect(await sentCount()).toBe(before + 1);
      }
    });
  }
});
