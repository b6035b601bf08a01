// A bot author's first hour, as CI runs it: the bot authors' guide's commands run as written
// (docs/guides/bot-authors.md, "Write a bot"): from an empty folder beside a clone, the client package
// is packed (its prepack builds it) and installed from the tarball with viem, and examples/bot.mjs
// copied in; examples/bot.mjs and examples/owner.mjs then run there under a real Node 20 with no
// loader, against a live `relay serve` (devnet + relayer over real HTTP). What they print is checked,
// and the chain is read to prove what moved. The same scripts are type-checked with tsc against the
// installed package's .d.ts.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { projectRoot } from "../../src/paths.ts";
import { startLiveRelay, type LiveRelay } from "../cli/support/live.ts";
import { node20 } from "../support/node20.ts";
import { codeBlocks, section } from "../docs/support/markdown.ts";
import { exec, lockedVersion, type Result } from "./support/programs.ts";

const packageDir = path.join(projectRoot, "packages", "client");
const examplesDir = path.join(projectRoot, "examples");
const tsc = path.join(projectRoot, "node_modules", "typescript", "bin", "tsc");


interface Packed {
  filename: string;
  size: number;
  files: Array<{ path: string }>;
}

let work: string;
let clone: string;
let app: string;
let packed: Packed;
let live: LiveRelay;
let node: string;

/** The guide's shell blocks in "Write a bot": the install from an empty folder, then the bot's run. */
const [installBlock, runBlock] = codeBlocks(section("docs/guides/bot-authors.md", "Write a bot"))
  .filter((block) => block.lang === "sh")
  .map((block) => block.body);

/**
 * A clone as the guide has it, `relay/` in the folder the reader starts from: this repository's
 * client package and examples, and a `.relay/` of its own for the live relayer's manifest (the
 * repository's own `.relay/` is left alone).
 */
function cloneBeside(): void {
  mkdirSync(path.join(clone, ".relay"), { recursive: true });
  for (const dir of ["packages", "examples"]) symlinkSync(path.join(projectRoot, dir), path.join(clone, dir));
}

