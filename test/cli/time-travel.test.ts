// Time travel on a devnet, with the real CLI against `relay serve` (a devnet plus a relayer): the
// relayer's clock follows the chain's, so a daily limit resets after `relay time advance 24h`, a
// held review lapses after `relay time advance` past the review window, and `relay review approve`
// signs its approval's deadline from the chain's time; the docs' example, run by a shell as written,
// holds on a devnet already used; and pay, pay, advance 24h, pay run back to back many times always
// approves the last payment (the relayer learns the move when it passes through the devnet's RPC
// server, to the second, not from a block read a second later). The chain is read to see what moved.
// (Refusals off a devnet: test/security/devnet-only.test.ts.)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { manifestPath, readManifest, type Manifest } from "../../src/devnet/manifest.ts";
import { parseDuration, parseInstant } from "../../src/cli/commands/time.ts";
import { projectRoot } from "../../src/paths.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";
import { codeBlocks, section } from "../docs/support/markdown.ts";
import { payAdvancePay } from "./support/day-loops.ts";

const REVIEW_WINDOW_SECONDS = 3_600;

/**
 * The time-travel example of the docs (docs/guides/bot-authors.md, "Outcomes on demand and time
 * travel"), read from the page itself: its one console block. It adds a bot of its own so that it holds
 * on any devnet: the default bot's 24 h window may already have payments in it. A `# approved` /
 * `# exit N: CODE` comment is what the step must do.
 */
const DOCS_EXAMPLE = codeBlocks(section("docs/guides/bot-authors.md", "Outcomes on demand and time travel (devnet)")).filter((b) => b.lang === "console")[0]!.body;

/**
 * Runs the \`$ \` lines of a console example in one bash, in the project's directory with the test's
 * state directory (RELAY_STATE_DIR), as a reader pasting them would: each step's exit code and output.
 */
async function runConsole(example: string): Promise<Array<{ command: string; code: number; output: string }>> {
  const commands = example.split("\n").filter((line) => line.startsWith("$ ")).map((line) => line.slice(2));
  const script = ["exec 2>&1", ...commands.flatMap((command) => [command, 'echo "@@step $?"'])].join("\n");
  const child = spawn("bash", ["-c", script], {
    cwd: projectRoot,
    env: { ...process.env, RELAY_STATE_DIR: stateDir, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.on("close", resolve));
  const parts = output.split(/^@@step (\d+)\n/m);
  return commands.map((command, i) => ({ command, output: parts[2 * i]!, code: Number(parts[2 * i + 1]) }));
}

let stateDir: string;
let serve: InProcessRun;
let manifest: Manifest;

async function relay(...argv: string[]) {
  return relayAs({}, ...argv);
}

async function relayAs(env: Record<string, string>, ...argv: string[]) {
  const run = runMain([...argv, "--state-dir", stateDir], env);
  const code = await run.done;
  return { code, ...run.output };
}

const chain = () => clientsFor(manifest.rpcUrl, manifest.chainId).publicClient;
const usdcOf = (holder: Address) =>
  chain().readContract({ address: manifest.tokens.USDC!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [holder] });
const chainTime = async () => Number((await chain().getBlock({ blockTag: "latest" })).timestamp);

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(tmpdir(), "relay-time-"));
  serve = runMain(["serve", "--port", "0", "--rpc-port", "0", "--review-window", String(REVIEW_WINDOW_SECONDS), "--state-dir", stateDir]);
  await serve.waitFor(/relay: ready/, 120_000);
  manifest = readManifest(manifestPath(stateDir));
}, 180_000);

afterAll(async () => {
  serve?.stop();
  await serve?.done;
  rmSync(stateDir, { recursive: true, force: true });
});

describe("parsing durations and instants", () => {
  it("reads 30s, 90m, 24h, 2d and plain seconds; refuses anything else", () => {
    expect([parseDuration("30s"), parseDuration("90m"), parseDuration("24h"), parseDuration("2d"), parseDuration("45")]).toEqual([30, 5_400, 86_400, 172_800, 45]);
    for (const bad of ["", "0", "-1", "1.5h", "2w", "h", "24 h x"]) expect(() => parseDuration(bad)).toThrow(/duration/);
  });

  it("reads ISO-8601 and unix seconds", () => {
    expect(parseInstant("2030-01-01T00:00:00Z")).toBe(1_893_456_000);
    expect(parseInstant("1893456000")).toBe(1_893_456_000);
    for (const bad of ["tomorrow", "2030-13-45T00:00:00Z", "-5"]) expect(() => parseInstant(bad)).toThrow(/ISO-8601/);
  });
});

