// A Python bot author's path, as the guide has it (docs/guides/python-bots.md, "From `pip install` to
// an approved payment"): from an empty folder beside a clone, the guide's shell blocks run as written
// with bash: a venv on the machine's python3 (test/support/python.ts picks it), `pip install` of the
// clone's packages/python (PyPI for its dependencies), examples/python/bot.py copied in, then the
// settings read from the clone's manifest and the bot run against a live `relay serve`. What it prints
// is checked, and the chain is read to prove what moved; the bot's key appears in no output.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { startLiveRelay, type LiveRelay } from "../cli/support/live.ts";
import { codeBlocks, section } from "../docs/support/markdown.ts";
import { exec, type Result } from "../examples/support/programs.ts";
import { python3 } from "../support/python.ts";

const GUIDE = "docs/guides/python-bots.md";
const blocks = codeBlocks(section(GUIDE, "From `pip install` to an approved payment"));
const [installBlock, runBlock] = blocks.filter((block) => block.lang === "sh").map((block) => block.body);
const excerpt = blocks.find((block) => block.lang === "python")!.body;

let work: string;
let clone: string;
let app: string;
let bin: string;
let live: LiveRelay;

/** Runs a guide's block with bash, stopping at the first failing command, with the tests' python3 first on PATH. */
/**
 * The machine's own network settings for pip (an index or proxy, a CA bundle), as a reader's shell
 * has them; nothing else of the test's environment reaches the guide's commands.
 */
const NETWORK_ENV = /^(PIP_[A-Z_]+|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE)$/;
const networkEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([name]) => NETWORK_ENV.test(name)));

function bash(block: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Result> {
  return exec("bash", ["--norc", "-eo", "pipefail", "-c", block], {
    cwd,
    env: { ...networkEnv(), PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: process.env.HOME, PIP_DISABLE_PIP_VERSION_CHECK: "1", ...env },
  });
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "relay-python-bot-"));
  clone = path.join(work, "relay");
  app = path.join(work, "my-python-bot");
  bin = path.join(work, "bin");
  mkdirSync(bin);
  symlinkSync(python3().path, path.join(bin, "python3"));
  mkdirSync(path.join(clone, ".relay"), { recursive: true });
  for (const dir of ["packages", "examples"]) symlinkSync(path.join(projectRoot, dir), path.join(clone, dir));
  const install = async (): Promise<void> => {
    const result = await bash(installBlock!, work);
    expect(result.code, result.stderr).toBe(0);
  };
  [live] = await Promise.all([startLiveRelay("relay-python-bot-live-"), install()]);
  copyFileSync(path.join(live.stateDir, "devnet.json"), path.join(clone, ".relay", "devnet.json"));
}, 600_000);

afterAll(async () => {
  await live?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

const usdc = (holder: Address) => live.balanceOf("USDC", holder);
const freshRecipient = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** `.venv/bin/python bot.py …` in the installed folder, as bot `as`, with the live relay's settings. */
function bot(args: string[], as: "default" | "reviewed" = "default"): Promise<Result> {
  const { manifest } = live;
  return exec(path.join(app, ".venv", "bin", "python"), ["bot.py", ...args], {
    cwd: app,
    env: {
      PATH: process.env.PATH,
      RELAY_URL: manifest.relayerUrl,
      RELAY_RPC_URL: manifest.rpcUrl,
      RELAY_CHAIN_ID: String(manifest.chainId),
      RELAY_VAULT: manifest.contracts.vault,
      RELAY_BOT_KEY: manifest.accounts.bots[as]!.privateKey,
    },
  });
}

function expectNoKey(result: Result): void {
  for (const account of Object.values(live.manifest.accounts.bots)) {
    const key = account.privateKey.slice(2).toLowerCase();
    expect((result.stdout + result.stderr).toLowerCase()).not.toContain(key);
  }
}

describe("the Python bot authors' guide, run as written", () => {
  it("shows the bot's own lines: every line of the excerpt is in examples/python/bot.py", () => {
    const source = readFileSync(path.join(projectRoot, "examples", "python", "bot.py"), "utf8");
    const lines = excerpt.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("# ..."));
    expect(lines.length).toBeGreaterThan(15);
    for (const line of lines) expect(source, line).toContain(line);
  });

  it("installed relay-client into the folder's own venv from the clone", async () => {
    const result = await exec(path.join(app, ".venv", "bin", "python"), ["-c", "import relay_client; print(relay_client.__file__)"], { cwd: app });
    expect(result.stdout.trim()).toBe(path.join(app, ".venv", "lib", `python${python3().version.split(".").slice(0, 2).join(".")}`, "site-packages", "relay_client", "__init__.py"));
  });

  it("pays as the guide says: its settings from the clone's manifest, then bot.py prints approved and the payment is on-chain", async () => {
    const { relayerUrl, rpcUrl } = live.manifest;
    const block = runBlock!.replaceAll("http://127.0.0.1:8787", relayerUrl!).replaceAll("http://127.0.0.1:8545", rpcUrl);
    expect(block).not.toBe(runBlock);
    expect(live.manifest.chainId).toBe(84532);
    const recipient = "0x976EA74026E726554dB657fA54763abd0C3a0aa9" as Address;
    const before = await usdc(recipient);
    const result = await bash(block, app, { relay: clone });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^status approved request req_\w+\n$/);
    expect(await usdc(recipient)).toBe(before + 5_000_000n);
    expectNoKey(result);
  });

  it("waits: a held payment that approves itself (review-approve:1) ends approved and lands", { timeout: 120_000 }, async () => {
    const recipient = freshRecipient();
    const result = await bot(["--to", recipient, "--amount", "2", "--token", "USDC", "--scenario", "review-approve:1", "--wait"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const lines = result.stdout.trim().split("\n").map((line) => /^status (\S+) request (\S+)$/.exec(line));
    expect(lines.map((match) => match?.[1])).toEqual(["pending_review", "approved"]);
    expect(lines[1]![2]).toBe(lines[0]![2]);
    expect(await usdc(recipient)).toBe(2_000_000n);
  });

  it("is held for review as the bot that needs the owner: pending_review, nothing moves", async () => {
    const recipient = freshRecipient();
    const result = await bot(["--to", recipient, "--amount", "1", "--token", live.manifest.tokens.USDC!.address], "reviewed");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^status pending_review request req_\w+\n$/);
    expect(await usdc(recipient)).toBe(0n);
  });

  it("is refused above the per-transaction cap with the typed error, exits 1, and nothing moves", async () => {
    const recipient = freshRecipient();
    const result = await bot(["--to", recipient, "--amount", "50001", "--token", "USDC"]);
    expect(result).toEqual({ code: 1, stdout: "", stderr: "error EXCEEDS_PER_TX_LIMIT retryable=False\n" });
    expect(await usdc(recipient)).toBe(0n);
  });

  it("refuses bad input in one line, before signing, without echoing the key", async () => {
    const key = live.manifest.accounts.bots.default!.privateKey;
    const result = await bot(["--to", key, "--amount", "1", "--token", "USDC"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^bot\.py: PaymentIntent\.to must be a 0x address of 20 bytes, got a str of 66 characters \(not shown\)\n$/);
    expectNoKey(result);
  });
});