/** Runs a guide's shell block with bash, stopping at the first failing command. */
function bash(block: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Result> {
  return exec("bash", ["--norc", "-eo", "pipefail", "-c", block], { cwd, env: { ...env, npm_config_audit: "false", npm_config_fund: "false", npm_config_prefer_offline: "true" } });
}

/** The guide's install block, as written, from the folder beside the clone; then what the type-check needs. */
async function installAsTheGuideSays(): Promise<void> {
  const install = await bash(installBlock!, work);
  expect(install.code, install.stderr).toBe(0);
  const filename = "relay-client-0.1.0.tgz";
  const listed = await exec("tar", ["-tzf", filename], { cwd: app });
  packed = { filename, size: statSync(path.join(app, filename)).size, files: listed.stdout.trim().split("\n").map((entry) => ({ path: entry.replace(/^package\//, "") })) };
  const types = await exec("npm", ["install", "--no-save", `@types/node@${lockedVersion("@types/node")}`, "--prefer-offline", "--no-audit", "--no-fund"], { cwd: app });
  expect(types.code, types.stderr).toBe(0);
  for (const file of ["owner.mjs", "tsconfig.json"]) copyFileSync(path.join(examplesDir, file), path.join(app, file));
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "relay-examples-"));
  clone = path.join(work, "relay");
  app = path.join(work, "my-bot");
  cloneBeside();
  node = node20();
  [live] = await Promise.all([startLiveRelay("relay-examples-live-"), installAsTheGuideSays()]);
  copyFileSync(path.join(live.stateDir, "devnet.json"), path.join(clone, ".relay", "devnet.json"));
}, 300_000);

afterAll(async () => {
  await live?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** The settings the CLI and the example scripts read, for the devnet's vault and `bot`. */
function settings(bot: "default" | "reviewed"): NodeJS.ProcessEnv {
  const { manifest } = live;
  return {
    PATH: process.env.PATH,
    RELAY_URL: manifest.relayerUrl,
    RELAY_RPC_URL: manifest.rpcUrl,
    RELAY_CHAIN_ID: String(manifest.chainId),
    RELAY_VAULT: manifest.contracts.vault,
    RELAY_BOT_KEY: manifest.accounts.bots[bot]!.privateKey,
    RELAY_OWNER_KEY: manifest.accounts.owner.privateKey,
  };
}

/** `node bot.mjs --to <recipient> --token <USDC> --amount <amount> …` under Node 20, as bot `bot`. */
function bot(recipient: Address, amount: string, more: string[] = [], as: "default" | "reviewed" = "default"): Promise<Result> {
  const args = ["bot.mjs", "--to", recipient, "--amount", amount, "--token", live.manifest.tokens.USDC!.address, ...more];
  return exec(node, args, { cwd: app, env: settings(as) });
}

/** Starts `node bot.mjs …` like `bot`, for one that waits: its first line arrives before it ends. */
function startBot(recipient: Address, amount: string, more: string[], as: "default" | "reviewed"): { firstLine: Promise<string>; done: Promise<Result> } {
  const args = ["bot.mjs", "--to", recipient, "--amount", amount, "--token", live.manifest.tokens.USDC!.address, ...more];
  const child = spawn(node, args, { cwd: app, env: settings(as), stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  let firstLine: (line: string) => void = () => {};
  const first = new Promise<string>((resolve) => (firstLine = resolve));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out.stdout += chunk;
    if (out.stdout.includes("\n")) firstLine(out.stdout.slice(0, out.stdout.indexOf("\n")));
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out.stderr += chunk));
  const done = new Promise<Result>((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, ...out })));
  void done.then((result) => firstLine(result.stdout.split("\n")[0]!));
  return { firstLine: first, done };
}

function owner(args: string[]): Promise<Result> {
  return exec(node, ["owner.mjs", ...args], { cwd: app, env: settings("default") });
}

const usdc = (recipient: Address) => live.balanceOf("USDC", recipient);
const freshRecipient = (): Address => privateKeyToAccount(generatePrivateKey()).address;
const STATUS = /^status (\S+) request (\S+)$/;

describe("the client package", () => {
  it("packs small: only dist/, package.json and README.md, under 100 kB", () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths.filter((p) => !/^(dist\/.+|package\.json|README\.md)$/.test(p))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/cjs/index.js", "dist/cjs/index.d.ts", "dist/cjs/package.json"]));
    expect(packed.size).toBeLessThan(100_000);
  });

  it("ships no node: import, no undici, no Buffer or process (Bun and browsers) and no .ts import path", () => {
    const dist = path.join(app, "node_modules", "relay-client", "dist");
    const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((file) => /\.(js|d\.ts)$/.test(file));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const text = readFileSync(path.join(dist, file), "utf8");
      const found = {
        node: /["']node:/.test(text),
        undici: /undici/.test(text),
        nodeGlobals: /\b(Buffer|process)\./.test(text),
        tsPath: /["']\.{1,2}\/[^"']+\.ts["']/.test(text),
      };
      expect({ file, ...found }).toEqual({ file, node: false, undici: false, nodeGlobals: false, tsPath: false });
    }
  });

  it("loads under Node 20 both ways: import and require", async () => {
    const esm = await exec(node, ["--input-type=module", "-e", 'import { parseUnits, RelayClient } from "relay-client"; console.log(parseUnits("5", 6), typeof RelayClient)'], { cwd: app });
    const cjs = await exec(node, ["-e", 'const { formatUnits, RelayApiError } = require("relay-client"); console.log(formatUnits(5000000n, 6), typeof RelayApiError)'], { cwd: app });
    expect([esm, cjs]).toEqual([
      { code: 0, stdout: "5000000n function\n", stderr: "" },
      { code: 0, stdout: "5 function\n", stderr: "" },
    ]);
  });
});

describe("examples/bot.mjs, installed beside the package and run under Node 20", () => {
  it("runs on a real Node 20 with no loader", async () => {
    expect((await exec(node, ["-p", "process.versions.node"], { cwd: app })).stdout).toMatch(/^20\./);
  });

  it("runs as the guide says: its settings from the clone's manifest, then node bot.mjs pays", async () => {
    // The guide's block, in the same shell as its install (so `relay` names the clone), with Node 20
    // first on PATH; only the relayer's and the chain's ports are the live ones instead of the defaults.
    const { relayerUrl, rpcUrl } = live.manifest;
    const block = runBlock!.replaceAll("http://127.0.0.1:8787", relayerUrl!).replaceAll("http://127.0.0.1:8545", rpcUrl);
    expect(block).not.toBe(runBlock);
    expect(live.manifest.chainId).toBe(84532);
    const recipient = "0x976EA74026E726554dB657fA54763abd0C3a0aa9" as Address;
    const before = await usdc(recipient);
    const result = await bash(block, app, { PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`, HOME: process.env.HOME, relay: clone });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^status approved request req_\w+\n$/);
    expect(await usdc(recipient)).toBe(before + 5_000_000n);
  });

  it("pays: an approved payment, and the recipient holds it on-chain", async () => {
    const recipient = freshRecipient();
    const result = await bot(recipient, "5", ["--memo", "example bot"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^status approved request \S+\n$/);
    expect(await usdc(recipient)).toBe(5_000_000n);
  });

  it("waits: a payment held for review that approves itself (scenario review-approve:1) ends approved", { timeout: 120_000 }, async () => {
    const recipient = freshRecipient();
    const result = await bot(recipient, "2", ["--scenario", "review-approve:1", "--wait"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const lines = result.stdout.trim().split("\n").map((line) => STATUS.exec(line));
    expect(lines.map((match) => match?.[1])).toEqual(["pending_review", "approved"]);
    expect(lines[1]![2]).toBe(lines[0]![2]);
    expect(await usdc(recipient)).toBe(2_000_000n);
  });

  it("is refused above the bot's per-transaction cap with the typed error, exits 1, and nothing moves", async () => {
    const { manifest } = live;
    const vault = manifest.contracts.vault as Address;
    const config = (await live.clients.publicClient.readContract({
      address: vault,
      abi: readArtifact("ServiceVault").abi,
      functionName: "getBotPolicy",
      args: [manifest.accounts.bots.default!.address as Address],
    })) as { maxPerTxAmount: bigint };
    // The cap is in USD with 6 decimals; the devnet prices USDC at $1, so one more whole USDC is over it.
    const overCap = (config.maxPerTxAmount / 1_000_000n + 1n).toString();
    const recipient = freshRecipient();
    const vaultBefore = await usdc(vault);
    const result = await bot(recipient, overCap);
    expect(result).toEqual({ code: 1, stdout: "", stderr: "error EXCEEDS_PER_TX_LIMIT retryable=false\n" });
    expect(await usdc(recipient)).toBe(0n);
    expect(await usdc(vault)).toBe(vaultBefore);
  });
});

describe("examples/owner.mjs under Node 20", () => {
  it("signs in, lists the held request of bot `reviewed`, approves it; the waiting bot sees it approved and the payment lands", { timeout: 120_000 }, async () => {
    const recipient = freshRecipient();
    const waiting = startBot(recipient, "3", ["--wait"], "reviewed");
    const [, status, requestId] = STATUS.exec(await waiting.firstLine) ?? [];
    expect(status).toBe("pending_review");

    const list = await owner(["list"]);
    expect(list).toMatchObject({ code: 0, stderr: "" });
    expect(list.stdout).toMatch(new RegExp(`^${requestId} payment ${live.manifest.accounts.bots.reviewed!.address} \\S`, "m"));
    expect(await usdc(recipient)).toBe(0n);

    expect(await owner(["approve", requestId!])).toEqual({ code: 0, stdout: "status approved\n", stderr: "" });
    expect(await usdc(recipient)).toBe(3_000_000n);
    // The bot, polling at the review cadence, sees the decision on its next status check.
    expect(await waiting.done).toEqual({
      code: 0,
      stdout: `status pending_review request ${requestId}\nstatus approved request ${requestId}\n`,
      stderr: "",
    });
  });

  it("rejects a held request: status rejected, nothing moves, and it leaves the list", async () => {
    const recipient = freshRecipient();
    const held = await bot(recipient, "4", [], "reviewed");
    const requestId = STATUS.exec(held.stdout.trim())?.[2];
    expect(requestId).toBeDefined();
    expect(await owner(["reject", requestId!, "not this one"])).toEqual({ code: 0, stdout: "status rejected\n", stderr: "" });
    expect((await owner(["list"])).stdout).not.toContain(requestId);
    expect(await usdc(recipient)).toBe(0n);
  });

  it("a refused decision prints the typed error and exits 1", async () => {
    const result = await owner(["approve", "00000000-0000-4000-8000-000000000000"]);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(/^error [A-Z_]+ retryable=false\n$/);
  });
});

describe("the examples type-check against the installed package's .d.ts", () => {
  it("passes with tsc, resolving relay-client to its dist/*.d.ts", { timeout: 120_000 }, async () => {
    const result = await exec(node, [tsc, "-p", "tsconfig.json", "--listFiles"], { cwd: app });
    expect(result.stdout.split("\n").filter((line) => line.includes("error TS"))).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(path.join(app, "node_modules", "relay-client", "dist", "index.d.ts"));
    expect(result.stdout).not.toContain(path.join(packageDir, "src"));
  });

  it("fails on a wrong call in a scratch copy of the bot (so the check can fail)", { timeout: 120_000 }, async () => {
    const scratch = path.join(app, "scratch");
    mkdirSync(scratch, { recursive: true });
    copyFileSync(path.join(app, "tsconfig.json"), path.join(scratch, "tsconfig.json"));
    const source = readFileSync(path.join(app, "bot.mjs"), "utf8");
    const wrong = source.replace("parseUnits(need(flag(\"amount\"), \"--amount\"), decimals)", "parseUnits(5, decimals)");
    expect(wrong).not.toBe(source);
    writeFileSync(path.join(scratch, "bot.mjs"), wrong);
    const result = await exec(node, [tsc, "-p", "tsconfig.json"], { cwd: scratch });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/bot\.mjs\(\d+,\d+\): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'/);
  });
});
