// The CLI's conventions, through main(argv, io): every usage error is one `relay: …` line on stderr
// with exit 2; `--version`; the state directory from --state-dir or RELAY_STATE_DIR on every command;
// a port clash named for the flag that chose the port, for both the relayer's and the chain's port.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/paths.ts";
import { EXIT } from "../../src/cli/io.ts";
import { runMain } from "../helpers/cli.ts";

async function relay(argv: string[], env: Record<string, string | undefined> = {}) {
  const run = runMain(argv, env);
  const code = await run.done;
  return { code, ...run.output };
}

const VERSION = (JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string }).version;

describe("usage errors", () => {
  const cases: Array<[string, string[], RegExp]> = [
    ["a missing required option", ["pay", "--to", "0x976EA74026E726554dB657fA54763abd0C3a0aa9", "--token", "USDC"], /^relay: required option '--amount <amount>' not specified$/],
    ["an unknown option", ["vault", "value", "--nope"], /^relay: unknown option '--nope'$/],
    ["an unknown option close to a known one", ["vault", "value", "--jsn"], /^relay: unknown option '--jsn' \(did you mean --json\?\)$/],
    ["an unknown command", ["nosuch"], /^relay: unknown command 'nosuch'$/],
    ["an unknown command close to a known one", ["pya"], /^relay: unknown command 'pya' \(did you mean pay\?\)$/],
    ["too many arguments", ["status", "req_a", "req_b"], /^relay: too many arguments for 'status'\. Expected 1 argument but got 2: req_a, req_b\.$/],
    ["a bad option value", ["serve", "--port", "http"], /^relay: --port must be a port number from 0 to 65535, got "http"$/],
    ["a missing option value", ["pay", "--to"], /^relay: option '--to <address>' argument missing$/],
  ];
  for (const [what, argv, line] of cases) {
    it(`${what}: one relay: line on stderr, nothing on stdout, exit 2`, async () => {
      const { code, stdout, stderr } = await relay(argv);
      expect(code).toBe(EXIT.USAGE);
      expect(stdout).toBe("");
      expect(stderr.endsWith("\n")).toBe(true);
      expect(stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(stderr.trimEnd()).toMatch(line);
    });
  }
});

describe("--version", () => {
  for (const flag of ["--version", "-V"]) {
    it(`${flag} prints package.json's version and exits 0`, async () => {
      const { code, stdout, stderr } = await relay([flag]);
      expect(code).toBe(EXIT.OK);
      expect(stdout).toBe(`${VERSION}\n`);
      expect(stderr).toBe("");
    });
  }
});

describe("the state directory", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "relay-state-dir-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const profile = ["--relayer-url", "http://127.0.0.1:9999", "--chain-id", "84532"];

  it("RELAY_STATE_DIR is where a command keeps its state when --state-dir is not given", async () => {
    const fromEnv = path.join(dir, "env");
    expect((await relay(["profile", "save", "p", ...profile], { RELAY_STATE_DIR: fromEnv })).code).toBe(EXIT.OK);
    const list = await relay(["profile", "list", "--json"], { RELAY_STATE_DIR: fromEnv });
    expect(JSON.parse(list.stdout)).toHaveProperty("p");
    expect(readFileSync(path.join(fromEnv, "cli.json"), "utf8")).toContain("http://127.0.0.1:9999");
  });

  it("--state-dir wins over RELAY_STATE_DIR", async () => {
    const fromFlag = path.join(dir, "flag");
    const fromEnv = path.join(dir, "env2");
    expect((await relay(["profile", "save", "q", ...profile, "--state-dir", fromFlag], { RELAY_STATE_DIR: fromEnv })).code).toBe(EXIT.OK);
    expect(readFileSync(path.join(fromFlag, "cli.json"), "utf8")).toContain('"q"');
    const list = await relay(["profile", "list", "--json"], { RELAY_STATE_DIR: fromEnv });
    expect(JSON.parse(list.stdout)).toEqual({});
  });

  it("a settings command reads the manifest in RELAY_STATE_DIR (the error names that directory)", async () => {
    const fromEnv = path.join(dir, "empty");
    const { code, stderr } = await relay(["pay", "--to", "0x976EA74026E726554dB657fA54763abd0C3a0aa9", "--amount", "1", "--token", "USDC", "--bot", "reviewed"], { RELAY_STATE_DIR: fromEnv });
    expect(code).toBe(EXIT.USAGE);
    expect(stderr).toBe(`relay: --bot reviewed needs a devnet manifest in ${fromEnv}\n`);
  });

  it("`relay devnet` writes its manifest into RELAY_STATE_DIR", async () => {
    const fromEnv = path.join(dir, "devnet");
    const run = runMain(["devnet", "--rpc-port", "0"], { RELAY_STATE_DIR: fromEnv });
    await run.waitFor(/relay: ready/, 120_000);
    try {
      expect(run.output.stderr).toContain(`manifest ${path.join(fromEnv, "devnet.json")}`);
      expect(JSON.parse(readFileSync(path.join(fromEnv, "devnet.json"), "utf8"))).toHaveProperty("rpcUrl");
    } finally {
      run.stop();
      expect(await run.done).toBe(EXIT.OK);
    }
  });

  it("`keys new` accepts --state-dir like every command", async () => {
    const { code, stdout } = await relay(["keys", "new", "--json", "--state-dir", path.join(dir, "keys")]);
    expect(code).toBe(EXIT.OK);
    expect(JSON.parse(stdout)).toHaveProperty("address");
  });
});

describe("a port that is taken", () => {
  let blocker: Server;
  let taken: number;
  let stateDir: string;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    taken = (blocker.address() as { port: number }).port;
    stateDir = mkdtempSync(path.join(tmpdir(), "relay-port-clash-"));
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("the chain's port: `relay devnet --rpc-port <taken>` names --rpc-port", async () => {
    const { code, stderr } = await relay(["devnet", "--rpc-port", String(taken), "--state-dir", stateDir]);
    expect(code).toBe(EXIT.FAILURE);
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(`relay: port ${taken} (--rpc-port) is in use; pick another with --rpc-port or 0 for a free one`);
  });

  it("the chain's port of `relay serve` names --rpc-port too", async () => {
    const { code, stderr } = await relay(["serve", "--port", "0", "--rpc-port", String(taken), "--state-dir", stateDir]);
    expect(code).toBe(EXIT.FAILURE);
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(`relay: port ${taken} (--rpc-port) is in use; pick another with --rpc-port or 0 for a free one`);
  });

  it("the relayer's port: `relay serve --port <taken>` names --port", async () => {
    const { code, stderr } = await relay(["serve", "--port", String(taken), "--rpc-port", "0", "--state-dir", stateDir]);
    expect(code).toBe(EXIT.FAILURE);
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(`relay: port ${taken} (--port) is in use; pick another with --port or 0 for a free one`);
  });
});