describe("relay time on a devnet", () => {
  it("prints the chain's time, ISO and unix", async () => {
    const shown = await relay("time");
    expect(shown.code).toBe(0);
    const [, iso, unix] = /^(\S+Z) \((\d+)\)\n$/.exec(shown.stdout)!;
    expect(Date.parse(iso!) / 1000).toBe(Number(unix));
    expect(Number(unix)).toBe(await chainTime());
    const json = JSON.parse((await relay("time", "--json")).stdout) as { time: string; unix: number };
    expect(json.unix).toBe(await chainTime());
  });

  it("set moves forward only: backwards is a clear usage error and nothing moves", async () => {
    const before = await chainTime();
    const back = await relay("time", "set", String(before - 3_600));
    expect(back.code).toBe(2);
    expect(back.stderr).toMatch(/^relay: .* is not after the chain's time .*: time only moves forward/);
    expect(await chainTime()).toBe(before);
    const target = before + 120;
    const set = await relay("time", "set", new Date(target * 1000).toISOString());
    expect(set.code).toBe(0);
    expect(await chainTime()).toBe(target);
  });

  it("a daily limit refused (EXCEEDS_DAILY_LIMIT), `relay time advance 24h`, the same payment approved", async () => {
    const bot = "default";
    expect((await relay("owner", "bot", "update", bot, "--daily-limit", "10")).code).toBe(0);
    const payee = privateKeyToAddress(generatePrivateKey());
    const pay = () => relay("pay", "--to", payee, "--amount", "6", "--token", "USDC", "--json");

    expect((await pay()).code).toBe(0);
    const refused = await pay();
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/EXCEEDS_DAILY_LIMIT/);
    expect(await usdcOf(payee)).toBe(6_000_000n);

    const before = await chainTime();
    const advanced = await relay("time", "advance", "24h");
    expect(advanced.code).toBe(0);
    expect(await chainTime()).toBeGreaterThanOrEqual(before + 86_400);

    // A new signed intent (relay pay signs its deadline from the chain's time on a devnet).
    const again = await pay();
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await usdcOf(payee)).toBe(12_000_000n);
  }, 120_000);

  it("the docs' example, run as written by a shell on a devnet already used: a bot of its own, 6 + 6 refused, advance 24h, 6 approved", async () => {
    // Used: the default bot's window holds payments (the old example, which paid as the default bot,
    // was refused at its first step here).
    expect((await relay("owner", "bot", "update", "default", "--daily-limit", "10")).code).toBe(0);
    await relay("pay", "--to", "owner", "--amount", "6", "--token", "USDC");
    const used = await relay("pay", "--to", "owner", "--amount", "6", "--token", "USDC");
    expect(used.code).toBe(3);
    expect(used.stderr).toMatch(/EXCEEDS_DAILY_LIMIT/);

    const owner = manifest.accounts.owner.address as Address;
    const ownerBefore = await usdcOf(owner);
    const steps = await runConsole(DOCS_EXAMPLE);
    expect(steps.map((step) => step.command)).toEqual(DOCS_EXAMPLE.split("\n").filter((line) => line.startsWith("$ ")).map((line) => line.slice(2)));
    for (const step of steps) {
      const said = /#\s*(approved|exit (\d+): (\w+))\s*$/.exec(step.command);
      if (said?.[1] === "approved") {
        expect(step.output, step.command).toMatch(/^status +approved$/m);
        expect(step.code, step.output).toBe(0);
      } else if (said !== null) {
        expect(step.code, step.output).toBe(Number(said[2]));
        expect(step.output, step.command).toContain(said[3]);
      } else {
        expect(step.code, `${step.command}\n${step.output}`).toBe(0);
      }
    }
    expect(steps.find((step) => step.command.includes("time advance"))!.output).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+\)$/m);
    // Two payments of 6 reached the owner, the refused one moved nothing.
    expect(await usdcOf(owner)).toBe(ownerBefore + 12_000_000n);
  }, 180_000);

  it("pay 6, pay 6 (refused), advance 24h, pay 6, back to back 20 times with a fresh bot each: the last payment is always approved", async () => {
    await payAdvancePay({ relay: relayAs, usdcOf, vault: manifest.contracts.vault as Address, loops: 20 });
  }, 240_000);

  it("a next block's timestamp set through the devnet's RPC server and mined seconds later leaves the relayer's clock on the chain's: pay, pay (refused), advance 24h, pay approves", async () => {
    // Until its block is mined, the pending block carries the timestamp set, not the chain's lead over
    // the wall clock: a clock that learnt it then ran ahead of the chain by the seconds until the block
    // was mined, for good, and a day after a spend fell that much short on the chain. The block is
    // mined by evm_mine, then by the owner's transaction adding the next loop's bot.
    const rpc = (method: string, params: unknown[] = []) => chain().request({ method, params } as never);
    const pending = async () => Number((await chain().getBlock({ blockTag: "pending" })).timestamp);
    for (const mine of [() => rpc("evm_mine"), async () => {}]) {
      const at = (await pending()) + 60;
      await rpc("evm_setNextBlockTimestamp", [at]);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await mine();
      await payAdvancePay({ relay: relayAs, usdcOf, vault: manifest.contracts.vault as Address, loops: 2 });
    }
  }, 120_000);

  it("a held review lapses after `relay time advance` past the review window: rejected REVIEW_EXPIRED, nothing moves", async () => {
    const payee = privateKeyToAddress(generatePrivateKey());
    const vaultBefore = await usdcOf(manifest.contracts.vault as Address);
    const held = await relay("pay", "--bot", "reviewed", "--to", payee, "--amount", "1", "--token", "USDC", "--json");
    expect(held.code).toBe(4);
    const { requestId, status } = JSON.parse(held.stdout) as { requestId: string; status: string };
    expect(status).toBe("pending_review");

    // Not yet: the window has not ended by either clock.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(JSON.parse((await relay("status", requestId, "--json")).stdout).status).toBe("pending_review");

    expect((await relay("time", "advance", String(REVIEW_WINDOW_SECONDS + 60))).code).toBe(0);
    // The relayer's sweep (every second) reads the chain's new time, then lapses the review.
    let answer: { status: string; errorCode?: string } = { status: "pending_review" };
    for (let i = 0; i < 50 && answer.status === "pending_review"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      answer = JSON.parse((await relay("status", requestId, "--json")).stdout);
    }
    expect(answer).toMatchObject({ status: "rejected", errorCode: "REVIEW_EXPIRED" });
    expect(await usdcOf(payee)).toBe(0n);
    expect(await usdcOf(manifest.contracts.vault as Address)).toBe(vaultBefore);
  }, 120_000);

  it("relay review approve after `relay time advance`: the approval's deadline counts from the chain's time, and the payment executes", async () => {
    const payee = privateKeyToAddress(generatePrivateKey());
    const held = await relay("pay", "--bot", "reviewed", "--to", payee, "--amount", "1", "--token", "USDC", "--json");
    expect(held.code).toBe(4);
    const { requestId } = JSON.parse(held.stdout) as { requestId: string };
    // The tests above moved the chain more than a day ahead of the wall clock: an approval valid for
    // an hour of wall-clock time would have passed its deadline there.
    expect(await chainTime()).toBeGreaterThan(Math.floor(Date.now() / 1000) + 86_400);
    const approved = await relay("review", "approve", requestId, "--json");
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ requestId, status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await usdcOf(payee)).toBe(1_000_000n);
  }, 120_000);

  it("relay pay --scenario <value> is metadata.scenario: a $2 payment with ai-no-consensus is held, nothing moves", async () => {
    const payee = privateKeyToAddress(generatePrivateKey());
    const held = await relay("pay", "--to", payee, "--amount", "2", "--token", "USDC", "--scenario", "ai-no-consensus", "--json");
    expect(held.code).toBe(4);
    expect(JSON.parse(held.stdout)).toMatchObject({ status: "pending_review" });
    expect(await usdcOf(payee)).toBe(0n);
  });
});
