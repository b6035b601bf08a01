// Which code the relayer places at its keys for a lens call (src/relayer/chain/lens-code.ts), on a
// real devnet: the devnet deploys the simulating lens through the deterministic deployment proxy,
// the relayer delegates to it (23 bytes per key instead of the lens's 9.6 KB) and gets the answers
// the whole code gives; other code at the lens's address is never delegated to, a call that finds no
// lens where it runs (a chain reset, a block before the deployment) is made again with the whole
// code, and a node that does not run delegations placed by overrides gets the whole code. The deployed
// lens itself is no relayer: a bot's signed payment sent through it by anyone is refused by the vault.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, getAddress, keccak256, type Address, type EIP1193Provider, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { validateBody } from "../../src/api/validate.ts";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signPaymentIntent } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { startDevnet, type Devnet } from "../../src/devnet/start.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { clientsFor } from "../../src/chain/clients.ts";
import { DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_CODE, deterministicAddress } from "../../src/chain/deterministic-deployer.ts";
import { ChainRuntime, type SimulationCall } from "../../src/relayer/chain/chain-runtime.ts";
import { DELEGATION_TO_LENS, SIMULATING_LENS_ADDRESS, WHOLE_LENS_CODE, lensOverrideCode } from "../../src/relayer/chain/lens-code.ts";
import { decodeReadAndSimulate, readAndSimulateCalldata } from "../../src/relayer/chain/simulating-lens-codec.ts";
import { intentHashOf } from "../../src/relayer/intake/checks.ts";
import { chainFromManifest, parseRelayerConfig, type ChainConfig } from "../../src/relayer/config.ts";
import { executionCalldata, snapshotQuery } from "../../src/relayer/kinds/index.ts";
import { decodeRevert } from "../../src/chain/revert-decode.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const lensArtifact = readArtifact("lens/SimulatingLens");

let devnet: Devnet;
let chainConfig: ChainConfig;
let relayer: Address;
/** The code each lens call placed at each address it overrode, in order (every call goes to the real chain). */
let placed: Hex[][] = [];
/** When set, a call whose override is a delegation is refused, as a node without EIP-7702 refuses to run 0xef code. */
let refuseDelegations = false;

beforeAll(async () => {
  const stateDir = tempDir("relay-lens-code-");
  devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  chainConfig = parseRelayerConfig({ stateDir, chains: [chainFromManifest(devnet.manifest)] }).chains[0]!;
  relayer = privateKeyToAccount(devnet.manifest.accounts.relayer.privateKey as Hex).address;
});
afterAll(() => devnet?.close());

/** A fresh runtime (it asks which code to place at its first lens call) over the devnet, recording the overrides. */
function runtime(): ChainRuntime {
  const inner = devnet.chain.provider as EIP1193Provider;
  const recording = {
    ...inner,
    request: async (args: { method: string; params?: unknown }) => {
      if (args.method === "eth_call") {
        const overrides = (args.params as unknown[])[2] as Record<string, { code?: Hex }> | undefined;
        if (overrides) {
          const codes = Object.values(overrides).map((o) => o.code!).filter((code) => code !== undefined);
          placed.push(codes);
          if (refuseDelegations && codes.some((code) => code.startsWith("0xef0100"))) {
            throw Object.assign(new Error("invalid opcode: opcode 0xef not defined"), { code: -32000 });
          }
        }
      }
      return inner.request(args as never);
    },
  } as EIP1193Provider;
  return new ChainRuntime(chainConfig, recording);
}

const setCode = (address: Address, code: Hex) =>
  devnet.chain.provider.request({ method: "hardhat_setCode", params: [address, code] } as never);
const codeAt = async (address: Address) => (await clientsFor(devnet.chain.provider, devnet.manifest.chainId).publicClient.getCode({ address })) ?? "0x";

