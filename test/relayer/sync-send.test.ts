// How the relayer's own transactions reach the node (submitter.ts): a transaction sent while nothing
// else is queued goes by the node's synchronous send (eth_sendRawTransactionSync, EIP-7966) where the
// node offers it, and the payment is settled from the receipt that comes back with it; a node without
// the method is asked once, then everything goes by eth_sendRawTransaction. Real nodes behind the
// recording proxy of the node-fault tests, and `relay serve` as its own process:
//   anvil (which offers the method): `relay deploy` onto it, then `relay serve` through the proxy
//   (support/proxied-anvil.ts);
//   the in-process Hardhat chain of `relay devnet` (which does not), as in the node-fault tests.
// Every outcome is also read from the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, keccak256, parseAbiItem, parseTransaction, type Address, type Hex } from "viem";
import type { SeenCall } from "../reliability/support/rpc-proxy.ts";
import { proxiedAnvil } from "./support/proxied-anvil.ts";
import { paymentTo, postPayment, startFaultEnv, until, type FaultEnv } from "../reliability/support/node-faults-env.ts";

const SYNC = "eth_sendRawTransactionSync";
const PLAIN = "eth_sendRawTransaction";
const isSend = (call: SeenCall) => call.method === SYNC || call.method === PLAIN;
const nonceOf = (call: SeenCall) => Number(parseTransaction(call.params[0] as Hex).nonce);

/** Resolves once `check` holds (until of the node-fault tests, which waits for a value). */
const once = (what: string, check: () => boolean) => until(what, () => check() || undefined);

