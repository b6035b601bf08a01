// POST /v1/execute end to end: protocol calls signed as a bot signs them, against the devnet's mock
// lending pool, NFT and marketplace. Fast path, the token/amount shorthand, the approval-grant and
// NFT-transfer paths, and the execute refusals, each checked on the chain itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, keccak256, type Address } from "viem";
import { balanceOf, calldata, executeBody, fresh, get, ownerCall, post, startEnv, type Env } from "./harness.ts";
import { expectErrorEnvelope, fundedSender, mintNft, nftOwner, readOf } from "./harness-extra.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));

describe("POST /v1/execute", () => {
  let env: Env;
  let execute: string;
  let usdc: Address;
  let lending: Address;
  let nft: Address;
  let marketplace: Address;

  beforeAll(async () => {
    env = await startEnv();
    execute = `${env.url}/v1/execute`;
    usdc = env.token("USDC");
    lending = env.manifest.contracts.lending as Address;
    nft = env.manifest.contracts.nft as Address;
    marketplace = env.manifest.contracts.marketplace as Address;
    await ownerCall(env, "approveProtocol", [lending]);
  });
  afterAll(() => env?.close());

  const supplied = (token: Address) => readOf<bigint>(env, lending, "mocks/MockLendingPool", "supplied", [env.vault, token]);

  describe("fast path", () => {
    it("supplies USDC to the approved lending pool: approved with txHash, the pool holds it on-chain", async () => {
      const poolBefore = await balanceOf(env, usdc, lending);
      const vaultBefore = await balanceOf(env, usdc, env.vault);
      const data = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(100)]);
      const res = await post(execute, await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(100)] }, data));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ requestId: expect.stringMatching(/^req_/), status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: res.body.txHash });
      expect(receipt.status).toBe("success");
      expect(await balanceOf(env, usdc, lending)).toBe(poolBefore + USDC(100));
      expect(await balanceOf(env, usdc, env.vault)).toBe(vaultBefore - USDC(100));
      expect(await supplied(usdc)).toBeGreaterThanOrEqual(USDC(100));
      // The vault revokes the pool's allowance after the call.
      expect(await env.clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [env.vault, lending] })).toBe(0n);

      const status = await get(`${execute}/${res.body.requestId}`);
      expect(status.status).toBe(200);
      expect(status.body).toEqual({ requestId: res.body.requestId, status: "approved", txHash: res.body.txHash });
    });

    it("accepts the token/amount shorthand for one-element tokens/amounts", async () => {
      const before = await supplied(usdc);
      const data = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(7)]);
      const { tokens: _tokens, amounts: _amounts, ...rest } = await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(7)] }, data);
      const res = await post(execute, { ...rest, token: usdc, amount: USDC(7).toString() });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("approved");
      expect(await supplied(usdc)).toBe(before + USDC(7));
    });

    it("an execute id is not a payment or swap id", async () => {
      const data = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(1)]);
      const res = await post(execute, await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(1)] }, data));
      expect(res.body.status).toBe("approved");
      expect((await get(`${env.url}/v1/payments/${res.body.requestId}`)).status).toBe(404);
      expect((await get(`${env.url}/v1/swap/${res.body.requestId}`)).status).toBe(404);
      const unknown = await get(`${execute}/req_doesnotexist`);
      expect(unknown.status).toBe(404);
      expectErrorEnvelope(unknown.body, "NOT_FOUND");
    });
  });

  describe("paths", () => {
    it("an approval grant (approve on the USDC default token) is always held for review, even for 1 unit", async () => {
      const spender = fresh();
      const data = calldata("mocks/MockERC20", "approve", [spender, 1n]);
      const res = await post(execute, await executeBody(env, { protocol: usdc }, data));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ requestId: expect.stringMatching(/^req_/), status: "pending_review", pollUrl: `/v1/execute/${res.body.requestId}` });
      expect(await env.clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [env.vault, spender] })).toBe(0n);
      expect((await get(`${env.url}${res.body.pollUrl}`)).body).toEqual(res.body);
    });

    // No feed prices an NFT: one leaving the vault is the owner's to decide, never the agents' alone
    // (nft-outflows.ts; test/security/unpriced-outflows.test.ts has the owner approving one).
    describe("NFT transfers out of the vault are held for the owner whatever their value", () => {
      beforeAll(async () => {
        await ownerCall(env, "approveProtocol", [nft]);
      });

      it("even with agents forced to approve: pending_review for the owner, and the NFT stays", async () => {
        const id = await mintNft(env, env.owner, env.vault);
        expect(await nftOwner(env, id)).toBe(env.vault);
        const to = fresh();
        const data = calldata("mocks/MockNFT", "safeTransferFrom", [env.vault, to, id]);
        const res = await post(execute, await executeBody(env, { protocol: nft }, data, { metadata: { scenario: "ai-approve" } }));
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ requestId: expect.any(String), status: "pending_review", pollUrl: `/v1/execute/${res.body.requestId}` });
        expect(await nftOwner(env, id)).toBe(env.vault);
      });

      it("agents without consensus: pending_review, and the NFT stays", async () => {
        const id = await mintNft(env, env.owner, env.vault);
        const data = calldata("mocks/MockNFT", "safeTransferFrom", [env.vault, fresh(), id]);
        const res = await post(execute, await executeBody(env, { protocol: nft }, data, { metadata: { scenario: "ai-no-consensus" } }));
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ requestId: expect.any(String), status: "pending_review", pollUrl: `/v1/execute/${res.body.requestId}` });
        expect(await nftOwner(env, id)).toBe(env.vault);
      });

      it("transferFrom on an NFT contract (not a known ERC-20) is an NFT transfer too: scanned", async () => {
        const id = await mintNft(env, env.owner, env.vault);
        const data = calldata("mocks/MockNFT", "transferFrom", [env.vault, fresh(), id]);
        const res = await post(execute, await executeBody(env, { protocol: nft }, data, { metadata: { scenario: "ai-no-consensus" } }));
        expect(res.body.status).toBe("pending_review");
        expect(await nftOwner(env, id)).toBe(env.vault);
      });

      it("setApprovalForAll on the approved NFT contract is an approval grant: held for review", async () => {
        const operator = fresh();
        const data = calldata("mocks/MockNFT", "setApprovalForAll", [operator, true]);
        const res = await post(execute, await executeBody(env, { protocol: nft }, data, { metadata: { scenario: "ai-approve" } }));
        expect(res.body.status).toBe("pending_review");
        expect(await readOf<boolean>(env, nft, "mocks/MockNFT", "isApprovedForAll", [env.vault, operator])).toBe(false);
      });
    });
  });

  describe("MockMarketplace", () => {
    let seller: Awaited<ReturnType<typeof fundedSender>>;

    beforeAll(async () => {
      seller = await fundedSender(env);
      await ownerCall(env, "approveProtocol", [marketplace]);
    });

    it("the vault buys a listed NFT with USDC: the seller is paid and the vault holds the NFT", async () => {
      const id = await mintNft(env, seller, seller.address);
      await seller.call(nft, "mocks/MockNFT", "approve", [marketplace, id]);
      await seller.call(marketplace, "mocks/MockMarketplace", "list", [nft, id, USDC(25)]);
      const vaultBefore = await balanceOf(env, usdc, env.vault);

      const data = calldata("mocks/MockMarketplace", "buy", [nft, id]);
      const res = await post(execute, await executeBody(env, { protocol: marketplace, tokens: [usdc], amounts: [USDC(25)] }, data, { memo: "buying a collectible" }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
      expect(await nftOwner(env, id)).toBe(env.vault);
      expect(await balanceOf(env, usdc, seller.address)).toBe(USDC(25));
      expect(await balanceOf(env, usdc, env.vault)).toBe(vaultBefore - USDC(25));
    });

    it("422 SIMULATION_FAILED with the decoded revert reason when the NFT is not for sale; nothing moves", async () => {
      const id = await mintNft(env, seller, seller.address);
      const vaultBefore = await balanceOf(env, usdc, env.vault);
      const data = calldata("mocks/MockMarketplace", "buy", [nft, id]);
      const res = await post(execute, await executeBody(env, { protocol: marketplace, tokens: [usdc], amounts: [USDC(25)] }, data));
      expect(res.status).toBe(422);
      expectErrorEnvelope(res.body, "SIMULATION_FAILED");
      expect(res.body.details).toMatch(/not for sale/);
      expect(await nftOwner(env, id)).toBe(seller.address);
      expect(await balanceOf(env, usdc, env.vault)).toBe(vaultBefore);
    });
  });

  describe("refusals", () => {
    it("403 PROTOCOL_NOT_APPROVED for a contract the owner never approved (the swap router)", async () => {
      const router = env.manifest.contracts.router as Address;
      const data = calldata("mocks/MockSwapRouter", "setFeeBps", [9_999n]);
      const res = await post(execute, await executeBody(env, { protocol: router }, data));
      expect(res.status).toBe(403);
      expectErrorEnvelope(res.body, "PROTOCOL_NOT_APPROVED");
      expect(await readOf<bigint>(env, router, "mocks/MockSwapRouter", "feeBps")).toBe(30n);
    });

    it("403 PROTOCOL_NOT_APPROVED for a call other than approve on a registry default token (USDC transfer)", async () => {
      const to = fresh();
      const data = calldata("mocks/MockERC20", "transfer", [to, USDC(1)]);
      const res = await post(execute, await executeBody(env, { protocol: usdc }, data));
      expect(res.status).toBe(403);
      expectErrorEnvelope(res.body, "PROTOCOL_NOT_APPROVED");
      expect(await balanceOf(env, usdc, to)).toBe(0n);
    });

    it("403 PROTOCOL_NOT_APPROVED before the balance check: a non-approve call on a default token the vault holds none of", async () => {
      // The vault gives all its WBTC back to the owner, so moving any would be INSUFFICIENT_BALANCE.
      const wbtc = env.token("WBTC");
      await ownerCall(env, "withdraw", [wbtc, await balanceOf(env, wbtc, env.vault), env.manifest.accounts.owner.address]);
      expect(await balanceOf(env, wbtc, env.vault)).toBe(0n);
      const to = fresh();
      const data = calldata("mocks/MockERC20", "transfer", [to, 1_000n]);
      const res = await post(execute, await executeBody(env, { protocol: wbtc, tokens: [wbtc], amounts: [1_000n] }, data));
      expect(res.status).toBe(403);
      expectErrorEnvelope(res.body, "PROTOCOL_NOT_APPROVED");
      expect(res.body.details).toMatch(/default token: only approve calls/);
      expect(await balanceOf(env, wbtc, to)).toBe(0n);
    });

    it("400 INVALID_REQUEST when calldataHash is not keccak256(callData)", async () => {
      const data = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(1)]);
      const body = await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(1)] }, data);
      const before = await supplied(usdc);
      const res = await post(execute, { ...body, calldataHash: keccak256("0x1234") });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, "INVALID_REQUEST");
      expect(res.body.details).toMatch(/calldataHash/);
      expect(await supplied(usdc)).toBe(before);
    });

    it("400 INVALID_SIGNATURE when callData differs from what the bot signed", async () => {
      const signed = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(1)]);
      const body = await executeBody(env, { protocol: lending, tokens: [usdc], amounts: [USDC(1)] }, signed);
      const other = calldata("mocks/MockLendingPool", "supply", [usdc, USDC(2)]);
      const { calldataHash: _hash, ...withoutHash } = body;
      const res = await post(execute, { ...withoutHash, callData: other });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, "INVALID_SIGNATURE");
    });
  });
});
