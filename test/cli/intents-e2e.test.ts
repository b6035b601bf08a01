// `relay execute` and `relay swap` end to end against `relay serve`: the owner approves the lending
// pool with `relay owner`, the bot supplies to it on the fast path; an approval grant is held for
// review; swaps on the fast path and NO_SWAP_ROUTE; `relay sign execute|swap` bodies POSTed by hand.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, parseAbi, type Address } from "viem";
import { runMain } from "../helpers/cli.ts";
import { field, startLiveRelay, type LiveRelay } from "./support/live.ts";
import { tempDir } from "../helpers/temp-dir.ts";

let live: LiveRelay;
let usdc: Address;
let lending: Address;
let vault: Address;

beforeAll(async () => {
  live = await startLiveRelay("relay-cli-intents-");
  usdc = live.manifest.tokens.USDC!.address as Address;
  lending = live.manifest.contracts.lending as Address;
  vault = live.manifest.contracts.vault as Address;
});
afterAll(() => live?.stop());

const poolAbi = parseAbi(["function supply(address token, uint256 amount)"]);
const supplyCalldata = (amount: bigint) => encodeFunctionData({ abi: poolAbi, functionName: "supply", args: [usdc, amount] });

describe("relay execute", () => {
  it("fast path: the owner approves the lending pool, the bot supplies USDC to it, exit 0", async () => {
    const approved = await live.relay(["owner", "protocol", "approve", "lending"]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^done +approved protocol ${lending}\\ntxHash +0x[0-9a-f]{64}\\n$`));
    expect((await live.relay(["vault", "protocol", "lending"])).stdout).toBe("approved  true\n");

    const poolBefore = await live.balanceOf("USDC", lending);
    const sent = await live.relay(["execute", "--protocol", "lending", "--calldata", supplyCalldata(100_000_000n), "--token", "USDC", "--amount", "100", "--protocol-name", "lending pool", "--json"]);
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
    const result = JSON.parse(sent.stdout) as { requestId: string; status: string; txHash: string };
    expect(result).toEqual({ requestId: expect.stringMatching(/^req_/), status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await live.balanceOf("USDC", lending)).toBe(poolBefore + 100_000_000n);

    const status = await live.relay(["status", result.requestId]);
    expect(status.code).toBe(0);
    expect(status.stdout).toBe(`status     approved\nrequestId  ${result.requestId}\nkind       execute\ntxHash     ${result.txHash}\n`);
  });

  it("an approval grant is held for review (exit 4) and runs once the owner approves it", async () => {
    const spender = "0x00000000000000000000000000000000000000dd" as Address;
    const grant = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, 1_000_000n] });
    const held = await live.relay(["execute", "--protocol", "USDC", "--calldata", grant]);
    expect(held.code).toBe(4);
    expect(field(held.stdout, "status")).toBe("pending_review");
    expect(field(held.stdout, "kind")).toBe("execute");
    const requestId = field(held.stdout, "requestId")!;
    expect(held.stderr).toBe(`relay: held for review; follow it with \`relay status ${requestId} --wait\`\n`);
    const allowance = () => live.clients.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [vault, spender] });
    expect(await allowance()).toBe(0n);

    const shown = await live.relay(["review", "show", requestId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^Request: +${requestId} \\(execute, pending_review\\)$`, "m"));

    const decided = await live.relay(["review", "approve", requestId]);
    expect(decided.code).toBe(0);
    expect(decided.stdout).toMatch(new RegExp(`^${requestId}: approved, tx 0x[0-9a-f]{64}\\n$`));
    expect(await allowance()).toBe(1_000_000n);
    expect((await live.relay(["status", requestId, "--json"])).code).toBe(0);
  });

  it("a call that reverts is refused with the decoded reason on one line, exit 3", async () => {
    // No --token/--amount: the vault grants the pool no allowance, so the pool's transferFrom fails.
    const { code, stdout, stderr } = await live.relay(["execute", "--protocol", "lending", "--calldata", supplyCalldata(5_000_000n)]);
    expect(code).toBe(3);
    expect(stdout).toBe("");
    expect(stderr).toBe(`relay: relayer refused: SIMULATION_FAILED: Transaction simulation failed (ERC20InsufficientAllowance(${lending}, 0, 5000000))\n`);
  });

  it("refuses malformed calldata, unpaired --token/--amount and unknown names before signing, exit 2", async () => {
    const odd = await live.relay(["execute", "--protocol", "lending", "--calldata", "0x123"]);
    expect(odd).toEqual({ code: 2, stdout: "", stderr: "relay: --calldata must be 0x-prefixed hex of whole bytes\n" });
    const unpaired = await live.relay(["execute", "--protocol", "lending", "--calldata", "0x", "--token", "USDC"]);
    expect(unpaired).toEqual({ code: 2, stdout: "", stderr: "relay: give one --amount per --token (got 1 tokens, 0 amounts)\n" });
    const unknown = await live.relay(["execute", "--protocol", "bank", "--calldata", "0x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^relay: --protocol "bank" is not an address, a name in the devnet manifest or a token symbol \(known: .*lending.*USDC.*\)\n$/);
  });
});

describe("relay swap", () => {
  it("fast path: USDC to WETH, exit 0; the vault's balances move on-chain", async () => {
    const usdcBefore = await live.balanceOf("USDC", vault);
    const wethBefore = await live.balanceOf("WETH", vault);
    const { code, stdout, stderr } = await live.relay(["swap", "--from-token", "USDC", "--max-from-amount", "3000", "--to-token", "WETH", "--min-to-amount", "0.9"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(field(stdout, "status")).toBe("approved");
    expect(field(stdout, "kind")).toBe("swap");
    expect(field(stdout, "txHash")).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await live.balanceOf("USDC", vault)).toBe(usdcBefore - 3_000_000_000n);
    // $3000 of WETH at $3000, less the router's 0.3% fee.
    expect((await live.balanceOf("WETH", vault)) - wethBefore).toBe(997_000_000_000_000_000n);

    // A CLI that did not send it finds the swap by its id alone, or told its kind.
    const requestId = field(stdout, "requestId")!;
    const elsewhere = tempDir("relay-cli-other-");
    for (const kind of [[], ["--kind", "swap"]]) {
      const run = runMain(["status", requestId, ...kind, "--relayer-url", live.manifest.relayerUrl!, "--state-dir", elsewhere]);
      expect(await run.done).toBe(0);
      expect(field(run.output.stdout, "kind")).toBe("swap");
    }
    const wrongKind = runMain(["status", requestId, "--kind", "payment", "--relayer-url", live.manifest.relayerUrl!, "--state-dir", elsewhere]);
    // Not found is a failure (1) whether or not the kind was given, never "rejected" (3).
    expect(await wrongKind.done).toBe(1);
    expect(wrongKind.output.stderr).toBe(`relay: no payment ${requestId} at ${live.manifest.relayerUrl}\n`);
    const unknown = runMain(["status", "req_nosuchrequest000000000000", "--relayer-url", live.manifest.relayerUrl!, "--state-dir", elsewhere]);
    expect(await unknown.done).toBe(1);
    expect(unknown.output.stderr).toBe(`relay: no payment, execution, swap or x402 authorization req_nosuchrequest000000000000 at ${live.manifest.relayerUrl}\n`);
  });

  it("NO_SWAP_ROUTE: exit 3 with the relayer's reason on stderr, and nothing moves", async () => {
    const usdt = live.manifest.tokens.USDT!.address as Address;
    const router = live.manifest.contracts.router as Address;
    await live.operator().call(router, "mocks/MockSwapRouter", "setPairEnabled", [usdc, usdt, false]);
    const before = await live.balanceOf("USDC", vault);
    const { code, stdout, stderr } = await live.relay(["swap", "--from-token", "USDC", "--max-from-amount", "100", "--to-token", "USDT", "--min-to-amount", "99"]);
    expect(code).toBe(3);
    expect(stdout).toBe("");
    expect(stderr).toBe(`relay: relayer refused: NO_SWAP_ROUTE: No swap route for the token pair (no router quotes ${usdc} → ${usdt})\n`);
    expect(await live.balanceOf("USDC", vault)).toBe(before);
  });
});

describe("relay sign execute|swap, then POST the body by hand", () => {
  it("both bodies are accepted by the relayer", async () => {
    const execute = await live.relay(["sign", "execute", "--protocol", "lending", "--calldata", supplyCalldata(1_000_000n), "--token", "USDC", "--amount", "1"]);
    expect(execute.code).toBe(0);
    const swap = await live.relay(["sign", "swap", "--from-token", "USDC", "--max-from-amount", "10", "--to-token", "WETH", "--min-to-amount", "0.001", "--json"]);
    expect(swap.code).toBe(0);
    expect(swap.stdout.trimEnd().split("\n")).toHaveLength(1);
    for (const [route, body] of [["execute", execute.stdout], ["swap", swap.stdout]] as const) {
      const res = await fetch(`${live.manifest.relayerUrl}/v1/${route}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    }
  });
});
