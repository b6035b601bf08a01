// The CI recipe examples/ci/relay-e2e.yml, run exactly as written: every `run:` step's script, in
// order, by bash as GitHub Actions runs it (`bash -e <file>`), from a workspace that mimics the runner
// (GITHUB_WORKSPACE holding the repository, RUNNER_TEMP, CI=true, a GITHUB_ENV file whose lines are
// applied to the next steps, Node 20 first on PATH as actions/setup-node leaves it). The `uses:` steps
// (actions/checkout, actions/setup-node) are GitHub's own actions, not scripts: they are skipped here,
// and the workspace and PATH stand in for what they do. Asserts that each step succeeds, that the
// payment was approved and moved 1 USDC on-chain, and that the relayer process is gone at the end.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { erc20Abi, getAddress, parseEventLogs, type Hex } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { clientsFor } from "../../src/chain/clients.ts";
import { projectRoot } from "../../src/paths.ts";
import { node20 } from "../support/node20.ts";
import { workflowSteps, type WorkflowStep } from "./support/workflow.ts";

const WORKFLOW = path.join(projectRoot, "examples", "ci", "relay-e2e.yml");
// The payee of the recipe's `relay pay --to`.
const PAYEE = getAddress("0x00000000000000000000000000000000000000aa");

describe("the CI recipe in examples/ci", () => {
  const root = mkdtempSync(path.join(tmpdir(), "relay-ci-recipe-"));
  const workspace = path.join(root, "workspace");
  const runnerTemp = path.join(root, "runner-temp");
  const home = path.join(root, "home");
  let relayPid: number | undefined;

  afterAll(() => {
    // Only if the recipe's own stop step did not end it.
    if (relayPid !== undefined && alive(relayPid)) process.kill(relayPid, "SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("has the steps a bot author needs, in order", () => {
    const steps = workflowSteps(readFileSync(WORKFLOW, "utf8"));
    expect(steps.map((s) => s.uses ?? s.name)).toEqual([
      "actions/checkout@v4",
      "actions/setup-node@v4",
      "actions/cache@v4",
      "Install relay (the first run provisions its toolchain)",
      "Start a devnet and relayer in the background",
      "Wait until the relayer is ready",
      "Export the devnet's addresses and keys",
      "The bot's checks",
      "Stop the relayer",
    ]);
    expect(steps.at(-1)!.if).toBe("always()");
  });

  it("runs every run: step as written: the relayer starts, the bot's payment is approved on-chain, the relayer stops with exit 0", async () => {
    const steps = workflowSteps(readFileSync(WORKFLOW, "utf8"));
    // The runner's workspace holds the checked-out repository: here, links to this checkout's files.
    for (const dir of [workspace, runnerTemp, home]) mkdirSync(dir);
    for (const entry of readdirSync(projectRoot)) {
      if (entry === ".git" || entry === ".relay") continue;
      symlinkSync(path.join(projectRoot, entry), path.join(workspace, entry));
    }
    const systemPath = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.startsWith(path.join(projectRoot, ".toolchain")));
    let env: Record<string, string> = {
      PATH: [path.dirname(node20()), ...systemPath].join(path.delimiter),
      HOME: home,
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: runnerTemp,
      RUNNER_OS: "Linux",
    };

    const results: Array<{ step: string; status: number | null; output: string }> = [];
    let failed = false;
    for (const [index, step] of steps.entries()) {
      if (step.run === undefined) continue; // a `uses:` step: GitHub's action, stood in for above
      if (failed && step.if !== "always()") continue;
      if (step.if === "always()" && !failed) await checkThePayment(env);
      const { status, output, exported } = runStep(step, index, env);
      results.push({ step: step.name ?? step.run, status, output });
      env = { ...env, ...exported };
      if (env.RELAY_PID !== undefined) relayPid = Number(env.RELAY_PID);
      if (status !== 0) failed = true;
    }
    for (const result of results) expect(result.status, `step "${result.step}" failed:\n${result.output}`).toBe(0);
    // The workspace holds what a cache hit restores (this checkout's provisioned .toolchain,
    // node_modules and artifacts): the install step fetches, installs and compiles nothing.
    const install = results.find((r) => r.step.startsWith("Install relay"))!;
    expect(install.output).not.toMatch(/fetching|installing|compiling|provisioning/);
    expect(results.map((r) => r.step)).toHaveLength(steps.filter((s) => s.run !== undefined).length);

    // The relayer's process is gone, and it exited 0 on SIGTERM.
    expect(relayPid).toBeGreaterThan(0);
    expect(alive(relayPid!)).toBe(false);
    expect(readFileSync(path.join(runnerTemp, "relay.exit"), "utf8").trim()).toBe("0");
  }, 600_000);

  // Before the stop step, while the chain still runs: the answer the recipe checked, read on-chain.
  async function checkThePayment(env: Record<string, string>): Promise<void> {
    const answer = JSON.parse(readFileSync(path.join(runnerTemp, "pay.json"), "utf8")) as { status: string; txHash: Hex };
    expect(answer.status).toBe("approved");
    const manifest = JSON.parse(readFileSync(path.join(runnerTemp, "relay", "devnet.json"), "utf8"));
    expect(env.RELAY_URL).toBe(manifest.relayerUrl);
    expect(env.RELAY_RPC_URL).toBe(manifest.rpcUrl);
    expect(env.RELAY_CHAIN_ID).toBe(String(manifest.chainId));
    expect(env.RELAY_VAULT).toBe(manifest.contracts.vault);
    expect(env.RELAY_BOT_KEY).toBe(manifest.accounts.bots.default.privateKey);
    const { publicClient } = clientsFor(manifest.rpcUrl, manifest.chainId);
    const receipt = await publicClient.getTransactionReceipt({ hash: answer.txHash });
    expect(receipt.status).toBe("success");
    const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs });
    expect(transfers).toContainEqual(
      expect.objectContaining({
        address: (manifest.tokens.USDC.address as string).toLowerCase(),
        args: { from: manifest.contracts.vault, to: PAYEE, value: 1_000_000n },
      }),
    );
  }

  // One `run:` step as Actions runs it: the script in a file, `bash -e <file>`, from the workspace;
  // then the lines it appended to GITHUB_ENV (a fresh file per step), for the steps after it.
  function runStep(step: WorkflowStep, index: number, env: Record<string, string>) {
    const script = path.join(runnerTemp, `step-${index}.sh`);
    const githubEnv = path.join(runnerTemp, `github-env-${index}`);
    writeFileSync(script, step.run!);
    writeFileSync(githubEnv, "");
    const run = spawnSync("bash", ["-e", script], { cwd: workspace, env: { ...env, GITHUB_ENV: githubEnv }, encoding: "utf8", timeout: 400_000 });
    const exported = Object.fromEntries(
      readFileSync(githubEnv, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const eq = line.indexOf("=");
          if (eq <= 0) throw new Error(`GITHUB_ENV line the test does not understand (only NAME=value): ${line}`);
          return [line.slice(0, eq), line.slice(eq + 1)];
        }),
    );
    return { status: run.status, output: `${run.stdout}${run.stderr}${run.error ? String(run.error) : ""}`, exported };
  }
});