/** A bot-signed payment of `amount` USDC: its snapshot query and the simulation of its execution from the relayer key. */
async function payment(on: ChainRuntime, amount: bigint) {
  const m = devnet.manifest;
  const bot = privateKeyToAccount(m.accounts.bots.default.privateKey as Hex);
  const intent: PaymentIntent = {
    bot: bot.address, to: "0x000000000000000000000000000000000000dEaD", token: m.tokens.USDC!.address as Address,
    amount, deadline: defaultDeadline(), ref: randomRef(),
  };
  const signature = await signPaymentIntent(bot, m.domain as never, intent);
  const request = validateBody("payment", paymentRequestBody(m.domain as never, intent, signature, { idempotencyKey: crypto.randomUUID() }));
  const query = snapshotQuery(request, intentHashOf(request, await on.domainOf(request.vaultAddress)));
  const simulation: SimulationCall = { from: relayer, to: request.vaultAddress, data: executionCalldata(request) };
  return { query, simulation };
}

/** Runs `work` with `code` at the lens's address, then puts the lens's own code back. */
async function withCodeAtLens(code: Hex, work: () => Promise<void>): Promise<void> {
  await setCode(SIMULATING_LENS_ADDRESS, code);
  try {
    await work();
  } finally {
    await setCode(SIMULATING_LENS_ADDRESS, lensArtifact.deployedBytecode);
  }
}

