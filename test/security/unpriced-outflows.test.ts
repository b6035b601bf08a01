// What relay cannot price is not free. The attack: a bot capped at $1 a transaction calls POST
// /v1/execute with `MockNFT.safeTransferFrom(vault, stranger, id)` on an NFT the vault owns (the
// owner approved the NFT contract as a protocol). Before, the call moved no ERC-20 and no ETH, so
// it was worth $0: scanned, approved by the agents, and the NFT was gone. Now the call's trace shows
// the NFT leaving the vault, its value against the cap cannot be proven, and the request is held
// for the owner's review, also when a devnet scenario forces the agents to approve. The same for an
// ERC-1155 and an ERC-20 with no price feed (called directly, the vault itself measures that token
// and refuses the undeclared outflow). Each hold is checked on the chain: nothing moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { balanceOf, calldata, executeBody, fresh, get, ownerCall, post, startEnv, type Env } from "../relayer/harness.ts";
import { fundedSender, mintNft, newBot, nftOwner, readOf, usd } from "../relayer/harness-extra.ts";
import { signReviewApproval } from "../../packages/client/src/sign.ts";
import { deployer } from "./support/devnet-admin.ts";
import { ownerSession } from "./support/owner-session.ts";
import type { PrivateKeyAccount } from "viem/accounts";