describe("on anvil, which offers eth_sendRawTransactionSync", () => {
  const env = proxiedAnvil();
  const pay = env.pay;
  const balance = env.balance;
  const rpc = (method: string, params: unknown[] = []) => env.chain.publicClient.request({ method, params } as never);

  it("a lone payment is one synchronous send, settled from the receipt it answers with: no receipt look, no plain send", async () => {
    const payee = `0x${"5e".repeat(20)}` as Address;
    const from = env.proxy.seen.length;
    const res = await pay(payee, 2_500n);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("approved");

    const calls = env.proxy.seen.slice(from);
    const sends = calls.filter(isSend);
    expect(sends.map((c) => c.method)).toEqual([SYNC]);
    expect((sends[0]!.response?.result as { transactionHash: string; status: string }).status).toBe("0x1");
    expect((sends[0]!.response?.result as { transactionHash: string }).transactionHash).toBe(res.body.txHash);
    expect(calls.filter((c) => c.method === "eth_getTransactionReceipt")).toHaveLength(0);

    // On the chain: mined, and the payee was paid once.
    const receipt = await env.chain.publicClient.getTransactionReceipt({ hash: res.body.txHash });
    expect(receipt.status).toBe("success");
    expect(await balance(payee)).toBe(2_500n);
  });

  it("payments queued behind a synchronous send are broadcast once the node has the first, before it is mined", async () => {
    const payees = [1, 2, 3, 4].map((n) => `0x${n.toString(16).padStart(2, "0").repeat(20)}` as Address);
    await rpc("evm_setAutomine", [false]);
    try {
      const from = env.proxy.seen.length;
      const sent = () => env.proxy.seen.slice(from).filter(isSend);
      // Alone in the queue: a synchronous send, which waits for a block that does not come yet.
      const first = pay(payees[0]!, 1_000n);
      await once("the first send", () => sent().length === 1);
      expect(sent()[0]!.method).toBe(SYNC);
      const rest = payees.slice(1).map((payee) => pay(payee, 1_000n));
      await once("a send after the first", () => sent().length >= 2);
      // The first is still unanswered (not mined), and the next follows it without a nonce gap.
      expect(sent()[0]!.response).toBeUndefined();
      expect(nonceOf(sent()[1]!)).toBe(nonceOf(sent()[0]!) + 1);

      await rpc("evm_mine");
      await rpc("evm_setAutomine", [true]);
      const answers = await Promise.all([first, ...rest]);
      for (const answer of answers) expect(answer.body.status).toBe("approved");
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    // Each payee paid exactly once on the env.chain.
    for (const payee of payees) expect(await balance(payee)).toBe(1_000n);
    const executed = await env.chain.publicClient.getLogs({
      address: env.manifest.contracts.vault as Address,
      event: parseAbiItem("event PaymentExecuted(bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref)"),
      fromBlock: 0n,
    });
    for (const payee of payees) expect(executed.filter((log) => String(log.args.to).toLowerCase() === payee.toLowerCase())).toHaveLength(1);
  });

  it("a lone synchronous send waiting for its block asks the node nothing meanwhile; a second after it, whether the node has it", async () => {
    const payee = `0x${"5d".repeat(20)}` as Address;
    await rpc("evm_setAutomine", [false]);
    let answer: ReturnType<typeof pay> | undefined;
    try {
      const from = env.proxy.seen.length;
      const calls = () => env.proxy.seen.slice(from);
      const looks = () => calls().filter((c) => c.method === "eth_getTransactionByHash");
      answer = pay(payee, 1_000n);
      await once("the synchronous send", () => calls().some(isSend));
      const sentAt = performance.now();
      const send = calls().find(isSend)!;
      expect(send.method).toBe(SYNC);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(looks()).toHaveLength(0);
      await once("the look a second after the send", () => looks().length > 0);
      const lookedAfter = performance.now() - sentAt;
      expect(lookedAfter).toBeGreaterThan(800);
      expect(lookedAfter).toBeLessThan(2_500); // woken when the send turned late, not by anything later
      expect(looks()[0]!.params[0]).toBe(keccak256(send.params[0] as Hex));
      await rpc("evm_mine");
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    const res = await answer;
    expect(res.body.status).toBe("approved");
    expect((await env.chain.publicClient.getTransactionReceipt({ hash: res.body.txHash })).status).toBe("success");
    expect(await balance(payee)).toBe(1_000n);
  });

  it("a synchronous send answered after later transactions went out does not turn the nonce back: each nonce is sent once, in order, with no gap", async () => {
    // The first payment's synchronous send is answered only when its block comes, after the payments
    // queued behind it were broadcast. The relayer must then carry on from the last nonce it sent,
    // not from the first payment's: else the next transaction is re-signed onto a nonce already
    // used (the node refuses it as too low) or, with a group being signed meanwhile, leaves a nonce
    // unsent, and every later transaction waits in the node's pool behind the gap.
    const payees = [7, 8, 9, 10, 11, 12].map((n) => `0x${n.toString(16).padStart(2, "0").repeat(20)}` as Address);
    const from = env.proxy.seen.length;
    const sent = () => env.proxy.seen.slice(from).filter(isSend);
    const answers: Promise<{ status: number; body: Record<string, any> }>[] = [];
    await rpc("evm_setAutomine", [false]);
    try {
      answers.push(pay(payees[0]!, 1_000n));
      await once("the first send", () => sent().length === 1);
      answers.push(pay(payees[1]!, 1_000n), pay(payees[2]!, 1_000n));
      await once("a send behind the first", () => sent().length >= 2);
      await rpc("evm_mine");
      await rpc("evm_setAutomine", [true]);
      await once("the first send's answer", () => sent()[0]!.response !== undefined);
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    for (const answer of await Promise.all(answers)) expect(answer.body.status).toBe("approved");
    // Then more payments, one alone and two together.
    expect((await pay(payees[3]!, 1_000n)).body.status).toBe("approved");
    for (const answer of await Promise.all([pay(payees[4]!, 1_000n), pay(payees[5]!, 1_000n)])) expect(answer.body.status).toBe("approved");

    // Every transaction the relayer handed the node has a nonce of its own, one after another.
    const nonces = sent().map(nonceOf);
    expect(sent().filter((call) => call.response?.error)).toEqual([]);
    expect(nonces).toEqual(nonces.map((_, i) => nonces[0]! + i));
    const relayer = (await env.chain.publicClient.getTransaction({ hash: (sent()[0]!.response!.result as { transactionHash: Hex }).transactionHash })).from;
    expect(await env.chain.publicClient.getTransactionCount({ address: relayer, blockTag: "latest" })).toBe(nonces.at(-1)! + 1);
    for (const payee of payees) expect(await balance(payee)).toBe(1_000n);
  });
});

describe("on the in-process Hardhat chain, which has no eth_sendRawTransactionSync", () => {
  let env: FaultEnv;

  beforeAll(async () => {
    env = await startFaultEnv();
    await env.startRelay({});
  }, 180_000);
  afterAll(() => env?.close());

  it("the node is asked once; then every transaction goes by eth_sendRawTransaction and settles from its receipt", async () => {
    const payee = `0x${"6f".repeat(20)}` as Address;
    const from = env.proxy.seen.length;
    for (let i = 0; i < 3; i++) {
      const res = await postPayment(env, await paymentTo(env, payee, 1_000n));
      expect(res.body.status).toBe("approved");
    }
    const sends = env.proxy.seen.slice(from).filter(isSend);
    expect(sends.map((c) => c.method)).toEqual([SYNC, PLAIN, PLAIN, PLAIN]);
    expect(sends[0]!.response?.error).toBeDefined();
    // The refused synchronous send's bytes are the first plain send's: nothing was signed twice.
    expect(sends[1]!.params[0]).toBe(sends[0]!.params[0]);
    const usdc = env.manifest.tokens.USDC!.address as Address;
    expect(await env.chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [payee] })).toBe(3_000n);
  });
});