/** readAndSimulate of a payment over the bot's per-transaction cap, through `on`: the vault's refusal. */
async function expectRefusedTooBig(on: ChainRuntime, tooBig: Awaited<ReturnType<typeof payment>>): Promise<void> {
  const { outcomes } = await on.readAndSimulate([tooBig.query], [tooBig.simulation]);
  expect(outcomes[0]!.ok).toBe(false);
  expect(decodeRevert(outcomes[0]!.result)).toMatch(/^ExceedsPerTxLimit\(/);
}

/** readAndSimulate's raw answer with `code` placed at the relayer key: what a node says for the whole code or a delegation. */
async function rawCall(code: Hex, simulations: readonly SimulationCall[]): Promise<Hex> {
  const data = readAndSimulateCalldata([], simulations.map(({ from, to, data }) => ({ from, to, data })));
  return (await devnet.chain.provider.request({
    method: "eth_call",
    params: [{ to: relayer, data }, "latest", { [relayer]: { code } }],
  } as never)) as Hex;
}

describe("the simulating lens, deployed once", () => {
  it("sits at the deterministic deployer's address for its init code, with exactly the artifact's runtime code", async () => {
    expect(getAddress(SIMULATING_LENS_ADDRESS)).toBe(deterministicAddress(lensArtifact.bytecode));
    expect((await codeAt(DETERMINISTIC_DEPLOYER)).toLowerCase()).toBe(DETERMINISTIC_DEPLOYER_CODE);
    expect(keccak256(await codeAt(SIMULATING_LENS_ADDRESS))).toBe(keccak256(lensArtifact.deployedBytecode));
    expect(DELEGATION_TO_LENS).toBe(`0xef0100${SIMULATING_LENS_ADDRESS.slice(2).toLowerCase()}`);
    expect((DELEGATION_TO_LENS.length - 2) / 2).toBe(23);
  });

  it("is delegated to: each key gets 23 bytes, and the answers are the whole code's, for a passing and a refused payment", async () => {
    const on = runtime();
    const [good, tooBig] = [await payment(on, 2_000_000n), await payment(on, 10n ** 30n)];
    placed = [];
    const { snapshots, outcomes } = await on.readAndSimulate([good.query, tooBig.query], [good.simulation, tooBig.simulation]);
    expect(placed.at(-1)).toEqual([DELEGATION_TO_LENS]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false]);
    expect(decodeRevert(outcomes[1]!.result)).toMatch(/^ExceedsPerTxLimit\(/);
    // The same simulations with the whole code at the key, on the same state (no block in between).
    expect(decodeReadAndSimulate(await rawCall(WHOLE_LENS_CODE, [good.simulation, tooBig.simulation])).outcomes).toEqual(outcomes);
    expect(snapshots).toEqual(await on.snapshots([good.query, tooBig.query], snapshots[0]!.blockNumber));
  });

  it("other code at the lens's address is never delegated to: a forged 'every simulation passes' is not believed", async () => {
    const on = runtime();
    const [good, tooBig] = [await payment(on, 2_000_000n), await payment(on, 10n ** 30n)];
    // Code that answers an empty readAndSimulate (the relayer's probe) as the lens does, and any
    // other call with the lens's answer for a passing payment, byte for byte.
    const passing = await rawCall(WHOLE_LENS_CODE, [good.simulation]);
    expect(decodeReadAndSimulate(passing).outcomes[0]!.ok).toBe(true);
    const forger = forgery((readAndSimulateCalldata([], []).length - 2) / 2, await rawCall(WHOLE_LENS_CODE, []), passing);
    await withCodeAtLens(forger, async () => {
      // Trusted, the forgery would pass the payment the vault refuses: the test can tell.
      expect(decodeReadAndSimulate(await rawCall(DELEGATION_TO_LENS, [tooBig.simulation])).outcomes[0]!.ok).toBe(true);
      expect(await lensOverrideCode(clientsFor(devnet.chain.provider, devnet.manifest.chainId).publicClient as never)).toBe(WHOLE_LENS_CODE);
      placed = [];
      await expectRefusedTooBig(on, tooBig);
      expect(placed.at(-1)).toEqual([WHOLE_LENS_CODE]);
    });
  });

  it("a lens gone under a running relayer (a chain reset) is noticed on the next call, which places the whole code and answers", async () => {
    const on = runtime();
    const tooBig = await payment(on, 10n ** 30n);
    await on.readAndSimulate([tooBig.query], [tooBig.simulation]);
    expect(placed.at(-1)).toEqual([DELEGATION_TO_LENS]);
    await withCodeAtLens("0x", async () => {
      placed = [];
      await expectRefusedTooBig(on, tooBig);
      expect(placed).toEqual([[DELEGATION_TO_LENS], [WHOLE_LENS_CODE]]);
    });
  });

  it("a call pinned to a block before the lens's deployment is made again with the whole code", async () => {
    const on = runtime();
    const good = await payment(on, 4_000_000n);
    const usdc = devnet.manifest.tokens.USDC!.address as Address;
    await on.readAndSimulate([good.query], [good.simulation]); // the runtime now delegates
    expect(placed.at(-1)).toEqual([DELEGATION_TO_LENS]);
    expect(await on.supportsStateOverride()).toBe(true); // its own probe, asked once, out of the way
    // The last block before the devnet deployed the lens.
    const publicClient = clientsFor(devnet.chain.provider, devnet.manifest.chainId).publicClient;
    let [without, withLens] = [0n, await on.latestBlock()];
    while (withLens - without > 1n) {
      const middle = (without + withLens) / 2n;
      if (((await publicClient.getCode({ address: SIMULATING_LENS_ADDRESS, blockNumber: middle })) ?? "0x") === "0x") without = middle;
      else withLens = middle;
    }
    // The vault came later too (the devnet seeds it after the suite): at that block the call finds no
    // vault and moves nothing, and the whole lens says so instead of the delegation answering nothing.
    expect((await publicClient.getCode({ address: good.simulation.to, blockNumber: without })) ?? "0x").toBe("0x");
    placed = [];
    const sim = await on.simulateOutflows(relayer, good.simulation.to, good.simulation.data, [usdc], without);
    expect(placed).toEqual([[DELEGATION_TO_LENS], [WHOLE_LENS_CODE]]);
    expect(sim).toMatchObject({ ok: true, result: "0x", outflows: [0n], ethOutflow: 0n });
    // The next call asks again, finds the lens at the latest block and delegates.
    placed = [];
    await on.readAndSimulate([good.query], [good.simulation]);
    expect(placed.at(-1)).toEqual([DELEGATION_TO_LENS]);
  });

  it("a node that refuses to run a delegation placed by an override gets the whole code", async () => {
    refuseDelegations = true;
    try {
      const on = runtime();
      const good = await payment(on, 2_000_000n);
      placed = [];
      const { outcomes } = await on.readAndSimulate([good.query], [good.simulation]);
      expect(placed).toEqual([[DELEGATION_TO_LENS], [WHOLE_LENS_CODE]]); // the probe, then the call
      expect(outcomes[0]!.ok).toBe(true);
    } finally {
      refuseDelegations = false;
    }
  });

  it("simulateOutflows delegates too, and reports what the whole code reports", async () => {
    const on = runtime();
    const good = await payment(on, 3_000_000n);
    const usdc = devnet.manifest.tokens.USDC!.address as Address;
    const block = await on.latestBlock();
    placed = [];
    const sim = await on.simulateOutflows(relayer, good.simulation.to, good.simulation.data, [usdc], block);
    expect(placed.at(-1)).toEqual([DELEGATION_TO_LENS]);
    expect(sim).toMatchObject({ ok: true, outflows: [3_000_000n], ethOutflow: 0n });
  });
});

describe("the deployed lens, called by anyone", () => {
  it("makes a bot-signed payment a stranger's call to the vault: refused, and nothing moves", async () => {
    const on = runtime();
    const good = await payment(on, 5_000_000n);
    const m = devnet.manifest;
    const usdc = m.tokens.USDC!.address as Address;
    const clients = clientsFor(devnet.chain.provider, m.chainId);
    const balance = (account: Address) => clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [account] });
    const [vaultBefore, recipientBefore] = [await balance(good.simulation.to), await balance("0x000000000000000000000000000000000000dEaD")];
    // Anyone sends the lens a transaction that has it call the vault with the bot's signed payment.
    const stranger = privateKeyToAccount(m.accounts.bots.reviewed.privateKey as Hex);
    const hash = await clients.walletFor(stranger).writeContract({
      address: SIMULATING_LENS_ADDRESS, abi: lensArtifact.abi, functionName: "simulateOutflows",
      args: [good.simulation.to, good.simulation.data, [usdc]], chain: null, account: stranger,
    } as never);
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success"); // the lens reports; the vault refused inside it
    const refused = await clients.publicClient.simulateContract({
      address: SIMULATING_LENS_ADDRESS, abi: lensArtifact.abi, functionName: "simulateOutflows",
      args: [good.simulation.to, good.simulation.data, [usdc]], account: stranger,
    } as never);
    const [ok, result] = refused.result as readonly [boolean, Hex];
    expect(ok).toBe(false);
    expect(decodeRevert(result)).toBe("NotAuthorizedRelayer()");
    expect([await balance(good.simulation.to), await balance("0x000000000000000000000000000000000000dEaD")]).toEqual([vaultBefore, recipientBefore]);
  });
});

/**
 * Runtime code that returns `probeAnswer` to a call of `probeLength` bytes of calldata and `answer` to
 * any other: CALLDATASIZE, PUSH2, EQ, PUSH1, JUMPI; CODECOPY and RETURN `answer`; JUMPDEST; CODECOPY
 * and RETURN `probeAnswer`; then both answers' bytes.
 */
function forgery(probeLength: number, probeAnswer: Hex, answer: Hex): Hex {
  const u16 = (n: number) => n.toString(16).padStart(4, "0");
  const [a, p] = [(answer.length - 2) / 2, (probeAnswer.length - 2) / 2];
  const header = 39;
  const returnBytes = (length: number, offset: number) => `61${u16(length)}61${u16(offset)}600039` + `61${u16(length)}6000f3`;
  const code = `3661${u16(probeLength)}14601757` + returnBytes(a, header) + "5b" + returnBytes(p, header + a);
  expect(code.length / 2).toBe(header);
  return `0x${code}${answer.slice(2)}${probeAnswer.slice(2)}`;
}
