// The vault's hash helpers and signature checks reproduce the golden EIP-712 vectors: a
// clone of the implementation is placed at the vectors' verifyingContract on their chain.
import { getAddress, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadVectors } from "../support/vectors.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { account, emptyConfig, revertOf, setupFixture, type Fixture } from "./fixture.ts";

const vectors = loadVectors();
const byName = (name: string) => {
  const v = vectors.find((x) => x.name === name);
  if (v === undefined) throw new Error(`no vector ${name}`);
  return v;
};
const big = (x: unknown) => BigInt(x as string);

describe("EIP-712 golden vectors through the vault", () => {
  let f: Fixture;
  const payment = byName("payment-intent");
  const execute = byName("execute-intent");
  const swap = byName("swap-intent");
  const review = byName("review-approval");
  const vault = getAddress(payment.domain.verifyingContract);
  const usdc = getAddress(payment.message.token as string);

  const paymentIntent = () => ({ ...payment.message, amount: big(payment.message.amount), deadline: big(payment.message.deadline) });
  const executeIntent = () => ({
    ...execute.message,
    amounts: (execute.message.amounts as string[]).map(BigInt),
    value: big(execute.message.value),
    deadline: big(execute.message.deadline),
  });
  const swapIntent = () => ({
    ...swap.message,
    minToAmount: big(swap.message.minToAmount),
    maxFromAmount: big(swap.message.maxFromAmount),
    deadline: big(swap.message.deadline),
  });

  beforeAll(async () => {
    f = await setupFixture({ chainId: payment.domain.chainId });
    const impl = await f.read<Address>(f.factory, "ServiceVaultFactory", "implementation");
    const setCode = (address: Address, code: Hex) =>
      f.chain.provider.request({ method: "hardhat_setCode", params: [address, code] } as never);
    await setCode(vault, `0x363d3d373d3d3d363d73${impl.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`);
    await f.write(f.owner, vault, "ServiceVault", "initialize", [review.signer]);
    await f.write(account(0), vault, "ServiceVault", "addBotWithPolicy", [payment.signer, emptyConfig()]);
    // the devnet's way of putting USDC at its canonical address
    await setCode(usdc, readArtifact("mocks/MockERC20").deployedBytecode);
    await f.write(f.owner, usdc, "mocks/MockERC20", "initialize", ["USD Coin", "USDC", 6]);
    await f.write(f.owner, usdc, "mocks/MockERC20", "mint", [vault, 100_000_000n]);
  });
  afterAll(async () => f?.chain.close());

  it("the vectors are this project's: the first is the EIP's Mail example", () => {
    expect(vectors.map((v) => v.name)).toEqual(["eip712-mail", "payment-intent", "execute-intent", "swap-intent", "review-approval"]);
    expect(payment.signer).toBe(account(1).address);
    expect(review.signer).toBe(account(0).address);
  });

  it("the clone at the vectors' address has their domain", async () => {
    const [, name, version, chainId, verifyingContract] = await f.read<[Hex, string, string, bigint, Address]>(vault, "ServiceVault", "eip712Domain");
    expect({ name, version, chainId: Number(chainId), verifyingContract }).toEqual({ ...payment.domain, verifyingContract: vault });
  });

  it("hashPaymentIntent reproduces the payment-intent digest", async () => {
    expect(await f.read(vault, "ServiceVault", "hashPaymentIntent", [paymentIntent()])).toBe(payment.digest);
  });

  it("hashExecuteIntent reproduces the execute-intent digest (arrays hashed as padded elements)", async () => {
    expect(await f.read(vault, "ServiceVault", "hashExecuteIntent", [executeIntent()])).toBe(execute.digest);
  });

  it("hashSwapIntent reproduces the swap-intent digest", async () => {
    expect(await f.read(vault, "ServiceVault", "hashSwapIntent", [swapIntent()])).toBe(swap.digest);
  });

  it("hashReviewApproval reproduces the review-approval digest", async () => {
    const { intentHash, deadline } = review.message as { intentHash: Hex; deadline: string };
    expect(intentHash).toBe(payment.digest);
    expect(await f.read(vault, "ServiceVault", "hashReviewApproval", [intentHash, BigInt(deadline)])).toBe(review.digest);
  });

  it("the execute and swap signatures recover to the bot: execution gets past the signature check", async () => {
    // the callData preimage is not part of the vector: any other callData fails the next check
    const e = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeProtocol", [executeIntent(), execute.signature, "0x"]));
    expect(e.name).toBe("CalldataHashMismatch");
    const tampered = { ...executeIntent(), value: 1n };
    expect((await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeProtocol", [tampered, execute.signature, "0x"]))).name).toBe("InvalidSignature");
    const s = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeSwap", [swapIntent(), swap.signature, f.stranger.address, "0x"]));
    expect(s).toEqual({ name: "SwapRouterNotApproved", args: [f.stranger.address] });
  });

  it("the review-approval signature is the owner's: the reviewed payment executes", async () => {
    const { deadline } = review.message as { deadline: string };
    await f.simulate(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [paymentIntent(), payment.signature, BigInt(deadline), review.signature]);
    const wrong = { ...paymentIntent(), amount: 1n };
    const r = await revertOf(() => f.simulate(f.relayer, vault, "ServiceVault", "executeReviewedPayment", [wrong, payment.signature, BigInt(deadline), review.signature]));
    expect(r.name).toBe("InvalidSignature");
  });

  it("the payment signature executes the payment; its digest becomes the used intent", async () => {
    const receipt = await f.write(f.relayer, vault, "ServiceVault", "executePayment", [paymentIntent(), payment.signature]);
    const [ev] = f.events(receipt, "ServiceVault", "PaymentExecuted");
    expect(ev!.args.intentHash).toBe(payment.digest);
    expect(await f.balanceOf(usdc, payment.message.to as Address)).toBe(big(payment.message.amount));
    expect(await f.read(vault, "ServiceVault", "usedIntents", [payment.digest])).toBe(true);
  });
});
