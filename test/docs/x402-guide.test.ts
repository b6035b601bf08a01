// docs/guides/x402.md as a reader uses it, against a real `relay serve` whose state directory is the
// `.relay` of the folder the reader works in: the console session's `$ ` lines run in one bash, as
// pasted (`relay` on the PATH), each step's exit code and shown output checked; the review block's two
// commands run in two shells, the owner's approval with the held request's id put in; the `payingFetch`
// script run by Node from a folder where `relay-client` (built from this repository) and viem are
// installed. The chain is read to prove what each step paid: the demo's merchant, exactly the price
// per purchase, nothing for a refusal or a held request.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { projectRoot } from "../../src/paths.ts";
import { DEMO_PRICE_ATOMIC, X402_MERCHANT_INDEX } from "../../src/x402/devnet.ts";
import { spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { codeBlocks, section } from "./support/markdown.ts";

const GUIDE = "docs/guides/x402.md";
const session = codeBlocks(section(GUIDE, "Try it on the devnet")).find((b) => b.lang === "console")!.body;
const reviewBlock = codeBlocks(section(GUIDE, "A payment held for review")).find((b) => b.lang === "sh")!.body;
const script = codeBlocks(section(GUIDE, "From a bot: `payingFetch`")).find((b) => b.lang === "js")!.body;
const PRICE = BigInt(DEMO_PRICE_ATOMIC);
const merchant = devKeyPair(X402_MERCHANT_INDEX).address;

let work: string;
let relay: SpawnedRelay;
let manifest: Manifest;

const env = () => ({ ...process.env, PATH: `${path.join(projectRoot, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}` });
const paid = () =>
  clientsFor(manifest.rpcUrl, manifest.chainId).publicClient.readContract({ address: manifest.tokens.USDC!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [merchant] });

function bash(text: string): { child: ReturnType<typeof spawn>; out: { stdout: string; stderr: string }; done: Promise<number> } {
  const child = spawn("bash", ["--norc", "-c", text], { cwd: work, env: env(), stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (d: Buffer) => (out.stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out.stderr += d.toString()));
  return { child, out, done: new Promise((resolve) => child.on("close", (code) => resolve(code ?? -1))) };
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "relay-docs-x402-"));
  relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", path.join(work, ".relay")]);
  await relay.waitFor(/relay: ready/);
  manifest = JSON.parse(readFileSync(path.join(work, ".relay", "devnet.json"), "utf8"));
}, 180_000);
afterAll(() => {
  if (relay !== undefined && relay.child.exitCode === null) relay.child.kill("SIGKILL");
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe(GUIDE, () => {
  it("its console session runs as written: each step's exit code and shown output, and exactly two purchases paid", async () => {
    const lines = session.split("\n");
    const steps: Array<{ command: string; exit: number; shown: string[] }> = [];
    for (const line of lines) {
      if (line.startsWith("$ ")) {
        const exit = /#\s*exit (\d+)/.exec(line);
        steps.push({ command: line.slice(2).replace(/\s+#.*$/, ""), exit: exit ? Number(exit[1]) : 0, shown: [] });
      } else if (line !== "") steps.at(-1)!.shown.push(line);
    }
    expect(steps.map((s) => s.exit)).toEqual([0, 0, 0, 3, 4]);
    const before = await paid();
    const run = bash(steps.map((s, i) => `${s.command} > out.${i} 2> err.${i}; echo "@@step $?"`).join("\n"));
    expect(await run.done).toBe(0);
    const codes = [...run.out.stdout.matchAll(/^@@step (\d+)$/gm)].map((m) => Number(m[1]));
    const stdout = (i: number) => readFileSync(path.join(work, `out.${i}`), "utf8");
    const stderr = (i: number) => readFileSync(path.join(work, `err.${i}`), "utf8");
    for (const [i, step] of steps.entries()) {
      expect({ command: step.command, code: codes[i], stderr: codes[i] === step.exit ? "" : stderr(i) }).toEqual({ command: step.command, code: step.exit, stderr: "" });
      if (step.shown.length > 0) expect(stdout(i)).toBe(`${step.shown.join("\n")}\n`);
    }
    // The --json step: the merchant's answer and the payment behind it.
    expect(JSON.parse(stdout(2))).toMatchObject({ status: 200, body: { paid: true }, payment: { status: "approved", mode: "funding", txHash: expect.stringMatching(/^0x/), settlementTx: expect.stringMatching(/^0x/) } });
    expect(stderr(3)).toMatch(/^relay: the price 0\.01 USDC is above --max 0\.005; nothing was paid$/m);
    expect(stderr(4)).toMatch(/^relay: payment req_\w+ is held for the owner's review; nothing was paid/m);
    expect(await paid()).toBe(before + 2n * PRICE);
  });

  it("its review block runs as written: the purchase waits for the owner, then completes", async () => {
    const [waitLine, approveLine] = reviewBlock.split("\n").filter((l) => l.startsWith("relay ")).map((l) => l.replace(/\s+#.*$/, ""));
    const demoLine = session.split("\n").find((l) => l.startsWith("$ demo="))!.slice(2);
    const before = await paid();
    const waiting = bash(`${demoLine}\n${waitLine}`);
    try {
      await waitsThenCompletes(waiting, approveLine!, before);
    } finally {
      if (waiting.child.exitCode === null) waiting.child.kill("SIGKILL");
    }
  }, 120_000);

  async function waitsThenCompletes(waiting: ReturnType<typeof bash>, approveLine: string, before: bigint): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!/held for the owner's review; waiting/.test(waiting.out.stderr)) {
      if (Date.now() > deadline) throw new Error(`not held: ${waiting.out.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const requestId = /payment (req_\w+) held/.exec(waiting.out.stderr)![1]!;
    expect(await paid()).toBe(before);
    const approve = bash(approveLine.replace("<request id>", requestId));
    expect({ code: await approve.done, stderr: approve.out.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await waiting.done).toBe(0);
    expect(JSON.parse(waiting.out.stdout)).toEqual({ report: "relay devnet demo report", paid: true });
    expect(await paid()).toBe(before + PRICE);
  }

  it("its payingFetch script runs as written with relay-client installed, and buys the demo", async () => {
    // relay-client built from this repository's sources in a folder of its own, installed beside viem.
    const client = path.join(work, "relay-client");
    mkdirSync(client);
    for (const file of ["src", "package.json", "build.mjs", "tsconfig.build.json", "tsconfig.cjs.json", "README.md"]) {
      cpSync(path.join(projectRoot, "packages", "client", file), path.join(client, file), { recursive: true });
    }
    symlinkSync(path.join(projectRoot, "node_modules"), path.join(work, "node_modules"));
    const build = bash(`node relay-client/build.mjs`);
    expect({ code: await build.done, stderr: build.out.stderr }).toEqual({ code: 0, stderr: "" });
    const app = path.join(work, "app");
    mkdirSync(path.join(app, "node_modules"), { recursive: true });
    symlinkSync(client, path.join(app, "node_modules", "relay-client"));
    writeFileSync(path.join(app, "buy.mjs"), script);

    const before = await paid();
    const child = spawn(process.execPath, ["buy.mjs"], {
      cwd: app,
      env: {
        ...process.env,
        RELAY_URL: manifest.relayerUrl!,
        RELAY_RPC_URL: manifest.rpcUrl,
        RELAY_VAULT: manifest.contracts.vault,
        RELAY_BOT_KEY: manifest.accounts.bots.default.privateKey,
        PAYWALL_URL: manifest.x402!.demoUrl,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toMatch(/^200 \{ report: 'relay devnet demo report', paid: true \} 0x[0-9a-f]{64}\n$/);
    expect(await paid()).toBe(before + PRICE);
  }, 180_000);
});