describe("the CI recipe's cache", () => {
  const text = readFileSync(WORKFLOW, "utf8");
  const cache = /- name: [^\n]*\n\s+uses: actions\/cache@v4\n\s+with:\n\s+path: \|\n((?:\s{12}\S[^\n]*\n)+)\s+key: ([^\n]+)\n/.exec(text);
  const toolchain = readFileSync(path.join(projectRoot, "scripts", "toolchain.sh"), "utf8");

  it("keeps the toolchain directory, node_modules and the compiled artifacts, the stamps that say they are current among them", () => {
    expect(cache, "an actions/cache@v4 step with a block path: and a key:").not.toBeNull();
    const paths = cache![1]!.trim().split(/\s+/);
    expect(paths).toEqual([".toolchain", "node_modules", "artifacts"]);
    // Where scripts/toolchain.sh writes Node, the dependencies' stamp and the build's stamp.
    expect(toolchain).toContain('RELAY_TOOLCHAIN_DIR=${RELAY_TOOLCHAIN_DIR:-$RELAY_ROOT/.toolchain}');
    for (const stamp of ["node_modules/.relay-install-stamp", "artifacts/.relay-build-stamp"]) {
      expect(toolchain).toContain(`$RELAY_ROOT/${stamp}`);
      expect(paths).toContain(stamp.split("/")[0]);
    }
  });

  it("is keyed by every file the stamps are made from, and by the runner's system and processor", () => {
    const key = cache![2]!;
    expect(key).toMatch(/^relay-\$\{\{ runner\.os \}\}-\$\{\{ runner\.arch \}\}-\$\{\{ hashFiles\(.*\) \}\}$/);
    const hashed = [...key.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    // The files the cached directories' stamps hash in scripts/toolchain.sh: the install stamp's
    // (relay_hash's plain arguments) and the contracts' digest (relay_contracts_hash: contracts/ whole,
    // and the files it runs sha256sum on). The CLI bundle in dist/ is not cached: it is rebuilt from src/.
    const digest = toolchain.slice(toolchain.indexOf("relay_contracts_hash() {"), toolchain.indexOf("\n}\n", toolchain.indexOf("relay_contracts_hash() {")));
    expect(digest).toMatch(/find contracts -type f/);
    const inputs = new Set([
      ...[...toolchain.matchAll(/relay_hash ([\w.\- ]+)\)/g)].flatMap((m) => m[1]!.trim().split(/\s+/)),
      ...[...digest.matchAll(/sha256sum ([\w.\-]+)$/gm)].map((m) => m[1]!),
    ]);
    expect([...inputs].sort()).toEqual(["hardhat.config.ts", "package-lock.json", "package.json"]);
    for (const file of inputs) expect(hashed).toContain(file);
    expect(hashed).toContain("contracts/**");
  });
});