describe("an execute moving what relay cannot price is held for the owner", () => {
  let env: Env;
  let execute: string;
  let nft: Address;
  let bot: PrivateKeyAccount;
  const stranger = fresh();

  beforeAll(async () => {
    env = await startEnv();
    execute = `${env.url}/v1/execute`;
    nft = env.manifest.contracts.nft as Address;
    await ownerCall(env, "approveProtocol", [nft]);
    bot = await newBot(env, { maxPerTxAmount: usd(1) });
  });
  afterAll(() => env?.close());

  const safeTransfer = (id: bigint) => calldata("mocks/MockNFT", "safeTransferFrom", [env.vault, stranger, id]);
  const held = async (requestId: string) => (await env.store.getRequest(requestId))!;

  it("MockNFT.safeTransferFrom(vault, stranger, id) with a $1 cap: held for the owner's review (not scanned), the NFT still the vault's", async () => {
    const id = await mintNft(env, await fundedSender(env), env.vault);
    const res = await post(execute, await executeBody(env, { protocol: nft }, safeTransfer(id), { signer: bot }));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("pending_review");
    const record = await held(res.body.requestId);
    expect(record.heldBecause).toMatch(new RegExp(`^it moves out of the vault what relay cannot price \\(ERC-721 ${nft} #${id} to ${stranger}\\)`));
    expect(record.heldBecause).toMatch(/per-transaction cap and the spending windows cannot be proven/);
    expect(record.agents).toBeUndefined(); // the agents alone never decide it
    expect(await nftOwner(env, id)).toBe(env.vault);

    // The owner sees what leaves, and may still let it go: the review path works for it.
    const auth = await ownerSession(env);
    const item = await get(`${env.url}/v1/reviews/${res.body.requestId}`, auth);
    expect(item.body.unpriced).toEqual([{ standard: "erc721", token: nft, to: stranger, id: id.toString(), amount: "1" }]);
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: item.body.intentHash, deadline });
    const approved = await post(`${env.url}/v1/reviews/${res.body.requestId}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth);
    expect(approved.body.status).toBe("approved");
    expect(await nftOwner(env, id)).toBe(stranger);
  });

  it("with metadata.scenario=ai-approve the agents are not asked: still held, the NFT still the vault's", async () => {
    const id = await mintNft(env, await fundedSender(env), env.vault);
    const res = await post(execute, await executeBody(env, { protocol: nft }, safeTransfer(id), { signer: bot, metadata: { scenario: "ai-approve" } }));
    expect(res.body.status).toBe("pending_review");
    const record = await held(res.body.requestId);
    expect(record.heldBecause).toMatch(/^it moves out of the vault what relay cannot price/);
    expect(record.heldBecause).toMatch(/metadata\.scenario=ai-approve does not decide a review the owner must make$/);
    expect(record.agents).toBeUndefined();
    expect(await nftOwner(env, id)).toBe(env.vault);
  });

  it("judged by effect: staking.stake(id), which names neither the NFT contract nor an NFT transfer, pulls the NFT through a standing approval: held, the NFT still the vault's", async () => {
    const staking = await deployer(env).deploy("mocks/MockNftStaking", [nft]);
    await ownerCall(env, "approveProtocol", [staking]);
    // The owner, through the review queue, once let the staking contract take the vault's NFTs.
    const auth = await ownerSession(env);
    const grant = await post(execute, await executeBody(env, { protocol: nft }, calldata("mocks/MockNFT", "setApprovalForAll", [staking, true])));
    expect(grant.body.status).toBe("pending_review");
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const intentHash = (await get(`${env.url}/v1/reviews/${grant.body.requestId}`, auth)).body.intentHash;
    const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash, deadline });
    expect((await post(`${env.url}/v1/reviews/${grant.body.requestId}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth)).body.status).toBe("approved");

    const id = await mintNft(env, await fundedSender(env), env.vault);
    const res = await post(execute, await executeBody(env, { protocol: staking }, calldata("mocks/MockNftStaking", "stake", [id]), { signer: bot }));
    expect(res.body.status).toBe("pending_review");
    const record = await held(res.body.requestId);
    expect(record.heldBecause).toContain(`ERC-721 ${nft} #${id} to ${staking}`);
    expect(record.agents).toBeUndefined();
    expect(await nftOwner(env, id)).toBe(env.vault);
  });

  it("an ERC-1155: safeTransferFrom(vault, stranger, 7, 3) held for the owner, the vault still holds all 10", async () => {
    const admin = deployer(env);
    const multi = await admin.deploy("mocks/MockERC1155");
    await admin.call(multi, "mocks/MockERC1155", "mint", [env.vault, 7n, 10n]);
    await ownerCall(env, "approveProtocol", [multi]);
    const call = calldata("mocks/MockERC1155", "safeTransferFrom", [env.vault, stranger, 7n, 3n, "0x"]);
    const res = await post(execute, await executeBody(env, { protocol: multi }, call, { signer: bot }));
    expect(res.body.status).toBe("pending_review");
    const record = await held(res.body.requestId);
    expect(record.heldBecause).toContain(`ERC-1155 ${multi} #7 ×3 to ${stranger}`);
    const balance = (who: Address) => readOf<bigint>(env, multi, "mocks/MockERC1155", "balanceOf", [who, 7n]);
    expect(await balance(env.vault)).toBe(10n);
    expect(await balance(stranger)).toBe(0n);
  });

  describe("an ERC-20 with no price feed, approved as a protocol", () => {
    let token: Address;
    const lots = 5_000n * 10n ** 18n;

    beforeAll(async () => {
      const admin = deployer(env);
      token = await admin.deploy("mocks/MockERC20", ["No Feed", "NOFEED", 18]);
      await admin.call(token, "mocks/MockERC20", "mint", [env.vault, 10n ** 24n]);
      await ownerCall(env, "approveProtocol", [token]);
    });

    it("transfer(stranger, 5000) with tokens []: the vault measures the called token and refuses it (422 ExcessOutflow), the vault's balance unchanged", async () => {
      const res = await post(execute, await executeBody(env, { protocol: token }, calldata("mocks/MockERC20", "transfer", [stranger, lots]), { signer: bot }));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("SIMULATION_FAILED");
      expect(res.body.details).toBe(`ExcessOutflow(${token}, ${lots}, 0)`);
      expect(await balanceOf(env, token, env.vault)).toBe(10n ** 24n);
      expect(await balanceOf(env, token, stranger)).toBe(0n);
    });

    it("pulled by the lending pool through a standing allowance the owner granted (tokens []): held for the owner, the vault's balance unchanged", async () => {
      const lending = env.manifest.contracts.lending as Address;
      await ownerCall(env, "approveProtocol", [lending]);
      const grant = await post(execute, await executeBody(env, { protocol: token }, calldata("mocks/MockERC20", "approve", [lending, lots]), { signer: bot }));
      expect(grant.body.status).toBe("pending_review");
      const auth = await ownerSession(env);
      const item = await get(`${env.url}/v1/reviews/${grant.body.requestId}`, auth);
      const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: item.body.intentHash, deadline });
      expect((await post(`${env.url}/v1/reviews/${grant.body.requestId}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth)).body.status).toBe("approved");

      const res = await post(execute, await executeBody(env, { protocol: lending }, calldata("mocks/MockLendingPool", "supply", [token, lots]), { signer: bot }));
      expect(res.body.status).toBe("pending_review");
      expect((await held(res.body.requestId)).agents).toBeUndefined();
      expect(await balanceOf(env, token, env.vault)).toBe(10n ** 24n);
      expect(await balanceOf(env, token, lending)).toBe(0n);
    });
  });
});