describe("the CI recipe's wait for relay", () => {
  const wait = workflowSteps(readFileSync(WORKFLOW, "utf8")).find((s) => s.name === "Wait until the relayer is ready")!;

  // The wait step alone, against a relay that never becomes ready: no manifest, a log to show.
  function runWait(extra: Record<string, string>, exitCode?: string) {
    const runnerTemp = mkdtempSync(path.join(tmpdir(), "relay-ci-wait-"));
    try {
      writeFileSync(path.join(runnerTemp, "relay.log"), "relay: could not bind 127.0.0.1:1 (the log's last line)\n");
      if (exitCode !== undefined) writeFileSync(path.join(runnerTemp, "relay.exit"), `${exitCode}\n`);
      const script = path.join(runnerTemp, "wait.sh");
      writeFileSync(script, wait.run!);
      const PATH = [path.dirname(node20()), ...(process.env.PATH ?? "").split(path.delimiter)].join(path.delimiter);
      // The bound keeps a wait that never gives up from holding the test: it shows as status null.
      const run = spawnSync("bash", ["-e", script], { cwd: runnerTemp, env: { PATH, RUNNER_TEMP: runnerTemp, CI: "true", ...extra }, encoding: "utf8", timeout: 60_000 });
      return { status: run.status, output: `${run.stdout}${run.stderr}` };
    } finally {
      rmSync(runnerTemp, { recursive: true, force: true });
    }
  }

  it("gives up after its deadline, printing relay's log", () => {
    const run = runWait({ RELAY_READY_TIMEOUT: "2" });
    expect(run.status, run.output).toBe(1);
    expect(run.output).toContain("relay was not ready after 2 s; its log:");
    expect(run.output).toContain("relay: could not bind 127.0.0.1:1 (the log's last line)");
  });

  it("gives up at once when relay has exited, printing its exit code and log", () => {
    // A deadline far away: only relay's exit can end this wait within the test's bound.
    const run = runWait({ RELAY_READY_TIMEOUT: "600" }, "1");
    expect(run.status, run.output).toBe(1);
    expect(run.output).toContain("relay exited with code 1 before it was ready; its log:");
    expect(run.output).toContain("relay: could not bind 127.0.0.1:1 (the log's last line)");
  });

  it("waits 180 s by default", () => {
    expect(wait.run).toContain("deadline=$((SECONDS + ${RELAY_READY_TIMEOUT:-180}))");
  });
});

describe("workflowSteps, the test's reader of a workflow", () => {
  const workflow = (steps: string) => `name: x\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n${steps}`;

  it("reads one-line and block run: steps exactly, skipping with: members", () => {
    const steps = workflowSteps(
      workflow(
        [
          "      - uses: actions/setup-node@v4",
          "        with:",
          "          node-version: 20",
          "      - name: one",
          "        run: echo 'a  b' > out",
          "      - name: two",
          "        if: always()",
          "        run: |",
          "          if true; then",
          "            echo \"$X\"",
          "",
          "          fi",
          "",
        ].join("\n"),
      ),
    );
    expect(steps).toEqual([
      { uses: "actions/setup-node@v4" },
      { name: "one", run: "echo 'a  b' > out" },
      { name: "two", if: "always()", run: 'if true; then\n  echo "$X"\n\nfi\n' },
    ]);
  });

  it("refuses what it would not run as Actions does", () => {
    expect(() => workflowSteps(workflow("      - run: echo hi\n        env:\n          A: b\n"))).toThrow(/env/);
    expect(() => workflowSteps(workflow("      - run: echo ${{ secrets.X }}\n"))).toThrow(/expressions/);
    expect(() => workflowSteps(workflow("      - run: >\n          echo folded\n"))).toThrow(/plain one-line values/);
    expect(() => workflowSteps(workflow("      - run: echo hi # note\n"))).toThrow(/plain one-line values/);
    expect(() => workflowSteps(workflow("      - name: nothing\n"))).toThrow(/exactly one of run: and uses:/);
    expect(() => workflowSteps(`defaults:\n  run:\n    shell: sh\n${workflow("      - run: echo hi\n")}`)).toThrow(/defaults/);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
